import { afterEach, describe, expect, it } from 'vitest';
import { savingOf } from '../../src/alerts/digest.js';
import { recordReceipt } from '../../src/db/receipts.js';
import type { WasteDetails } from '../../src/rules/finding-details.js';
import { type AlertBench, alertBench, finding, HOUR, MINUTE, START } from './support.js';

/**
 * The daily digest on the virtual clock, through the alerts evaluator's tick: at 09:00 Berlin
 * (08:00 UTC in November), once a day, across a restart; what is open with its cost, and what the
 * stops saved from their receipts; nothing when nothing is open and nothing was saved.
 */
const DIGEST = { hour: 9, timeZone: 'Europe/Berlin' };

const waste: WasteDetails = {
  kind: 'waste',
  check: 'endpoint-idle',
  resourceId: 'ep-sdxl',
  resourceName: 'sdxl-turbo',
  since: START - 6 * HOUR,
  sinceIsLowerBound: false,
  evaluatedAt: START,
  costPerHour: 1.1,
  costPerDay: 26.4,
  paidSoFar: 6.6,
  sizeGb: null,
  workersUp: 1,
  workersMin: 1,
  hint: 'set workersMin to 0',
};
const wasteFinding = finding('waste:sim:endpoint-idle:ep-sdxl', {
  rule: 'waste',
  labels: { rule: 'waste', account: 'sim', check: 'endpoint-idle', endpoint_id: 'ep-sdxl' },
  details: waste,
});

async function stopReceipt(bench: AlertBench, decidedAt: number, dryRun: boolean): Promise<void> {
  await recordReceipt(bench.db, {
    idempotencyKey: `stop:sim:n8bob:${decidedAt}`,
    account: 'sim',
    podId: 'n8bob',
    podName: 'nb-bob',
    rule: 'gpu-idle',
    kind: 'idle',
    episodeStartedAt: decidedAt - HOUR,
    decidedAt,
    decision: dryRun ? 'dry_run' : 'stopped',
    reason: null,
    dryRun,
    plannedStopAt: decidedAt,
    costPerHr: 1.7,
    savingPerHr: 1.64,
    evidence: {
      windowFrom: decidedAt - HOUR,
      windowTo: decidedAt,
      thresholds: {
        utilThreshold: 5,
        coverage: 0.8,
        minSamples: 10,
        windowMs: HOUR,
        graceMs: 0,
        memoryThreshold: 10,
      },
      coverage: 1,
      idleSamples: 60,
      held: false,
      samples: [],
    },
    guards: [],
  });
}

const digests = async (bench: AlertBench) => (await bench.outbox()).filter((message) => message.reason === 'digest');

let bench: AlertBench | undefined;
afterEach(() => bench?.close());

describe('the daily digest', () => {
  it('goes out at the local hour once a day, even across a restart, with open costs and savings', async () => {
    const b = alertBench((config) => {
      config.alerts.digest = DIGEST;
      config.email.to = ['ml-team@example.com'];
    });
    bench = b;
    await stopReceipt(b, START + 6 * HOUR, false);
    await b.run(8 * HOUR - MINUTE, () => [wasteFinding]);
    expect(await digests(b)).toEqual([]);
    await b.run(30 * MINUTE, () => [wasteFinding]);
    const [first, ...more] = await digests(b);
    expect(more).toEqual([]);
    expect(first?.createdAt).toBe(START + 8 * HOUR);
    expect(first?.to).toEqual(['ml-team@example.com']);
    expect(first?.subject).toBe('[sim] Daily: 1 open, $26/day at stake, saved $3.28');
    expect(first?.text).toMatch(/Endpoint sdxl-turbo idle workers\s+\$26\.40\/day for 14h/);
    expect(first?.text).toMatch(
      /nb-bob\s+stopped Mon 2 Nov, 07:00 CET; 2h at \$1\.64\/h, still stopped: saved \$3\.28/,
    );
    expect(first?.alertKeys).toEqual(['waste:sim:endpoint-idle:ep-sdxl']);

    b.reopen();
    await b.run(23 * HOUR + 30 * MINUTE, () => [wasteFinding]);
    expect(await digests(b)).toHaveLength(1);
    await b.run(HOUR, () => [wasteFinding]);
    const second = (await digests(b))[1];
    expect(second?.createdAt).toBe(START + 32 * HOUR);
    // The Pod is still stopped: the second digest counts the day since the first, not the 2h again.
    expect(second?.text).toContain('Since the last digest (Mon 2 Nov, 09:00 CET)');
    expect(second?.text).toMatch(
      /nb-bob\s+stopped Mon 2 Nov, 07:00 CET; 1d at \$1\.64\/h, still stopped: saved \$39\.36/,
    );
    expect(await digests(b)).toHaveLength(2);
  }, 120_000);

  it('says nothing when nothing is open and nothing was saved', async () => {
    const b = alertBench((config) => {
      config.alerts.digest = DIGEST;
    });
    bench = b;
    await b.run(10 * HOUR, () => []);
    expect(await b.outbox()).toEqual([]);
  }, 120_000);

  it('goes out with nothing open when a stop saved something, to the default recipients', async () => {
    const b = alertBench((config) => {
      config.alerts.digest = DIGEST;
      config.email.to = ['ops@example.com'];
    });
    bench = b;
    await stopReceipt(b, START + 7 * HOUR, true);
    await b.run(9 * HOUR, () => []);
    const [only, ...more] = await digests(b);
    expect(more).toEqual([]);
    expect(only?.to).toEqual(['ops@example.com']);
    expect(only?.subject).toBe('[sim] Daily: 0 open, would have saved $1.64');
    expect(only?.text).toContain('Nothing is open in account sim.');
    expect(only?.text).toContain("In the last 24 hours, podwarden's dry-run stops would have saved $1.64.");
  }, 120_000);

  it('is off unless configured', async () => {
    const b = alertBench();
    bench = b;
    await stopReceipt(b, START + HOUR, false);
    await b.run(10 * HOUR, () => [wasteFinding]);
    expect((await b.outbox()).length).toBeGreaterThan(0);
    expect(await digests(b)).toEqual([]);
  }, 120_000);
});

describe('what a stop saved', () => {
  const stop = {
    podId: 'p',
    podName: 'p',
    decidedAt: START,
    savingPerHr: 2,
    episodeEndedAt: null,
    podStatus: 'EXITED',
    podStartedAt: START - HOUR,
    podGoneAt: null,
  };
  const now = START + 3 * HOUR;
  const cases: [string, Parameters<typeof savingOf>[0], number, boolean][] = [
    ['still stopped: until now', { ...stop, dryRun: false }, 6, true],
    ['started again after 1h', { ...stop, dryRun: false, podStatus: 'RUNNING', podStartedAt: START + HOUR }, 2, false],
    [
      'running, no start seen after the stop: nothing claimed',
      { ...stop, dryRun: false, podStatus: 'RUNNING' },
      0,
      false,
    ],
    ['gone after 2h', { ...stop, dryRun: false, podGoneAt: START + 2 * HOUR }, 4, false],
    ['dry run, still idle: until now', { ...stop, dryRun: true, podStatus: 'RUNNING' }, 6, true],
    ['dry run, busy again after 30m', { ...stop, dryRun: true, episodeEndedAt: START + 30 * MINUTE }, 1, false],
  ];
  it('counts only the hours since the last digest', () => {
    const saving = savingOf({ ...stop, dryRun: false }, now, START + 2 * HOUR);
    expect(saving.notBilledMs).toBe(HOUR);
    expect(saving.saved).toBeCloseTo(2, 6);
  });
  for (const [name, input, saved, ongoing] of cases) {
    it(name, () => {
      const saving = savingOf(input, now, START - HOUR);
      expect(saving.saved).toBeCloseTo(saved, 6);
      expect(saving.ongoing).toBe(ongoing);
    });
  }
});
