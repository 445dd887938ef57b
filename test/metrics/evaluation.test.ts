import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toIso } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { recordRun } from '../../src/db/collector-runs.js';
import { snoozePod } from '../../src/db/idle-state.js';
import { openDatabase } from '../../src/db/open.js';
import { createMetrics, type Metrics } from '../../src/metrics/registry.js';
import { buildStatus } from '../../src/metrics/status.js';
import { budgetStatus } from '../../src/tick/budget-status.js';
import {
  type DaemonHarness,
  find,
  hasBinary,
  parseExposition,
  promtoolProblems,
  type Sample,
  sampleValue,
  startDaemonHarness,
} from './support.js';

const MINUTE = 60_000;
const NOTEBOOK = { account: 'sim', pod_id: 'nb-demo' };

/** The sections these metrics read, as a user writes them. */
function tune(config: Config): void {
  const parsed = parseConfig(
    {
      accounts: [{ name: 'sim', apiKey: 'unused' }],
      budgets: [
        { name: 'daily', period: 'day', amount: 150 },
        { name: 'monthly', amount: 5_000, forecastMinHistory: '1h' },
      ],
      idle: {
        rules: [
          {
            name: 'notebooks',
            window: '10m',
            grace: '5m',
            warnLead: '5m',
            heldIdle: { stop: true },
            dryRun: true,
            // No SMTP host here: the warning is never delivered, and these tests are about metrics.
            stopWithoutDeliveredWarning: true,
          },
        ],
      },
      capacity: { watch: [{ name: 'H200 SXM' }] },
    },
    { env: {}, baseDir: process.cwd() },
  );
  config.budgets = parsed.budgets;
  config.idle = parsed.idle;
  config.capacity = parsed.capacity;
  config.collectors.billing.backfillMs = 2 * 24 * 3_600_000;
}

let h: DaemonHarness;
let metrics: Metrics;
/** Scrapes taken along the way, by what had happened. */
const scrapes = new Map<string, Sample[]>();

async function scrape(): Promise<Sample[]> {
  return parseExposition(await metrics.registry.metrics());
}

/** One virtual minute as the schedule runs it: the Pod poll on the minute, the evaluation at :30. */
async function minute(): Promise<void> {
  await h.clock.advanceTo(Math.floor(h.clock.now() / MINUTE) * MINUTE + MINUTE);
  await h.drive(h.daemon.collect('pods', 'sim'));
  await h.clock.advanceBy(30_000);
  await h.drive(h.daemon.evaluate());
}

beforeAll(async () => {
  h = await startDaemonHarness('demo.yaml', tune);
  metrics = createMetrics({ source: h.daemon, config: h.config, clock: h.clock });
  scrapes.set('start', await scrape());
  await h.drive(h.daemon.collectOnce());
  await h.drive(h.daemon.evaluate());
  scrapes.set('collected', await scrape());
  // The notebook's GPU goes idle 2 minutes in; a 10-minute window, then 5 minutes of warning.
  let warned = false;
  for (let i = 0; i < 25; i++) {
    await minute();
    const samples = await scrape();
    if (!warned && find(samples, 'podwarden_pod_idle', { ...NOTEBOOK, phase: 'warned' }).length > 0) {
      warned = true;
      scrapes.set('warned', samples);
    }
    if (find(samples, 'podwarden_stops_total', { result: 'dry_run' })[0]?.value === 1) {
      scrapes.set('stopped', samples);
      break;
    }
  }
});

afterAll(async () => {
  metrics?.close();
  await h?.close();
});

function at(moment: string): Sample[] {
  const samples = scrapes.get(moment);
  if (!samples) throw new Error(`no scrape "${moment}": the scenario did not get there`);
  return samples;
}

describe('metrics of budgets, idle Pods, stops and alerts', () => {
  it("shows each budget's figures as the budget rule computes them, and its actual as billed today", async () => {
    const samples = await scrape();
    const now = h.clock.now();
    const [daily, monthly] = await budgetStatus(h.daemon.db, h.config, now);
    if (!daily || !monthly) throw new Error('two budgets expected');
    expect(sampleValue(samples, 'podwarden_budget_amount_dollars', { budget: 'daily', account: 'all' })).toBe(150);
    // Every budget series says which account it concerns: `all` for these two.
    const budgetSeries = samples.filter((sample) => sample.name.startsWith('podwarden_budget_'));
    expect(budgetSeries.length).toBeGreaterThan(10);
    for (const sample of budgetSeries) expect(sample.labels.account, sample.name).toBe('all');
    expect(sampleValue(samples, 'podwarden_budget_info', { budget: 'monthly', account: 'all', period: 'month' })).toBe(
      1,
    );
    for (const figure of ['actual', 'live', 'forecast'] as const) {
      const expected = daily[figure];
      if (expected === null) throw new Error(`daily ${figure} is null`);
      expect(sampleValue(samples, 'podwarden_budget_spend_dollars', { budget: 'daily', figure })).toBeCloseTo(
        expected,
        9,
      );
      expect(sampleValue(samples, 'podwarden_budget_used_ratio', { budget: 'daily', figure })).toBeCloseTo(
        expected / 150,
        9,
      );
    }
    // The budget's actual (its own UTC day, every kind) is the day's account spend as billed.
    expect(sampleValue(samples, 'podwarden_budget_spend_dollars', { budget: 'daily', figure: 'actual' })).toBeCloseTo(
      sampleValue(samples, 'podwarden_spend_dollars', { kind: 'account', period: 'day' }),
      9,
    );
    expect(daily.live).toBeGreaterThan(daily.actual);
    expect(sampleValue(samples, 'podwarden_budget_runout_timestamp_seconds', { budget: 'daily' })).toBe(
      (daily.runsOutAt ?? Number.NaN) / 1000,
    );
    expect(sampleValue(samples, 'podwarden_budget_period_end_timestamp_seconds', { budget: 'daily' })).toBe(
      daily.period.endMs / 1000,
    );
    expect(sampleValue(samples, 'podwarden_budget_burn_rate_dollars_per_hour', { budget: 'monthly' })).toBeCloseTo(
      monthly.burnPerHour ?? Number.NaN,
      9,
    );
  });

  it('gives the burn rate of the running Pods from their cost and volume disk', () => {
    const samples = at('collected');
    // Cost of the four running Pods, their volumes at $0.10/GB-month, the stopped one's at $0.20.
    const expected = 23.92 + 6.56 + 5.98 + 0.69 + ((500 + 200 + 50) * 0.1 + 200 * 0.2) / 730;
    expect(sampleValue(samples, 'podwarden_burn_rate_dollars_per_hour', { kind: 'pods' })).toBeCloseTo(expected, 9);
    expect(
      find(samples, 'podwarden_burn_rate_dollars_per_hour')
        .map((s) => s.labels.kind)
        .sort(),
    ).toEqual(['clusters', 'endpoints', 'network_volumes', 'pods', 'serverless']);
    expect(find(at('start'), 'podwarden_burn_rate_dollars_per_hour')).toEqual([]);
  });

  it('lists the watched GPU types', () => {
    expect(find(at('start'), 'podwarden_capacity_watched')).toEqual([]);
    const watched = find(at('collected'), 'podwarden_capacity_watched');
    expect(watched.map((s) => s.labels)).toEqual([{ account: 'sim', gpu_type_id: 'NVIDIA H200', product: 'POD' }]);
  });

  it('counts down to the planned stop of an idle Pod, then counts the dry-run stop', () => {
    expect(find(at('collected'), 'podwarden_pod_idle')).toEqual([]);
    const warned = at('warned');
    expect(find(warned, 'podwarden_pod_idle').map((s) => s.labels.pod_id)).toEqual(['nb-demo']);
    expect(sampleValue(warned, 'podwarden_pod_idle', { ...NOTEBOOK, rule: 'notebooks' })).toBe(1);
    expect(sampleValue(warned, 'podwarden_pod_idle_seconds', NOTEBOOK)).toBeGreaterThanOrEqual(10 * 60);
    const countdown = sampleValue(warned, 'podwarden_pod_planned_stop_seconds', { ...NOTEBOOK, dry_run: 'true' });
    expect(countdown).toBeGreaterThan(0);
    expect(countdown).toBeLessThanOrEqual(5 * 60);
    // 0.69 an hour, less its 50 GB volume still billed at $0.20/GB-month once stopped.
    expect(sampleValue(warned, 'podwarden_pod_idle_saving_dollars_per_hour', NOTEBOOK)).toBeCloseTo(
      0.69 - (50 * 0.2) / 730,
      9,
    );

    const stopped = at('stopped');
    expect(sampleValue(stopped, 'podwarden_stops_total', { result: 'dry_run' })).toBe(1);
    for (const result of ['stopped', 'blocked', 'failed']) {
      expect(sampleValue(stopped, 'podwarden_stops_total', { result })).toBe(0);
    }
    expect(sampleValue(stopped, 'podwarden_pod_idle', { ...NOTEBOOK, phase: 'decided' })).toBe(1);
  });

  it('counts firing alerts per account, rule and severity, and email waiting in the outbox without an SMTP host', () => {
    const start = at('start');
    // 6 rules x 3 severities, for the account and for `all` (the budgets here cover every account).
    expect(find(start, 'podwarden_alerts_firing')).toHaveLength(36);
    expect(new Set(find(start, 'podwarden_alerts_firing').map((sample) => sample.labels.account))).toEqual(
      new Set(['sim', 'all']),
    );
    for (const sample of find(start, 'podwarden_alerts_firing')) expect(sample.value).toBe(0);
    for (const account of ['sim', 'all']) {
      expect(sampleValue(start, 'podwarden_emails_queued', { account })).toBe(0);
      expect(sampleValue(start, 'podwarden_emails_oldest_queued_timestamp_seconds', { account })).toBe(0);
      expect(sampleValue(start, 'podwarden_emails_total', { account, outcome: 'sent' })).toBe(0);
    }

    const stopped = at('stopped');
    const sum = (account: string) =>
      find(stopped, 'podwarden_alerts_firing', { rule: 'budget', account }).reduce((n, s) => n + s.value, 0);
    // A budget over every account fires under account="all", never under one account.
    expect(sum('all')).toBeGreaterThan(0);
    expect(sum('sim')).toBe(0);
    expect(sampleValue(stopped, 'podwarden_emails_queued', { account: 'all' })).toBeGreaterThan(0);
    expect(sampleValue(stopped, 'podwarden_emails_total', { account: 'all', outcome: 'sent' })).toBe(0);
    expect(
      sampleValue(stopped, 'podwarden_emails_oldest_queued_timestamp_seconds', { account: 'all' }),
    ).toBeGreaterThanOrEqual(h.scenario.startMs / 1000);
  });

  it('puts budgets, idle candidates, receipts and firing alerts in /api/status', async () => {
    const status = await buildStatus(h.daemon, h.config, h.clock.now());
    expect(status.budgets.map((b) => b.budget)).toEqual(['daily', 'monthly']);
    expect(status.budgets[0]).toMatchObject({ account: 'all', scope: 'account', amount: 150 });
    expect(status.budgets[0]?.drivers[0]).toMatchObject({ resourceId: 'train-8xh100', kind: 'pods' });
    expect(status.idle).toEqual([
      expect.objectContaining({
        podId: 'nb-demo',
        podName: 'demo-notebook',
        rule: 'notebooks',
        phase: 'decided',
        dryRun: true,
      }),
    ]);
    const decisions = status.receipts.filter((r) => r.podId === 'nb-demo').map((r) => r.decision);
    expect(decisions).toEqual(['dry_run', 'warned', 'notified']);
    expect(status.receipts[0]).not.toHaveProperty('evidence');
    expect(status.receipts[0]?.decidedAt).toMatch(/^2026-11-02T09:\d\d:\d\dZ$/);
    expect(status.alerts.some((alert) => alert.rule === 'budget')).toBe(true);
  });

  it('lists the snoozes that hold in /api/status, with where they were made and by whom', async () => {
    const now = h.clock.now();
    snoozePod(h.daemon.db, {
      account: 'sim',
      podId: 'nb-demo',
      until: now + 2 * 3_600_000,
      createdAt: now,
      source: 'email link',
      createdBy: 'ana@example.com',
    });
    expect((await buildStatus(h.daemon, h.config, now)).held).toEqual([
      {
        kind: 'snooze',
        account: 'sim',
        subject: 'nb-demo',
        name: 'demo-notebook',
        until: toIso(now + 2 * 3_600_000),
        createdAt: toIso(now),
        source: 'email link',
        createdBy: 'ana@example.com',
      },
    ]);
  });

  it.skipIf(!hasBinary('promtool'))('passes promtool check metrics with every area populated', async () => {
    const text = await metrics.registry.metrics();
    for (const name of [
      'podwarden_budget_used_ratio{',
      'podwarden_pod_planned_stop_seconds{',
      'podwarden_stops_total{',
    ]) {
      expect(text).toContain(name);
    }
    expect(promtoolProblems(text)).toEqual([]);
  });

  it('reports stops frozen once the Pod data is older than two poll intervals', async () => {
    expect(sampleValue(await scrape(), 'podwarden_actions_frozen', { account: 'sim' })).toBe(0);
    await h.clock.advanceBy(3 * MINUTE);
    expect(sampleValue(await scrape(), 'podwarden_actions_frozen', { account: 'sim' })).toBe(1);
  });

  it('serves the Pod data as the database had it at the last tick: a success recorded by another process unfreezes stops', async () => {
    await h.clock.advanceBy(3 * MINUTE);
    expect(sampleValue(await scrape(), 'podwarden_actions_frozen', { account: 'sim' })).toBe(1);
    // Another process on the same file (`podwarden collect`, another replica) polled the Pods.
    const other = openDatabase(h.config.database.path);
    const now = h.clock.now();
    try {
      await recordRun(other, {
        account: 'sim',
        collector: 'pods',
        startedAt: now - 1_000,
        endedAt: now,
        outcome: 'ok',
        rows: 1,
      });
    } finally {
      other.close();
    }
    // Served as of the last tick, which reads it from the database.
    expect(sampleValue(await scrape(), 'podwarden_actions_frozen', { account: 'sim' })).toBe(1);
    await h.drive(h.daemon.evaluate());
    expect(sampleValue(await scrape(), 'podwarden_actions_frozen', { account: 'sim' })).toBe(0);
  });
});
