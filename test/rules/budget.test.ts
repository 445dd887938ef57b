import { describe, expect, it } from 'vitest';
import { toIso } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import type { Database } from '../../src/db/open.js';
import { budgetFindings } from '../../src/rules/budget-findings.js';
import { HOURS_PER_MONTH } from '../../src/rules/prices.js';
import { budgetStatus } from '../../src/tick/budget-status.js';
import { useTempDatabases } from '../db/support.js';
import { billHourly, DAY, HOUR, historyFrom, pod, storePods, storeVolumes, volume } from './fixtures.js';

const databases = useTempDatabases();

const NOV1 = Date.UTC(2026, 10, 1);
/** Ten days into November, half an hour after the last billed hour. */
const NOW = NOV1 + 10 * DAY + HOUR / 2;
const BILLED_TO = NOV1 + 10 * DAY;
const STOPPED_VOLUME_PER_HOUR = (50 * 0.2) / HOURS_PER_MONTH;

/** A configuration whose budgets go through the schema, so they get the defaults users get. */
function config(budgets: unknown[]): Config {
  return parseConfig({ accounts: [{ name: 'sim', apiKey: 'sim-key-0001' }], budgets }, { env: {}, baseDir: '/' });
}

/**
 * November so far: train-a $2/h and train-b $1/h all along; notebook $0.50/h on 1 Nov, stopped
 * since with a 50 GB volume; a network volume at $0.10/h. October's spend must not count.
 */
async function november(database: Database, history = true): Promise<void> {
  await billHourly(database, 'pods', 'train-a', 2, NOV1 - DAY, BILLED_TO);
  await billHourly(database, 'pods', 'train-b', 1, NOV1, BILLED_TO);
  await billHourly(database, 'pods', 'notebook', 0.5, NOV1, NOV1 + DAY);
  await billHourly(database, 'network_volumes', 'vol-1', 0.1, NOV1, BILLED_TO, 'standardAmount');
  await billHourly(database, 'account', '', 2, NOV1 - DAY, NOV1);
  await billHourly(database, 'account', '', 3.6, NOV1, NOV1 + DAY);
  await billHourly(database, 'account', '', 3.1, NOV1 + DAY, BILLED_TO);
  await storePods(
    database,
    [
      pod({ podId: 'train-a', name: 'train-a', costPerHr: 2, startedAt: NOV1 - 30 * DAY }),
      pod({ podId: 'train-b', name: 'train-b', costPerHr: 1, startedAt: NOV1 }),
      pod({ podId: 'notebook', name: 'nb-alice', status: 'EXITED', volumeGb: 50 }),
    ],
    NOW,
  );
  await storeVolumes(database, [volume({ networkVolumeId: 'vol-1', name: 'datasets' })], NOW);
  if (history)
    await historyFrom(database, NOV1 - 30 * DAY, [
      'account',
      'pods',
      'network_volumes',
      'serverless',
      'clusters',
      'endpoints',
    ]);
}

const unbilled = {
  trainA: 2 * 0.5,
  trainB: 1 * 0.5,
  // Billed through 2 Nov 00:00, then 9 days and a half at the stopped-volume rate.
  notebook: STOPPED_VOLUME_PER_HOUR * (9 * 24 + 0.5),
  volume: 0.1 * 0.5,
};

describe('budgetStatus', () => {
  it('reads the whole account from /billing, adds unbilled spend, and never counts a kind twice', async () => {
    const database = databases.open();
    await november(database);
    const [status] = await budgetStatus(database, config([{ name: 'all-in', amount: 1000 }]), NOW);
    expect(status?.period).toMatchObject({ startMs: NOV1, label: '2026-11' });
    expect(status?.actual).toBeCloseTo(24 * 3.6 + 216 * 3.1, 6);
    const live = 756 + unbilled.trainA + unbilled.trainB + unbilled.notebook + unbilled.volume;
    expect(status?.live).toBeCloseTo(live, 6);
    // Burn rate: the last day (from 10 Nov 00:00) billed and unbilled, per hour.
    const windowSpend = 24 * 3.1 + 1 + 0.5 + STOPPED_VOLUME_PER_HOUR * 24.5 + 0.05;
    expect(status?.burnPerHour).toBeCloseTo(windowSpend / 24.5, 6);
    expect(status?.forecast).toBeCloseTo(live + (windowSpend / 24.5) * (20 * 24 - 0.5), 6);
    expect(status?.currentPerHour).toBeCloseTo(3 + STOPPED_VOLUME_PER_HOUR + 0.1, 6);
    expect(status?.runsOutAt).toBe(NOW + Math.round(((1000 - live) / (3.1 + STOPPED_VOLUME_PER_HOUR)) * HOUR));
    expect(status?.drivers.map((d) => [d.kind, d.name, Number(d.amount.toFixed(2))])).toEqual([
      ['pods', 'train-a', 481],
      ['pods', 'train-b', 240.5],
      ['network_volumes', 'datasets', 24.05],
    ]);
  });

  it('reads one kind of spend, or the Pods chosen by id or name pattern', async () => {
    const database = databases.open();
    await november(database);
    const statuses = await budgetStatus(
      database,
      config([
        { name: 'pods', scope: 'pods', amount: 1000 },
        { name: 'training', scope: 'pods', namePattern: 'train-*', amount: 1000 },
        { name: 'notebook', scope: 'pods', ids: ['notebook'], amount: 1000 },
        { name: 'storage', scope: 'network_volumes', amount: 1000 },
      ]),
      NOW,
    );
    expect(statuses.map((s) => [s.budget, Number(s.actual.toFixed(2))])).toEqual([
      ['pods', 732],
      ['training', 720],
      ['notebook', 12],
      ['storage', 24],
    ]);
    expect(statuses[1]?.live).toBeCloseTo(720 + 1.5, 6);
    expect(statuses[1]?.drivers.map((d) => d.resourceId)).toEqual(['train-a', 'train-b']);
    expect(statuses[2]?.live).toBeCloseTo(12 + unbilled.notebook, 6);
  });

  it('gives no forecast until the burn rate rests on enough history', async () => {
    const database = databases.open();
    await november(database, false);
    const [unknown] = await budgetStatus(database, config([{ name: 'b', amount: 1000 }]), NOW);
    expect(unknown?.forecast).toBeNull();
    expect(unknown?.live).toBeGreaterThan(756);
    await historyFrom(database, NOW - 2 * HOUR, ['account']);
    const [short] = await budgetStatus(database, config([{ name: 'b', amount: 1000 }]), NOW);
    expect(short?.forecast).toBeNull();
    const [enough] = await budgetStatus(database, config([{ name: 'b', amount: 1000, forecastMinHistory: '1h' }]), NOW);
    expect(enough?.forecast).not.toBeNull();
  });
});

describe('budgetFindings', () => {
  it('alerts spend (billed and live, one alert) and the forecast at each threshold reached, saying how much, when it runs out and what drives it', async () => {
    const database = databases.open();
    await november(database);
    const [status] = await budgetStatus(
      database,
      config([{ name: 'all-in', amount: 1000, recipients: ['cfo@example.com'] }]),
      NOW,
    );
    if (!status) throw new Error('no status');
    const findings = budgetFindings(status);
    expect(findings.map((f) => f.key)).toEqual([
      'budget:all:all-in:spent:50',
      'budget:all:all-in:forecast:50',
      'budget:all:all-in:forecast:80',
      'budget:all:all-in:forecast:100',
    ]);
    const [spent50] = findings;
    expect(spent50?.summary).toMatch(
      /^Budget all-in: spend \$7\d\d\.\d\d \(billed \$756\.00\) crossed 50% of \$1,000\.00 \(2026-11\)$/,
    );
    expect(spent50?.labels).toEqual({
      rule: 'budget',
      account: 'all',
      budget: 'all-in',
      figure: 'spent',
      threshold: '50',
      scope: 'account',
    });
    expect(spent50?.recipients).toEqual(['cfo@example.com']);
    expect(spent50?.details).toMatchObject({
      kind: 'budget',
      figure: 'spent',
      crossed: ['actual', 'live'],
      threshold: 50,
      amount: 1000,
      actual: 756,
    });
    expect(spent50?.details.currentPerHour).toBeCloseTo(3.11, 2);
    expect(toIso(spent50?.details.runsOutAt as number)).toMatch(/^2026-11-14T/);
    expect(spent50?.details.drivers).toEqual([
      { kind: 'pods', resourceId: expect.any(String), name: 'train-a', amount: 481 },
      { kind: 'pods', resourceId: expect.any(String), name: 'train-b', amount: 240.5 },
      { kind: 'network_volumes', resourceId: 'vol-1', name: 'datasets', amount: 24.05 },
    ]);
    expect(findings[3]?.summary).toMatch(
      /^Budget all-in: forecast \$2,25\d\.\d\d for 2026-11 crosses 100% of \$1,000\.00$/,
    );
    expect(findings[3]?.severity).toBe('critical');
  });

  it('alerts only the figures the budget asks for', async () => {
    const database = databases.open();
    await november(database);
    const [status] = await budgetStatus(
      database,
      config([{ name: 'b', amount: 1000, figures: ['live'], thresholds: [75, 76] }]),
      NOW,
    );
    expect(status && budgetFindings(status).map((f) => f.key)).toEqual([
      'budget:all:b:spent:75',
      'budget:all:b:spent:76',
    ]);
  });

  it('fires a threshold when the first configured figure reaches it, and says which have', async () => {
    const database = databases.open();
    await november(database);
    const [status] = await budgetStatus(database, config([{ name: 'b', amount: 1000, thresholds: [75.8] }]), NOW);
    if (!status) throw new Error('no status');
    // Billed $756.00 has not reached $758 yet; live, with what is not billed yet, has.
    expect(status.actual).toBeLessThan(758);
    expect(status.live).toBeGreaterThanOrEqual(758);
    const [spent] = budgetFindings(status);
    expect(spent?.key).toBe('budget:all:b:spent:75.8');
    expect(spent?.details).toMatchObject({ crossed: ['live'], value: Math.round(status.live * 100) / 100 });
    // Asked for billed spend only, live spend crossing says nothing.
    const [billedOnly] = await budgetStatus(
      database,
      config([{ name: 'b', amount: 1000, thresholds: [75.8], figures: ['actual'] }]),
      NOW,
    );
    expect(billedOnly && budgetFindings(billedOnly)).toEqual([]);
  });
});
