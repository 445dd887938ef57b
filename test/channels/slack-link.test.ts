import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podSnoozesAfter } from '../../src/db/idle-state.js';
import { silentLogger } from '../../src/log.js';
import type { SlackBlock, SlackButton } from '../../src/messages/slack.js';
import { type MetricsServer, startMetricsServer } from '../../src/web/server.js';
import { hasChromium, launchBrowser, screenshot, WIDTHS } from '../helpers/browser.js';
import { runOnlyCollectors } from '../helpers/collectors.js';
import { type SlackPost, type SlackReceiver, startSlackReceiver } from '../helpers/slack-receiver.js';
import { type DaemonHarness, startDaemonHarness } from '../metrics/support.js';
import { expectWithinSlackLimits } from './slack-payload-limits.js';

/**
 * The daemon with Slack configured, against the simulator on a virtual clock and a loopback
 * Slack: an idle notebook's notice and stop warning reach the Slack destination; the
 * warning's Keep running button, followed in headless Chromium, opens the same confirmation page
 * as the email's link; opening it changes nothing, confirming (the POST) records the snooze for
 * the Slack destination, and the link is then used up.
 */
const MIN = 60_000;
const HOUR = 60 * MIN;

const scenario = {
  name: 'slack-link',
  start: '2026-11-02T09:00:00Z',
  apiKey: 'sim-key',
  catalog: {
    gpus: [
      { id: 'NVIDIA L40S', name: 'L40S', memory: 48, price: { secure: 0.86, community: 0.79 }, availability: 'HIGH' },
    ],
  },
  pods: [
    {
      id: 'nb',
      name: 'demo-notebook',
      gpu: { id: 'NVIDIA L40S', count: 1 },
      cost: 0.86,
      status: 'RUNNING',
      startedAt: '-2h',
      utilization: [{ at: '0s', gpu: 0, memory: 5 }],
    },
    // Busy Pods, so stopping the notebook stays within the blast-radius cap.
    ...['train-a', 'train-b'].map((id) => ({
      id,
      name: id,
      gpu: { id: 'NVIDIA L40S', count: 1 },
      cost: 0.86,
      status: 'RUNNING',
      startedAt: '-2h',
      utilization: [{ at: '0s', gpu: 90, memory: 60 }],
    })),
  ],
};

const headerOf = (post: SlackPost) => {
  const [header] = post.body.blocks as SlackBlock[];
  return header?.type === 'header' ? header.text.text : '';
};
const buttonsOf = (post: SlackPost): SlackButton[] =>
  (post.body.blocks as SlackBlock[]).flatMap((block) => (block.type === 'actions' ? block.elements : []));

let h: DaemonHarness;
let slack: SlackReceiver;
let server: MetricsServer;
let browser: Browser;

async function minute(): Promise<void> {
  await h.clock.advanceBy(MIN);
  await h.drive(h.daemon.collect('pods', 'sim'));
  await h.drive(h.daemon.evaluate());
}

async function pageText(url: string): Promise<{ status: number; text: string }> {
  const page = await browser.newPage();
  try {
    const response = await page.goto(url, { waitUntil: 'load' });
    return { status: response?.status() ?? 0, text: String(await page.evaluate('document.body.innerText')) };
  } finally {
    await page.close();
  }
}

describe.skipIf(!hasChromium())('a Slack message followed in Chromium', () => {
  beforeAll(async () => {
    slack = await startSlackReceiver();
    h = await startDaemonHarness(scenario, (config) => {
      config.http.listen = '127.0.0.1:0';
      config.idle.rules = [{ ...config.idle.rules[0]!, dryRun: false, stopWhenScarce: true }];
      config.slack = {
        destinations: [{ name: 'ml-team', webhookUrl: `${slack.url}/services/T0/B0/ml-team` }],
        timeoutMs: 10_000,
        giveUpAfterMs: 24 * HOUR,
      };
      runOnlyCollectors(config, ['catalog', 'pods', 'stock']);
    });
    server = await startMetricsServer({ config: h.config, daemon: h.daemon, clock: h.clock, log: silentLogger() });
    h.config.http.publicUrl = server.url;
    browser = await launchBrowser();
    await h.drive(h.daemon.collectOnce());
    const warned = () => slack.posts.some((post) => /will be stopped/.test(headerOf(post)));
    for (let i = 0; i < 90 && !warned(); i++) await minute();
    if (!warned()) throw new Error(`no stop warning in Slack; got: ${slack.posts.map(headerOf).join(' | ')}`);
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await h?.close();
    await slack?.close();
  });

  it('the idle notice and warning reach the destination, within Slack limits', () => {
    const headers = slack.posts.map(headerOf);
    for (const header of headers) expect(header).toMatch(/^Pod demo-notebook /);
    // The notebook was idle from the start: its notice and its warning come in one message.
    expect(JSON.stringify(slack.posts.at(-1)?.body)).toMatch(/has done no GPU work since/);
    expect(headers.at(-1)).toMatch(
      /^Pod demo-notebook will be stopped at \d\d:\d\d UTC or later, idle .* · \$20\.64\/day$/,
    );
    for (const post of slack.posts) {
      expect(post.path).toBe('/services/T0/B0/ml-team');
      expect(post.status).toBe(200);
      expectWithinSlackLimits(post.body as never);
    }
  });

  it('Keep running 2 h: the page asks, a GET changes nothing, the POST records the snooze; then the link is used', async () => {
    const warning = slack.posts.find((post) => /will be stopped/.test(headerOf(post)));
    const button = buttonsOf(warning as SlackPost).find((b) => b.text.text === 'Keep running 2 h');
    if (!button) throw new Error('the warning has no Keep running 2 h button');
    expect(button.url.startsWith(`${server.url}/pods/sim/nb/keep-running?t=`)).toBe(true);
    expect(button.style).toBe('primary');

    const page = await browser.newPage();
    try {
      await page.setViewport({ width: WIDTHS.phone, height: 800 });
      await page.goto(button.url, { waitUntil: 'load' });
      expect(String(await page.evaluate('document.querySelector(".question").innerText'))).toMatch(
        /^Keep demo-notebook running until \d\d:\d\d UTC\?$/,
      );
      // Opening the link (as Slack's or a browser's preview would) acts on nothing.
      expect(await podSnoozesAfter(h.daemon.db, 'nb', h.clock.now())).toEqual([]);
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
      expect(String(await page.evaluate('document.body.innerText'))).toMatch(/demo-notebook keeps running until/);
    } finally {
      await page.close();
    }
    const snoozes = await podSnoozesAfter(h.daemon.db, 'nb', h.clock.now());
    expect(snoozes).toMatchObject([
      { until: h.clock.now() + 2 * HOUR, source: 'email link', createdBy: 'slack:ml-team' },
    ]);

    const again = await pageText(button.url);
    expect(again.status).toBe(409);
    expect(again.text).toMatch(/already used at .* \(sent to slack:ml-team\); nothing changed/);
    expect(await podSnoozesAfter(h.daemon.db, 'nb', h.clock.now())).toHaveLength(1);
    // The confirmation page, as the phone that tapped the button shows it.
    await screenshot(browser, { url: button.url }, 'slack-link-used', WIDTHS.phone);
  }, 300_000);
});
