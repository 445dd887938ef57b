import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTeamSpend, type TeamSpendReport } from '../../src/alerts/team-spend.js';
import { toIso } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import { firingAlerts } from '../../src/db/alerts.js';
import { silentLogger } from '../../src/log.js';
import { NO_TEAM } from '../../src/rules/team-spend.js';
import { budgetStatus } from '../../src/tick/budget-status.js';
import { type MetricsServer, startMetricsServer } from '../../src/web/server.js';
import { hasChromium, launchBrowser, screenshot, WIDTHS } from '../helpers/browser.js';
import { runOnlyCollectors } from '../helpers/collectors.js';
import { textOf } from '../helpers/mail-text.js';
import { type SmtpPeer, startSmtp } from '../helpers/smtp.js';
import {
  type DaemonHarness,
  find,
  hasBinary,
  parseExposition,
  promtoolProblems,
  sampleValue,
  startDaemonHarness,
} from '../metrics/support.js';

/**
 * Spend per team against the simulator over HTTP, on a virtual clock: five Pods of three owners
 * in two teams (by name pattern and by env) and one of nobody's. A budget by team and one by
 * owner fire at their thresholds as the team's (owner's) billing crosses them; the spend by team
 * on the status page, in /metrics and in the digest is the sum of its Pods' billing to the cent.
 */
const MIN = 60_000;
const START = Date.UTC(2026, 10, 2, 0, 0, 0);
const DAY_START = START;
const MONTH_START = Date.UTC(2026, 10, 1);

const PODS = [
  { id: 'nb-alice', name: 'ml-alice-notebook', cost: 2, team: 'ml' },
  { id: 'train-bob', name: 'ml-bob-train', cost: 3, team: 'ml' },
  { id: 'api-carol', name: 'web-carol-api', cost: 1, team: 'web' },
  // No pattern match: its team comes from its env.
  { id: 'scratch', name: 'scratch', cost: 0.5, team: 'web', env: { TEAM: 'web' } },
  { id: 'orphan', name: 'orphan', cost: 0.25, team: NO_TEAM },
];

const scenario = {
  name: 'team-spend',
  start: toIso(START),
  apiKey: 'sim-key',
  catalog: {
    gpus: [
      { id: 'NVIDIA L40S', name: 'L40S', memory: 48, price: { secure: 0.86, community: 0.79 }, availability: 'HIGH' },
    ],
  },
  pods: PODS.map((pod) => ({
    id: pod.id,
    name: pod.name,
    gpu: { id: 'NVIDIA L40S', count: 1 },
    cost: pod.cost,
    status: 'RUNNING',
    startedAt: '0s',
    ...(pod.env ? { env: pod.env } : {}),
    utilization: [{ at: '0s', gpu: 90, memory: 60 }],
  })),
};

/** The pages' HTML against golden files, as test/web/browser.test.ts keeps them. */
const GOLDEN = resolve('test', 'golden', 'web');
function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(path, actual);
  }
  expect(actual, `${name} differs from its golden file (UPDATE_GOLDEN=1 rewrites it)`).toBe(readFileSync(path, 'utf8'));
}

let h: DaemonHarness;
let smtp: SmtpPeer;
let server: MetricsServer;
/** After each step: when billing was read, and when each budget alert was first seen firing. */
const steps: Array<{ at: number; firing: Set<string> }> = [];

/** USD the simulator accrued for a Pod in [from, to): the ground truth its billing reports. */
async function accrued(podId: string, from: number, to: number): Promise<number> {
  const response = await request(`${h.sim.url}/_sim/truth/accrued?kind=pods&id=${podId}&from=${from}&to=${to}`);
  return ((await response.body.json()) as { accrued: { totalAmount: number } }).accrued.totalAmount;
}

async function teamTruth(team: string, from: number, to: number): Promise<number> {
  let total = 0;
  for (const pod of PODS.filter((p) => p.team === team)) total += await accrued(pod.id, from, to);
  return total;
}

/** Ten virtual minutes of the schedule: the Pod poll, the billing read, the evaluation tick. */
async function step(): Promise<void> {
  await h.clock.advanceBy(10 * MIN);
  await h.drive(h.daemon.collect('pods', 'sim'));
  await h.drive(h.daemon.collect('billing', 'sim'));
  const at = h.clock.now();
  await h.drive(h.daemon.evaluate());
  const firing = new Set((await firingAlerts(h.daemon.db)).map((alert) => alert.key));
  steps.push({ at, firing });
}

const cents = (amount: number) => Math.round(amount * 100);

describe('spend per team, against the simulator over HTTP', () => {
  beforeAll(async () => {
    smtp = await startSmtp();
    h = await startDaemonHarness(scenario, (config) => {
      const parsed = parseConfig(
        {
          accounts: [{ name: 'sim', apiKey: 'unused' }],
          owners: { fromEnv: { team: ['TEAM'] }, fromName: ['^(?<team>[a-z]+)-(?<owner>[a-z]+)-'] },
          budgets: [
            // ml's Pods cost $5/h: $10 after 2 h, $20 after 4 h.
            {
              name: 'ml-pods',
              account: 'sim',
              scope: 'pods',
              team: 'ml',
              period: 'day',
              amount: 20,
              thresholds: [50, 100],
              figures: ['actual'],
            },
            // bob's one Pod costs $3/h: $9 after 3 h.
            {
              name: 'bob-pods',
              account: 'sim',
              scope: 'pods',
              owner: 'bob',
              period: 'day',
              amount: 9,
              thresholds: [100],
              figures: ['actual'],
            },
            // A team without a resource counts nothing and never errs.
            {
              name: 'nobody',
              account: 'sim',
              scope: 'pods',
              team: 'nobody',
              period: 'day',
              amount: 1,
              figures: ['actual'],
            },
          ],
          alerts: { digest: { hour: 4 } },
        },
        { env: {}, baseDir: process.cwd() },
      );
      Object.assign(config, { owners: parsed.owners, budgets: parsed.budgets });
      config.alerts.digest = parsed.alerts.digest;
      config.email = {
        ...config.email,
        host: '127.0.0.1',
        port: smtp.port,
        secure: 'none',
        from: 'podwarden@example.com',
        to: ['finops@example.com'],
      };
      config.http.listen = '127.0.0.1:0';
      // A fixed secret, so the page's CSRF values (and its golden file) stay put.
      config.http.linkSecret = 'team-spend-test-link-secret';
      runOnlyCollectors(config, ['billing', 'catalog', 'pods']);
    });
    server = await startMetricsServer({ config: h.config, daemon: h.daemon, clock: h.clock, log: silentLogger() });
    await h.drive(h.daemon.collectOnce());
    // Off the hour, so no step reads billing exactly on a threshold's crossing.
    await h.clock.advanceBy(3 * MIN);
    for (let i = 0; i < 30; i++) await step();
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    await h?.close();
    await smtp?.close();
  });

  it('fires a budget by team (and one by owner) at the step its billing crosses each threshold, not before', async () => {
    const cases: Array<[string, string, number]> = [
      ['budget:sim:ml-pods:spent:50', 'ml', 10],
      ['budget:sim:ml-pods:spent:100', 'ml', 20],
    ];
    for (const [key, team, limit] of cases) {
      const first = steps.findIndex((s) => s.firing.has(key));
      expect(first, `${key} never fired`).toBeGreaterThan(0);
      const at = steps[first]?.at as number;
      const before = steps[first - 1]?.at as number;
      // Billing reads up to the read: the team's spend to then is what the budget saw.
      expect(await teamTruth(team, DAY_START, at)).toBeGreaterThanOrEqual(limit);
      expect(await teamTruth(team, DAY_START, before)).toBeLessThan(limit);
    }
    const bob = steps.findIndex((s) => s.firing.has('budget:sim:bob-pods:spent:100'));
    expect(bob).toBeGreaterThan(0);
    expect(await accrued('train-bob', DAY_START, steps[bob]?.at as number)).toBeGreaterThanOrEqual(9);
    expect(await accrued('train-bob', DAY_START, steps[bob - 1]?.at as number)).toBeLessThan(9);
    // The team's budget alert carries the team, for routes to send it to the team's lead.
    const alert = (await firingAlerts(h.daemon.db)).find((a) => a.key === 'budget:sim:ml-pods:spent:100');
    expect(alert?.labels).toMatchObject({ budget: 'ml-pods', team: 'ml' });
    expect(steps.at(-1)?.firing.has('budget:sim:nobody:spent:100')).toBe(false);
  });

  it("counts a budget as the sum of its team's billing, and a team with no resources as 0", async () => {
    const now = h.clock.now();
    const statuses = await budgetStatus(h.daemon.db, h.config, now);
    const of = (name: string) => statuses.find((s) => s.budget === name);
    expect(of('nobody')?.actual).toBe(0);
    expect(of('nobody')?.drivers).toEqual([]);
    const billedAt = steps.at(-1)?.at as number;
    expect(cents(of('ml-pods')?.actual ?? -1)).toBe(cents(await teamTruth('ml', DAY_START, billedAt)));
    expect(of('ml-pods')?.drivers.map((d) => d.resourceId)).toEqual(['train-bob', 'nb-alice']);
  });

  it("groups the month's billing by team, every Pod in one line, each the sum of its Pods' billing to the cent", async () => {
    const report = (await readTeamSpend(h.daemon.db, h.config, 'sim', h.clock.now())) as TeamSpendReport;
    const billedAt = steps.at(-1)?.at as number;
    expect(report.period.label).toBe('2026-11');
    expect(report.teams?.map((t) => [t.team, t.resources])).toEqual([
      ['ml', 2],
      ['web', 2],
      [NO_TEAM, 1],
    ]);
    for (const team of report.teams ?? []) {
      expect(cents(team.amount), team.team).toBe(cents(await teamTruth(team.team, MONTH_START, billedAt)));
    }
  });

  it('exposes podwarden_team_spend_dollars in /metrics, equal to the status figures', async () => {
    const text = await (await request(`${server.url}/metrics`)).body.text();
    const samples = parseExposition(text);
    expect(find(samples, 'podwarden_team_spend_dollars')).toHaveLength(3);
    const report = (await readTeamSpend(h.daemon.db, h.config, 'sim', h.clock.now())) as TeamSpendReport;
    for (const team of report.teams ?? []) {
      const value = sampleValue(samples, 'podwarden_team_spend_dollars', {
        account: 'sim',
        team: team.team,
        period: 'month',
      });
      expect(cents(value), team.team).toBe(cents(team.amount));
    }
    if (hasBinary('promtool')) expect(promtoolProblems(text)).toEqual([]);
  });

  it('mails the spend by team in the digest', () => {
    const digest = smtp.received.find((mail) => mail.subject.includes('Daily'));
    expect(digest, smtp.received.map((mail) => mail.subject).join(' | ')).toBeDefined();
    const text = textOf(digest?.raw ?? '');
    expect(text).toContain('Spend by team, 2026-11 (UTC, billed so far)');
    expect(text).toMatch(/ml\s+\$\d+\.\d\d \(\d+%\) · 2 resources/);
    expect(text).toMatch(/\(no team\)\s+\$\d+\.\d\d \(\d+%\) · 1 resource\b/);
  });

  it('shows the spend by team on the status page and in /api/status', async () => {
    golden('status-page-teams.html', await (await request(`${server.url}/`)).body.text());
    const status = (await (await request(`${server.url}/api/status`)).body.json()) as {
      teamSpend: Array<{ account: string; teams: Array<{ team: string; amount: number }> }>;
    };
    expect(status.teamSpend.map((r) => [r.account, r.teams.map((t) => t.team)])).toEqual([
      ['sim', ['ml', 'web', NO_TEAM]],
    ]);
  });

  it.skipIf(!hasChromium())(
    'fits the status page with its spend by team on a phone and a desktop',
    async () => {
      let browser: Browser | undefined;
      try {
        browser = await launchBrowser();
        for (const width of [WIDTHS.phone, WIDTHS.desktop]) {
          const shot = await screenshot(browser, { url: `${server.url}/` }, 'status-page-teams', width);
          expect(shot.overflowPx).toBe(0);
        }
        const page = await browser.newPage();
        await page.goto(`${server.url}/`, { waitUntil: 'load' });
        const card = String(
          await page.evaluate(
            '[...document.querySelectorAll("section")].find((s) => s.querySelector("h2")?.innerText.startsWith("Spend by team"))?.innerText ?? ""',
          ),
        );
        expect(card).toMatch(/^Spend by team, 2026-11 \(UTC, billed so far\)/);
        expect(card).toMatch(/ml\s+\$\d+\.\d\d \(\d+%\) · 2 resources/);
        expect(card).toContain('(no team)');
      } finally {
        await browser?.close();
      }
    },
    120_000,
  );
});
