import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetsSection } from '../../src/config/sections/budgets.js';
import { capacitySection } from '../../src/config/sections/capacity.js';
import { podSnoozesAfter } from '../../src/db/idle-state.js';
import { listSilences } from '../../src/db/silences.js';
import { type LinkClaims, loadLinkSecret, signLink } from '../../src/links/index.js';
import { silentLogger } from '../../src/log.js';
import { type MetricsServer, startMetricsServer } from '../../src/web/server.js';
import { hasChromium, launchBrowser, SCREENSHOT_DIR, screenshot, WIDTHS } from '../helpers/browser.js';
import { runOnlyCollectors } from '../helpers/collectors.js';
import { textOf } from '../helpers/mail-text.js';
import { type SmtpPeer, startSmtp } from '../helpers/smtp.js';
import { type DaemonHarness, startDaemonHarness } from '../metrics/support.js';

/**
 * The pages in headless Chromium, against the daemon and the simulator over HTTP on a virtual
 * clock, with a real SMTP server: an idle notebook is warned, a Keep-running link is confirmed in
 * the browser, the stop never comes; refused links change nothing; the pages fit a phone.
 */
const MIN = 60_000;
const HOUR = 60 * MIN;
const WARN_KEY = 'idle:sim:nb:warn';
/** How the daemon says it is run: the commands in mails and on the page must say the same. */
const COMMAND_LINE = { program: ['node', '/opt/podwarden/dist/main.js'], config: '/etc/podwarden/podwarden.yaml' };
const SNOOZE = 'node /opt/podwarden/dist/main.js snooze nb 4h --config /etc/podwarden/podwarden.yaml';

const scenario = {
  name: 'web-browser',
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

/** The pages' HTML against golden files: `UPDATE_GOLDEN=1 npx vitest run test/web/browser.test.ts` rewrites them. */
const GOLDEN = resolve('test', 'golden', 'web');
function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(path, actual);
  }
  expect(actual, `${name} differs from its golden file (UPDATE_GOLDEN=1 rewrites it)`).toBe(readFileSync(path, 'utf8'));
}

const run = hasChromium() ? describe : describe.skip;

let h: DaemonHarness;
let smtp: SmtpPeer;
let server: MetricsServer;
let browser: Browser;
let secret: Buffer;
/** The warning mail's "Keep running 2 h" link. */
let keepTwoHours = '';

/** One minute of the daemon's schedule: the Pod poll, then the evaluation tick (which mails). */
async function minute(): Promise<void> {
  await h.clock.advanceBy(MIN);
  await h.drive(h.daemon.collect('pods', 'sim'));
  await h.drive(h.daemon.evaluate());
}

function link(podId: string, overrides: Partial<LinkClaims> = {}): { url: string; token: string } {
  const now = h.clock.now();
  const claims: LinkClaims = {
    action: 'keep-running',
    account: 'sim',
    subject: podId,
    until: now + 2 * HOUR,
    durationMs: 2 * HOUR,
    label: '2 h',
    recipient: 'ml@example.com',
    expiresAt: now + 24 * HOUR,
    nonce: randomUUID(),
    timeZone: 'UTC',
    episode: null,
    ...overrides,
  };
  const token = signLink(secret, claims);
  return { token, url: `${server.url}/pods/sim/${encodeURIComponent(claims.subject)}/keep-running?t=${token}` };
}

async function stopRequests(): Promise<string[]> {
  const response = await request(`${h.sim.url}/_sim/requests`);
  const log = (await response.body.json()) as { entries: Array<{ method: string; path: string }> };
  return log.entries.filter((e) => e.method === 'POST' && e.path.endsWith('/stop')).map((e) => e.path);
}

/** Every signed link of every mail received so far. */
function mailedLinks(): string[] {
  return smtp.received.flatMap((mail) => textOf(mail.raw).match(/http:\/\/127\.0\.0\.1:\d+\/\S+\?t=[\w.-]+/g) ?? []);
}

const snoozes = () => podSnoozesAfter(h.daemon.db, 'nb', h.clock.now());

async function pageText(url: string): Promise<{ status: number; text: string }> {
  const page = await browser.newPage();
  try {
    const response = await page.goto(url, { waitUntil: 'load' });
    return { status: response?.status() ?? 0, text: String(await page.evaluate('document.body.innerText')) };
  } finally {
    await page.close();
  }
}

run('the status page and the link confirmation pages in Chromium', () => {
  beforeAll(async () => {
    smtp = await startSmtp();
    h = await startDaemonHarness(
      scenario,
      (config) => {
        config.http.listen = '127.0.0.1:0';
        // A fixed secret: the pages' CSRF values, hence their golden files, are the same every run.
        config.http.linkSecret = 'browser-test-link-secret';
        // Two small budgets the notebooks' spend passes at every threshold: one row each on the page.
        config.budgets = budgetsSection.parse([
          { name: 'team-day', amount: 50 },
          { name: 'gpu-small', amount: 5 },
          { name: 'gpu-tiny', amount: 4 },
        ]);
        config.capacity = capacitySection.parse({ watch: [{ gpuTypeId: 'NVIDIA L40S' }] });
        config.idle.rules = [{ ...config.idle.rules[0]!, dryRun: false, stopWhenScarce: true }];
        config.email = {
          ...config.email,
          host: '127.0.0.1',
          port: smtp.port,
          secure: 'none',
          from: 'podwarden@example.com',
          to: ['ml@example.com'],
        };
        runOnlyCollectors(config, ['catalog', 'pods', 'stock']);
      },
      { commandLine: COMMAND_LINE },
    );
    server = await startMetricsServer({ config: h.config, daemon: h.daemon, clock: h.clock, log: silentLogger() });
    h.config.http.publicUrl = server.url;
    secret = await loadLinkSecret(h.daemon.db, h.config, h.clock);
    browser = await launchBrowser();
    await h.drive(h.daemon.collectOnce());
    for (let i = 0; i < 90 && !smtp.received.some((mail) => mail.alertKeys.includes(WARN_KEY)); i++) await minute();
    const warning = smtp.received.find((mail) => mail.alertKeys.includes(WARN_KEY));
    if (!warning) throw new Error(`no stop warning; mails: ${smtp.received.map((m) => m.subject).join(' | ')}`);
    const found = /^Keep running 2 h\b[^\n]*:\s+(\S+)/m.exec(textOf(warning.raw))?.[1];
    if (!found) throw new Error(`the warning has no "Keep running 2 h" link:\n${textOf(warning.raw)}`);
    keepTwoHours = found;
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await h?.close();
    await smtp?.close();
  });

  it('shows the warned notebook with its planned stop, and fits 360 px and 1280 px without overflow', async () => {
    golden('status-page.html', await (await request(`${server.url}/`)).body.text());
    golden('pod-page.html', await (await request(`${server.url}/pods/sim/nb`)).body.text());
    const home = await pageText(`${server.url}/`);
    expect(home.status).toBe(200);
    expect(home.text).toMatch(/demo-notebook[\s\S]*stops \w{3} 2 Nov, \d\d:\d\d UTC, in \d+m/);
    for (const width of [WIDTHS.phone, WIDTHS.desktop]) {
      const shot = await screenshot(browser, { url: `${server.url}/` }, 'status-page', width);
      expect(shot.overflowPx).toBe(0);
      const pod = await screenshot(browser, { url: `${server.url}/pods/sim/nb` }, 'status-pod-page', width);
      expect(pod.overflowPx).toBe(0);
    }
    const page = await browser.newPage();
    try {
      await page.goto(`${server.url}/pods/sim/nb`);
      expect(Number(await page.evaluate('document.querySelectorAll("svg.spark rect.idle").length'))).toBeGreaterThan(
        10,
      );
      const receipts = String(
        await page.evaluate('[...document.querySelectorAll("ul.items > li")].map(li => li.innerText).join("\\n")'),
      );
      expect(receipts).toContain('warned');
      expect(receipts).toContain('found idle: notified');
      expect(receipts).toMatch(/\d+ samples, \d+ idle, idle coverage \d+%/);
    } finally {
      await page.close();
    }
  });

  it('lists open alerts in the words of the emails, one row per budget, with no backtick or raw ISO time', async () => {
    const html = await (await request(`${server.url}/`)).body.text();
    expect(html).not.toContain('`');
    expect(html).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    const page = await browser.newPage();
    try {
      await page.goto(`${server.url}/`, { waitUntil: 'load' });
      const rows = JSON.parse(
        String(
          await page.evaluate(
            `JSON.stringify([...[...document.querySelectorAll("section")].find((s) => s.querySelector("h2")?.innerText === "Open alerts").querySelectorAll("ul.items > li")].map(li => ({ text: li.innerText, forms: li.querySelectorAll("form[action=\\"/console/silence\\"]").length })))`,
          ),
        ),
      ) as Array<{ text: string; forms: number }>;
      for (const budget of ['gpu-small', 'gpu-tiny']) {
        const mine = rows.filter((row) => row.text.startsWith(`Budget ${budget} `));
        expect(mine, `${budget}: ${rows.map((r) => r.text).join('\n---\n')}`).toHaveLength(1);
        expect(mine[0]?.text).toMatch(/critical/);
        expect(mine[0]?.forms).toBe(1);
      }
      // The warning mail's first sentence, word for word, under the notebook's one row.
      const warning = smtp.received.find((mail) => mail.alertKeys.includes(WARN_KEY));
      const lead = textOf(warning?.raw ?? '')
        .split('\n')
        .find((line) => line.startsWith('Pod demo-notebook (nb)'))
        ?.replace(/\. .*$/, '.');
      expect(lead).toMatch(/has done no GPU work since .* and costs/);
      const notebook = rows.filter((row) => row.text.startsWith('Pod demo-notebook'));
      expect(notebook).toHaveLength(1);
      expect(notebook[0]?.text).toContain(lead);
      // The commands name the program as it runs and its configuration file, in the mail and on the page.
      expect(
        textOf(warning?.raw ?? '')
          .split(/\r?\n/)
          .map((line) => line.trim()),
      ).toContain(SNOOZE);
      expect(html).toContain(`<code>${SNOOZE}</code>`);
    } finally {
      await page.close();
    }
  });

  it('a plain GET of every link in the mails changes nothing, however often (link previewers, mail scanners)', async () => {
    const links = mailedLinks();
    expect(links.some((url) => url.includes('/keep-running?t='))).toBe(true);
    expect(links.some((url) => url.includes('/silence?t='))).toBe(true);
    const silences = (await listSilences(h.daemon.db)).length;
    for (let round = 0; round < 2; round++) {
      for (const url of links) {
        const response = await request(url);
        const body = await response.body.text();
        expect({ url, status: response.statusCode }).toEqual({ url, status: 200 });
        expect(body).toMatch(/<p class="question">(Keep demo-notebook running until|Silence &#34;)/);
      }
    }
    expect(await snoozes()).toEqual([]);
    expect(await listSilences(h.daemon.db)).toHaveLength(silences);
  });

  it('refuses an altered token, a token for another Pod and an expired one, and changes nothing', async () => {
    const token = new URL(keepTwoHours).searchParams.get('t') ?? '';
    const flipped = token.slice(0, 10) + (token[10] === 'A' ? 'B' : 'A') + token.slice(11);
    const altered = await pageText(keepTwoHours.replace(token, flipped));
    expect(altered.status).toBe(403);
    expect(altered.text).toContain('not made by this podwarden, or was altered; nothing changed');

    const other = link('train-a');
    const wrongPod = await pageText(`${server.url}/pods/sim/nb/keep-running?t=${other.token}`);
    expect(wrongPod.status).toBe(403);
    expect(wrongPod.text).toContain('made for Pod train-a (account sim)');

    const soon = link('nb', { expiresAt: h.clock.now() + 30_000 });
    await h.clock.advanceBy(MIN);
    const expired = await pageText(soon.url);
    expect(expired.status).toBe(410);
    expect(expired.text).toMatch(/This link expired at \w{3} 2 Nov, \d\d:\d\d UTC; nothing changed/);
    // And a POST of an expired link (its form was open before it expired) acts no more than its GET.
    const post = await request(soon.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ t: soon.token, csrf: 'x' }).toString(),
    });
    expect(post.statusCode).toBe(403);
    await post.body.text();
    expect(await snoozes()).toEqual([]);
  });

  it('the status page Silence form acts with the session CSRF value; without it, or from another origin, refused', async () => {
    const before = (await listSilences(h.daemon.db)).length;
    const bare = await request(`${server.url}/console/silence`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ alertKey: 'idle:sim:nb', for: String(4 * HOUR) }).toString(),
    });
    expect(bare.statusCode).toBe(403);
    expect(await bare.body.text()).toContain('lacks its check value');

    const page = await browser.newPage();
    try {
      await page.goto(`${server.url}/`, { waitUntil: 'load' });
      const csrf = String(
        await page.evaluate('document.querySelector("form[action=\\"/console/silence\\"] input[name=csrf]").value'),
      );
      const foreign = await request(`${server.url}/console/silence`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
        body: new URLSearchParams({ csrf, alertKey: 'idle:sim:nb', for: String(4 * HOUR) }).toString(),
      });
      expect(foreign.statusCode).toBe(403);
      expect(await foreign.body.text()).toContain('another origin (https://evil.example)');
      expect(await listSilences(h.daemon.db)).toHaveLength(before);

      await Promise.all([page.waitForNavigation(), page.click('form[action="/console/silence"] button')]);
      // The first row's (budget gpu-small's) title, as its mails call it.
      expect(String(await page.evaluate('document.body.innerText'))).toMatch(
        /"Budget gpu-small past 100%" is silenced until/,
      );
    } finally {
      await page.close();
    }
    const silences = await listSilences(h.daemon.db);
    expect(silences).toHaveLength(before + 1);
    expect(silences.at(-1)).toMatchObject({ source: 'status page' });
  });

  it("the mail's Keep running 2 h: confirm in the browser, the planned stop is gone, the Pod is never stopped; again: already used", async () => {
    const url = keepTwoHours;
    const page = await browser.newPage();
    try {
      await page.setViewport({ width: WIDTHS.phone, height: 800 });
      await page.goto(url, { waitUntil: 'load' });
      expect(String(await page.evaluate('document.querySelector(".question").innerText'))).toMatch(
        /^Keep demo-notebook running until \d\d:\d\d UTC\?$/,
      );
      await page.screenshot({ path: join(SCREENSHOT_DIR, `link-confirmation-${WIDTHS.phone}.png`), fullPage: true });
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
      expect(String(await page.evaluate('document.body.innerText'))).toMatch(/demo-notebook keeps running until/);
    } finally {
      await page.close();
    }
    const [snooze] = await snoozes();
    expect(snooze?.until).toBe(h.clock.now() + 2 * HOUR);

    const home = await pageText(`${server.url}/`);
    expect(home.text).toMatch(/demo-notebook[\s\S]*kept running until/);
    expect(home.text).not.toMatch(/demo-notebook[^\n]*\n[^\n]*\n[^\n]*\nstops /);

    // Past the warning's lead time: the ladder would have stopped it by now.
    for (let i = 0; i < 20; i++) await minute();
    expect(await stopRequests()).toEqual([]);
    expect((await pageText(`${server.url}/`)).text).not.toMatch(/demo-notebook[\s\S]{0,200}stops \w{3}/);

    const again = await pageText(url);
    expect(again.status).toBe(409);
    expect(again.text).toMatch(
      /already used at \w{3} 2 Nov, \d\d:\d\d UTC \(sent to ml@example\.com\); nothing changed/,
    );
    expect(await snoozes()).toHaveLength(1);
  }, 300_000);
});
