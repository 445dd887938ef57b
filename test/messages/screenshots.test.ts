import { readFileSync } from 'node:fs';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMessage } from '../../src/messages/email.js';
import { renderDigest, renderFlappingNotice } from '../../src/messages/notices.js';
import { hasChromium, launchBrowser, screenshot, WIDTHS } from '../helpers/browser.js';
import { ALERTS, DIGEST, FLAPPING, firstNotification, resolvedNotification } from './fixtures.js';

/**
 * Every kind of email as a person sees it: headless Chromium at a phone and a desktop width,
 * PNGs under test-results/screenshots/ (kept by CI). Nothing may be wider than a 360 px phone.
 */
const messages: Record<string, string> = {
  ...Object.fromEntries(
    Object.entries(ALERTS).map(([name, alert]) => [`email-${name}`, renderMessage(firstNotification(alert)).html]),
  ),
  'email-idle-resolved': renderMessage(resolvedNotification(ALERTS['idle-notify'] as never)).html,
  'email-flapping': renderFlappingNotice(FLAPPING).html,
  'email-digest': renderDigest(DIGEST).html,
  // With owners teams: the spend by team table (golden.test.ts renders it).
  'email-digest-teams': readFileSync('test/golden/email/digest-teams.html', 'utf8'),
  // With http.publicUrl: the signed links as the golden test renders them (golden.test.ts).
  'email-idle-warn-links': readFileSync('test/golden/email/idle-warn-links.html', 'utf8'),
  // One Pod held idle and warned: the grouped idle mail, with its links.
  'email-idle-grouped-links': readFileSync('test/golden/email/idle-grouped-links.html', 'utf8'),
};

describe.skipIf(!hasChromium())('emails in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  for (const [name, html] of Object.entries(messages)) {
    it(`${name} fits a phone and a desktop`, async () => {
      for (const width of [WIDTHS.phone, WIDTHS.desktop]) {
        const shot = await screenshot(browser, { html }, name, width);
        expect(shot.overflowPx, `${name} at ${width}px overflows`).toBe(0);
      }
    }, 60_000);
  }
});
