import { describe, expect, it } from 'vitest';
import { billingCollector } from '../../src/collectors/billing.js';
import { getBackfill, upsertBillingRecords } from '../../src/db/billing.js';
import { ACCOUNT } from '../helpers/harness.js';
import {
  billingFingerprint,
  billingKinds,
  calmSmallTeam,
  DAY,
  expectBillingMatchesTruth,
  HOUR,
  runAt,
  storedRecords,
  useTunedHarness,
} from './billing-support.js';

const harness = useTunedHarness();
const MINUTE = 60_000;

describe('billing collector', () => {
  it('after six hours of runs (faults included) stores, per resource and bucket, exactly the money the simulator accrued', async () => {
    const h = await harness('small-team.yaml');
    const T0 = h.scenario.startMs;
    const failed: number[] = [];
    for (let at = 0; at <= 7 * HOUR; at += 15 * MINUTE) {
      if ((await runAt(h, billingCollector, at)).outcome !== 'ok') failed.push(at);
    }

    // The 502 burst at 3h30m and the malformed billing bodies at 6h fail those runs; later runs mend.
    expect(failed).toEqual([3.5 * HOUR, 6 * HOUR]);
    const target = (await getBackfill(h.db, { account: ACCOUNT, kind: 'pods', bucketSize: 'hour' }))?.targetStartTime;
    expect(target).toBe(T0 - 2 * DAY - 30 * DAY);
    await expectBillingMatchesTruth(h, target as number, T0 + 7 * HOUR);
    // Something real was compared: every kind the scenario bills has money stored.
    for (const kind of billingKinds.filter((kind) => kind !== 'endpoints')) {
      expect((await storedRecords(h, kind, T0, T0 + 7 * HOUR)).length, kind).toBeGreaterThan(0);
    }
  });

  it('a second run over the same window changes nothing', async () => {
    const h = await harness(calmSmallTeam());
    await runAt(h, billingCollector, 2 * HOUR + 20 * MINUTE);
    const before = billingFingerprint(h);
    const again = await runAt(h, billingCollector, 2 * HOUR + 20 * MINUTE);

    expect(again).toMatchObject({ outcome: 'ok', rows: 0 });
    expect(billingFingerprint(h)).toEqual(before);
    expect(before.reduce((sum, kind) => sum + kind.rows, 0)).toBeGreaterThan(1000);
  });

  it('replaces a bucket read while in progress with its later, complete amount', async () => {
    const h = await harness(calmSmallTeam());
    const T0 = h.scenario.startMs;
    const hourOne = async () =>
      (await storedRecords(h, 'pods', T0 + HOUR, T0 + 2 * HOUR)).find((r) => r.resourceId === 'infer-embed');
    const truth = (toMs: number) =>
      h.sim.world.accrued(h.clock.now(), { kind: 'pods', id: 'infer-embed', fromMs: T0 + HOUR, toMs }).totalAmount;

    await runAt(h, billingCollector, HOUR + 30 * MINUTE);
    const partial = (await hourOne())?.totalAmount;
    expect(partial).toBe(truth(T0 + HOUR + 30 * MINUTE));
    await runAt(h, billingCollector, 2 * HOUR + 30 * MINUTE);

    // infer-embed runs all day: the second read holds the whole hour, twice the half hour.
    expect((await hourOne())?.totalAmount).toBe(truth(T0 + 2 * HOUR));
    expect((await hourOne())?.totalAmount).toBeCloseTo(2 * (partial as number), 6);
    expect((await hourOne())?.totalAmount).toBeGreaterThan(0.69);
    await expectBillingMatchesTruth(h, T0 - 2 * DAY, T0 + 2 * HOUR);
  });

  it('a corrected amount replaces the stored one, and buckets the API no longer reports are deleted, inside the re-read window only', async () => {
    const h = await harness(calmSmallTeam());
    const T0 = h.scenario.startMs;
    await runAt(h, billingCollector, 0);
    const before = billingFingerprint(h);
    const bucket = (startTime: number, resourceId: string, totalAmount: number) => ({
      kind: 'pods' as const,
      resourceId,
      bucketSize: 'hour' as const,
      startTime,
      endTime: startTime + HOUR,
      totalAmount,
      amounts: { totalAmount, gpuAmount: totalAmount, cpuAmount: 0, diskAmount: 0 },
    });
    const recent = T0 - 5 * HOUR; // inside the 48 h re-read window
    const old = T0 - 5 * DAY; // outside it: final, never re-read
    await upsertBillingRecords(
      h.db,
      ACCOUNT,
      [bucket(recent, 'infer-embed', 99), bucket(recent, 'pod-ghost', 7), bucket(old, 'pod-ghost', 3)],
      T0,
    );

    const report = await runAt(h, billingCollector, 0);

    expect(report).toMatchObject({ outcome: 'ok', rows: 2 }); // one correction, one deletion
    const stored = async (startTime: number) => await storedRecords(h, 'pods', startTime, startTime + HOUR);
    const truth = h.sim.world.accrued(T0, { kind: 'pods', id: 'infer-embed', fromMs: recent, toMs: recent + HOUR });
    expect((await stored(recent)).find((r) => r.resourceId === 'infer-embed')?.amounts).toEqual(truth);
    expect((await stored(recent)).some((r) => r.resourceId === 'pod-ghost')).toBe(false);
    expect((await stored(old)).filter((r) => r.resourceId === 'pod-ghost').map((r) => r.totalAmount)).toEqual([3]);
    const after = billingFingerprint(h).map((kind) =>
      kind.kind === 'pods' ? { ...kind, rows: kind.rows - 1, total: kind.total - 3 } : kind,
    );
    expect(after.map((kind) => ({ ...kind, total: Math.round(kind.total * 1e6) }))).toEqual(
      before.map((kind) => ({ ...kind, total: Math.round(kind.total * 1e6) })),
    );
  });

  it('after days without a successful run, the next run reads everything it missed, not only the trailing window', async () => {
    const h = await harness('small-team.yaml');
    const T0 = h.scenario.startMs;
    expect((await runAt(h, billingCollector, 0)).outcome).toBe('ok');
    const report = await runAt(h, billingCollector, 5 * DAY);

    expect(report.outcome).toBe('ok');
    await expectBillingMatchesTruth(h, T0 - 32 * DAY, T0 + 5 * DAY);
    // Day 1 lies outside the 48 h trailing window of day 5: only the catch-up read it.
    expect((await storedRecords(h, 'network_volumes', T0 + DAY, T0 + 2 * DAY)).length).toBe(48);

    // Once a run has succeeded, the next reaches back only its trailing window before that run,
    // 48 h + 1 h, and asks for it in one request per route.
    const seq = h.sim.requestLog.lastSeq();
    expect((await runAt(h, billingCollector, 5 * DAY + HOUR)).outcome).toBe('ok');
    const reRead = h.sim.requestLog.entries(seq);
    expect(reRead.map((entry) => entry.status)).toEqual(billingKinds.map(() => 200));
    expect(new Set(reRead.map((entry) => entry.path)).size).toBe(billingKinds.length);
    for (const entry of reRead) {
      const query = new URLSearchParams(entry.query);
      const start = Date.parse(query.get('startTime') ?? '');
      const end = Date.parse(query.get('endTime') ?? '');
      expect((end - start) / HOUR).toBe(49);
    }
    await expectBillingMatchesTruth(h, T0 - 32 * DAY, T0 + 5 * DAY + HOUR);
  });
});
