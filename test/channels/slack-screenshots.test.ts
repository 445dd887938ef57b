import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackMessage } from '../../src/messages/slack.js';
import { hasChromium, launchBrowser, screenshot, WIDTHS } from '../helpers/browser.js';
import { slackHtml } from './slack-html.js';

/**
 * Every golden Slack message as Slack lays it out (slack-html.ts, a look-alike for pictures):
 * headless Chromium at a phone and a desktop width, PNGs under test-results/screenshots/.
 * Nothing may be wider than a 360 px phone. `UPDATE_GOLDEN=1` also copies the stop warning's
 * pictures to docs/images/, where the README shows them.
 */
const GOLDEN = resolve('test', 'golden', 'slack');
const messages = readdirSync(GOLDEN)
  .filter((file) => file.endsWith('.json'))
  .map(
    (file) => [basename(file, '.json'), JSON.parse(readFileSync(join(GOLDEN, file), 'utf8')) as SlackMessage] as const,
  );

describe.skipIf(!hasChromium())('Slack messages in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  for (const [name, message] of messages) {
    it(`${name} fits a phone and a desktop`, async () => {
      for (const width of [WIDTHS.phone, WIDTHS.desktop]) {
        const shot = await screenshot(browser, { html: slackHtml(message) }, `slack-${name}`, width);
        expect(shot.overflowPx, `${name} at ${width}px overflows`).toBe(0);
        if (name === 'idle-warn' && process.env.UPDATE_GOLDEN === '1') {
          mkdirSync(resolve('docs', 'images'), { recursive: true });
          copyFileSync(shot.path, resolve('docs', 'images', `slack-idle-warn-${width}.png`));
        }
      }
    }, 60_000);
  }
});
