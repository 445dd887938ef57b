import { afterEach, describe, expect, it } from 'vitest';
import { type AlertBench, alertBench, finding, HOUR, MINUTE, START } from './support.js';

let bench: AlertBench;
afterEach(() => bench.close());

/**
 * The alert state machine, one tick a minute: `F` the rule reports the condition, `-` the rule
 * judged it absent, `?` the rule could not judge (stale data, a failed evaluator, no poll yet).
 */
const key = 'waste:sim:volume-unmounted:vol-1';
const waste = finding(key);

async function play(ticks: string): Promise<Array<[string, number]>> {
  for (const tick of ticks) {
    const unjudged = tick === '?' ? [{ labels: { rule: 'waste' as const, account: 'sim' }, reason: 'stale' }] : [];
    await bench.tick(tick === 'F' ? [waste] : [], unjudged);
    await bench.clock.advanceBy(MINUTE);
  }
  return bench.states.map((s) => [s.state, (s.at - START) / MINUTE]);
}

describe('alert state with unknown ticks and resolveAfter (3m)', () => {
  const cases: Array<[string, string, Array<[string, number]>]> = [
    ['stays firing while absent for less than resolveAfter', 'FF---', [['firing', 0]]],
    [
      'resolves once judged absent for resolveAfter',
      'FF----',
      [
        ['firing', 0],
        ['resolved', 5],
      ],
    ],
    ['never resolves on ticks that could not judge', 'FF????????', [['firing', 0]]],
    [
      'unknown ticks neither count nor reset the absence',
      'FF-?-?-?',
      [
        ['firing', 0],
        ['resolved', 6],
      ],
    ],
    ['the condition seen again resets the absence', 'FF--F---', [['firing', 0]]],
    ['a restart (nothing judged yet) keeps a firing alert', 'FF??F', [['firing', 0]]],
  ];
  for (const [name, ticks, expected] of cases) {
    it(`${name}: ${ticks}`, async () => {
      bench = alertBench((config) => {
        config.alerts.resolveAfter.wasteMs = 3 * MINUTE;
      });
      expect(await play(ticks)).toEqual(expected);
    });
  }

  it('ends a pending alert judged absent at once, without a notice', async () => {
    bench = alertBench((config) => {
      config.alerts.for = { wasteMs: 5 * MINUTE };
      config.alerts.resolveAfter.wasteMs = 3 * MINUTE;
    });
    expect(await play('FF-??FFFFFF')).toEqual([
      ['pending', 0],
      ['pending', 5],
      ['firing', 10],
    ]);
    expect((await bench.outbox()).map((m) => m.reason)).toEqual([]);
  });
});

describe('flapping', () => {
  /** Fires for 10 minutes, then is judged absent for 50, `times` times. */
  async function flap(times: number): Promise<void> {
    for (let i = 0; i < times; i++) {
      await bench.run(10 * MINUTE, () => [waste]);
      await bench.run(50 * MINUTE, () => []);
    }
  }

  it('says once that an alert flaps, with how much of each hour it holds, then mails nothing about it until it settles', async () => {
    bench = alertBench((config) => {
      config.alerts.resolveAfter.wasteMs = 0;
      config.alerts.noRepeat = ['waste'];
    });
    await flap(5);
    const mails = await bench.outbox();
    expect(mails.map((m) => m.reason)).toEqual(['first', 'all_resolved', 'new_alerts', 'all_resolved', 'flapping']);
    const notice = mails[4];
    expect(notice?.subject).toMatch(/^\[sim\] Flapping: /);
    expect(notice?.subject.length).toBeLessThanOrEqual(80);
    expect(notice?.text).toContain('fired 3 times in the last 6h');
    expect(notice?.text).toContain('~10m of every hour');
    expect(notice?.alertKeys).toEqual([key]);
    // Settled: no fire or resolve for a whole window, then it is mailed as any alert again.
    await bench.run(6 * HOUR + 10 * MINUTE, () => []);
    await bench.run(10 * MINUTE, () => [waste]);
    expect((await bench.outbox()).map((m) => m.reason)).toEqual([
      'first',
      'all_resolved',
      'new_alerts',
      'all_resolved',
      'flapping',
      'new_alerts',
    ]);
  });
});

describe('a finding that names its occurrence', () => {
  /** An idle spell's stop warning: one alert per spell, named by the `episode` label. */
  const spell = (episode: string) =>
    finding('idle:sim:nb:warn', {
      rule: 'idle',
      labels: { rule: 'idle', account: 'sim', pod_id: 'nb', stage: 'warn', episode },
      occurrenceLabel: 'episode',
    });
  const unknownPod = [{ labels: { rule: 'idle' as const, account: 'sim', pod_id: 'nb' }, reason: 'runtime null' }];

  it('opens a new alert, mailed on its own, when a new occurrence follows one kept open by unknown ticks', async () => {
    bench = alertBench((config) => {
      config.alerts.groupWaitMs = 0;
    });
    for (let i = 0; i < 3; i++) await bench.tick([spell('02:27')]).then(() => bench.clock.advanceBy(MINUTE));
    // The spell ends in unknown ticks: unknown is not resolved, so its alert stays open.
    for (let i = 0; i < 20; i++) await bench.tick([], unknownPod).then(() => bench.clock.advanceBy(MINUTE));
    for (let i = 0; i < 3; i++) await bench.tick([spell('03:23')]).then(() => bench.clock.advanceBy(MINUTE));
    expect(bench.states.map((s) => [s.state, (s.at - START) / MINUTE])).toEqual([
      ['firing', 0],
      ['resolved', 23],
      ['firing', 23],
    ]);
    const mails = (await bench.outbox()).filter((m) => m.alertKeys.includes('idle:sim:nb:warn'));
    expect(mails.map((m) => m.reason)).toEqual(['first', 'new_alerts']);
  });

  it('refreshes the open alert while the occurrence is the same', async () => {
    bench = alertBench();
    for (let i = 0; i < 5; i++) await bench.tick([spell('02:27')]).then(() => bench.clock.advanceBy(MINUTE));
    expect(bench.states.map((s) => s.state)).toEqual(['firing']);
  });
});
