import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import type { Database } from '../../src/db/open.js';
import { createMetrics, type Metrics } from '../../src/metrics/registry.js';
import { tracedDatabase } from '../helpers/traced-database.js';
import { type DaemonHarness, find, parseExposition, sampleValue, startDaemonHarness } from './support.js';

const MINUTE = 60_000;

/** Budgets and an idle rule, so every area that reads the database has something to read. */
function tune(config: Config): void {
  const parsed = parseConfig(
    {
      accounts: [{ name: 'sim', apiKey: 'unused' }],
      budgets: [{ name: 'daily', period: 'day', amount: 150 }],
      idle: { rules: [{ name: 'notebooks', window: '10m', heldIdle: { stop: true }, dryRun: true }] },
      capacity: { watch: [{ name: 'H200 SXM' }] },
    },
    { env: {}, baseDir: process.cwd() },
  );
  config.budgets = parsed.budgets;
  config.idle = parsed.idle;
  config.capacity = parsed.capacity;
  config.collectors.billing.backfillMs = 24 * 3_600_000;
}

let h: DaemonHarness;
let traced: Database;
let metrics: Metrics;
const statements: string[] = [];

beforeAll(async () => {
  h = await startDaemonHarness('demo.yaml', tune);
  traced = tracedDatabase(h.config.database.path, statements);
  metrics = createMetrics({
    source: {
      db: traced,
      events: h.daemon.events,
      enabledCollectors: () => h.daemon.enabledCollectors(),
      rateLimits: () => h.daemon.rateLimits(),
      databaseWriteProblem: () => h.daemon.databaseWriteProblem(),
    },
    config: h.config,
    clock: h.clock,
  });
});

afterAll(async () => {
  metrics?.close();
  traced?.close();
  await h?.close();
});

async function scrape() {
  return parseExposition(await metrics.registry.metrics());
}

describe('a scrape', () => {
  it('runs no SQL: the values were read from the database when it changed, and are served from memory', async () => {
    await h.drive(h.daemon.collectOnce());
    await h.drive(h.daemon.evaluate());
    // The collector runs and the tick did read the database for the metrics...
    expect(statements.some((sql) => /\bFROM pods\b/i.test(sql))).toBe(true);
    expect(statements.some((sql) => /\bbilling/i.test(sql))).toBe(true);
    const afterTick = statements.length;
    expect(afterTick).toBeGreaterThan(0);

    // ...and scrapes, however many and however late, read none of it again.
    const first = await scrape();
    await h.clock.advanceBy(MINUTE);
    const second = await scrape();
    await scrape();
    expect(statements.slice(afterTick)).toEqual([]);
    expect(sampleValue(first, 'podwarden_pod_cost_dollars_per_hour', { pod_id: 'train-8xh100' })).toBeGreaterThan(0);
    expect(find(first, 'podwarden_budget_spend_dollars', { budget: 'daily', figure: 'actual' })).toHaveLength(1);
    for (const name of ['podwarden_pod_cost_dollars_per_hour', 'podwarden_budget_spend_dollars']) {
      expect(find(second, name), name).toEqual(find(first, name));
    }
  });

  it('serves what the next evaluation tick computed once it has run', async () => {
    const before = statements.length;
    const budgetBefore = sampleValue(await scrape(), 'podwarden_budget_period_end_timestamp_seconds', {
      budget: 'daily',
    });
    // A day later the daily budget is in its next period, but only the tick may say so.
    await h.clock.advanceBy(24 * 60 * MINUTE);
    expect(sampleValue(await scrape(), 'podwarden_budget_period_end_timestamp_seconds', { budget: 'daily' })).toBe(
      budgetBefore,
    );
    expect(statements.length).toBe(before);
    await h.drive(h.daemon.evaluate());
    expect(statements.length).toBeGreaterThan(before);
    expect(sampleValue(await scrape(), 'podwarden_budget_period_end_timestamp_seconds', { budget: 'daily' })).toBe(
      budgetBefore + 86_400,
    );
  });
  it("shows the budget rule's own figures on a tick, without reading billing a second time", async () => {
    const handed: Array<{ at: number; live: number }> = [];
    const off = h.daemon.events.on('budget:evaluated', ({ at, statuses }) =>
      handed.push({ at, live: statuses[0]?.live ?? Number.NaN }),
    );
    // Within the same UTC day, so the spend metrics have no new day to read either.
    await h.clock.advanceBy(MINUTE);
    const before = statements.length;
    await h.drive(h.daemon.evaluate());
    off();
    expect(handed).toEqual([{ at: h.clock.now(), live: expect.any(Number) }]);
    const tick = statements.slice(before);
    expect(tick.length).toBeGreaterThan(0);
    expect(tick.filter((sql) => /\bbilling_/i.test(sql))).toEqual([]);
    const live = sampleValue(await scrape(), 'podwarden_budget_spend_dollars', { budget: 'daily', figure: 'live' });
    expect(live).toBe(handed[0]?.live);
  });
});
