import { describe, expect, it } from 'vitest';
import { type CapPod, capPhase, capPlans, selectCapStops } from '../../src/rules/budget-cap.js';

const HOUR = 3_600_000;

const pod = (podId: string, perHour: number, extra: Partial<CapPod> = {}): CapPod => ({
  podId,
  name: podId,
  perHour,
  savingPerHr: perHour,
  stoppable: true,
  ...extra,
});

const ids = (pods: readonly CapPod[]) => pods.map((p) => p.podId);

describe('selectCapStops', () => {
  // $100 a day, $80 spent, 10 h left: $2/h may keep running.
  const figures = { amount: 100, live: 80, perHour: 11, timeLeftMs: 10 * HOUR };
  const pods = [pod('cheap', 1), pod('big', 8), pod('mid', 2)];

  it('stops the most expensive first until the rate left fits the remaining budget', () => {
    const selection = selectCapStops(figures, pods);
    expect(ids(selection.stop)).toEqual(['big', 'mid']);
    expect(selection.perHourAfter).toBe(1);
    expect(selection.projectedAfter).toBe(90);
    expect(selection.fits).toBe(true);
  });

  it('"fits" is projected spend at the period end at or below the amount: equal fits', () => {
    // 80 + 2 × 10 = 100: stopping `big` alone is enough.
    const selection = selectCapStops({ ...figures, perHour: 10 }, [pod('big', 8), pod('mid', 2)]);
    expect(ids(selection.stop)).toEqual(['big']);
    expect(selection.projectedAfter).toBe(100);
    expect(selectCapStops({ ...figures, perHour: 10.01 }, [pod('big', 8), pod('mid', 2.01)]).stop).toHaveLength(2);
  });

  it('stops nothing when the rate already fits', () => {
    const selection = selectCapStops({ ...figures, perHour: 2 }, [pod('mid', 2)]);
    expect(selection).toEqual({ stop: [], spared: [], perHourAfter: 2, projectedAfter: 100, fits: true });
  });

  it('breaks ties by Pod id, whatever the order given', () => {
    const tied = [pod('b', 4), pod('a', 4), pod('c', 4)];
    expect(ids(selectCapStops({ ...figures, live: 60, perHour: 12 }, tied).stop)).toEqual(['a', 'b']);
    expect(ids(selectCapStops({ ...figures, live: 60, perHour: 12 }, [...tied].reverse()).stop)).toEqual(['a', 'b']);
  });

  it('passes over a Pod it may not stop (locked, Keep running) and stops the next instead', () => {
    const selection = selectCapStops(figures, [pod('big', 8, { stoppable: false }), pod('mid', 2), pod('cheap', 1)]);
    expect(ids(selection.spared)).toEqual(['big']);
    expect(ids(selection.stop)).toEqual(['mid', 'cheap']);
    expect(selection.fits).toBe(false);
    expect(selection.perHourAfter).toBe(8);
  });

  it('once spent, nothing but a rate of 0 fits: every Pod stops, and what it cannot stop keeps the rest', () => {
    // A stopped Pod's volume disk keeps billing: the rate left is never 0.
    const spent = { amount: 100, live: 100.5, perHour: 10.2, timeLeftMs: 6 * HOUR };
    const selection = selectCapStops(spent, [pod('big', 8, { savingPerHr: 7.9 }), pod('mid', 2, { savingPerHr: 2 })]);
    expect(ids(selection.stop)).toEqual(['big', 'mid']);
    expect(selection.fits).toBe(false);
    expect(selection.perHourAfter).toBeCloseTo(0.3, 10);
  });

  it('no time left fits whatever runs', () => {
    expect(selectCapStops({ amount: 100, live: 100, perHour: 9, timeLeftMs: 0 }, [pod('big', 9)]).stop).toEqual([]);
  });
});

describe('capPhase', () => {
  const onSpent = { threshold: 100, warnLeadMs: HOUR / 2 };
  const END = 24 * HOUR;
  const reading = (live: number, currentPerHour: number) => ({ amount: 100, live, currentPerHour, periodEndMs: END });

  it('is quiet while the threshold is further away than the warning lead at the current rate', () => {
    expect(capPhase(reading(90, 10), onSpent, 12 * HOUR)).toEqual({ phase: 'quiet' });
    expect(capPhase(reading(90, 0), onSpent, 12 * HOUR)).toEqual({ phase: 'quiet' });
  });

  it('warns once the threshold is within the lead, with the figures of the moment it will be reached', () => {
    expect(capPhase(reading(95, 10), onSpent, 12 * HOUR)).toEqual({
      phase: 'warn',
      dueAt: 12.5 * HOUR,
      limit: 100,
      figures: { amount: 100, live: 100, perHour: 10, timeLeftMs: 11.5 * HOUR },
    });
  });

  it('is due from the moment the live figure reaches the threshold', () => {
    expect(capPhase(reading(100.2, 10), onSpent, 13 * HOUR)).toEqual({
      phase: 'due',
      dueAt: 13 * HOUR,
      limit: 100,
      figures: { amount: 100, live: 100.2, perHour: 10, timeLeftMs: 11 * HOUR },
    });
  });

  it('a threshold below 100 leaves the rest of the amount for the Pods that keep running', () => {
    const phase = capPhase(reading(79, 10), { threshold: 80, warnLeadMs: HOUR / 2 }, 12 * HOUR);
    expect(phase).toMatchObject({ phase: 'warn', dueAt: 12.1 * HOUR, limit: 80 });
  });

  it('plans no stop for a threshold the period ends before reaching', () => {
    expect(capPhase(reading(99, 10), onSpent, END - HOUR / 20)).toEqual({ phase: 'quiet' });
  });
});

describe('capPlans', () => {
  const DAY_START = Date.UTC(2026, 10, 2);
  const status = (live: number, currentPerHour: number) => ({
    budget: 'gpu-day',
    amount: 100,
    live,
    currentPerHour,
    period: { startMs: DAY_START, endMs: DAY_START + 24 * HOUR, label: 'Mon 2 Nov' },
    timeZone: 'UTC',
  });
  const pods = [pod('big', 8), pod('mid', 2), pod('locked', 4, { stoppable: false })];
  const onSpent = { threshold: 80, warnLeadMs: HOUR / 2 };

  it('plans nothing while quiet', () => {
    expect(capPlans(status(50, 14), onSpent, pods, DAY_START + 10 * HOUR)).toEqual([]);
  });

  it('warns the Pods the stop will take, due when the threshold is reached, the figures in words', () => {
    // $76 at 12:00, $14/h: 80 % ($80) at about 12:17; 11h43m left then, $20 for it: $1.71/h may run.
    const plans = capPlans(status(76, 14), onSpent, pods, DAY_START + 12 * HOUR);
    expect(plans.map((p) => [p.pod.podId, p.spared])).toEqual([
      ['big', false],
      ['mid', false],
      ['locked', true],
    ]);
    const dueAt = DAY_START + 12 * HOUR + Math.round((4 / 14) * HOUR);
    expect(plans.every((p) => p.stopAt === dueAt && p.occurrence === DAY_START)).toBe(true);
    expect(plans[0]?.why).toBe(
      "$76.00 of $100.00 spent (Mon 2 Nov) at $14.00/h, reaches 80% ($80.00) at about 12:17 UTC with 11h 42m of the period left; stopping the most expensive Pods first: $4.00/h left still does not fit ($126.86 by the period's end): nothing more to stop",
    );
  });

  it('once due, keeps the moment the threshold was crossed as the stop time', () => {
    const plans = capPlans(
      status(81, 10),
      { threshold: 80, warnLeadMs: HOUR / 2 },
      [pod('big', 8.5), pod('mid', 1.5)],
      DAY_START + 14 * HOUR,
    );
    expect(plans.map((p) => p.pod.podId)).toEqual(['big']);
    expect(plans[0]?.stopAt).toBe(DAY_START + 14 * HOUR - HOUR / 10);
    expect(plans[0]?.why).toContain('reached 80% ($80.00) at about 13:54 UTC with 10h of the period left');
    expect(plans[0]?.why).toContain("$1.50/h left fits: $96.00 by the period's end");
  });
});
