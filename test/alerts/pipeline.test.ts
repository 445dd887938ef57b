import { afterEach, describe, expect, it } from 'vitest';
import { alertState } from '../../src/alerts/state.js';
import { insertSilence } from '../../src/db/silences.js';
import { openAlerts } from '../helpers/store.js';
import { ALERTS } from '../messages/fixtures.js';
import { type AlertBench, alertBench, budgetFinding, finding, HOUR, MINUTE, START } from './support.js';

let bench: AlertBench;
afterEach(() => bench.close());

const subjects = async () => (await bench.outbox()).map((message) => message.subject);
const announced = async () => (await bench.outbox()).map((message) => message.alertKeys);

describe('alert state', () => {
  it('holds an alert pending for its rule’s `for`, fires it, and resolves it when no rule reports it', async () => {
    bench = alertBench((config) => {
      config.alerts.for = { wasteMs: 10 * MINUTE };
    });
    const waste = finding('waste:sim:volume-unmounted:vol-1');
    await bench.run(9 * MINUTE, () => [waste]);
    expect(bench.states.map((s) => s.state)).toEqual(['pending']);
    expect(await bench.outbox()).toEqual([]);
    await bench.run(5 * MINUTE, () => [waste]);
    expect(bench.states.map((s) => [s.state, s.at - START])).toEqual([
      ['pending', 0],
      ['firing', 10 * MINUTE],
    ]);
    // Judged absent: it resolves once absent for waste's resolveAfter (30 minutes by default).
    await bench.run(30 * MINUTE, () => []);
    expect(bench.states.at(-1)?.state).toBe('firing');
    await bench.tick([]);
    expect(bench.states.at(-1)).toMatchObject({ state: 'resolved', key: waste.key, rule: 'waste' });
    expect(bench.states.at(-1)?.at).toBe(START + 44 * MINUTE);
    expect(await openAlerts(bench.db)).toEqual([]);
  });

  it('resolves nothing in a tick where an evaluator failed: its findings are missing, not gone', async () => {
    bench = alertBench();
    const budget = budgetFinding('gpu', 'actual', 80);
    await bench.run(2 * MINUTE, () => [budget]);
    await bench.tick([], [{ labels: { rule: 'budget' }, reason: 'evaluator budget failed' }]);
    await bench.clock.advanceBy(MINUTE);
    expect((await openAlerts(bench.db)).map((alert) => alert.key)).toEqual([budget.key]);
    await bench.tick([]);
    expect(await openAlerts(bench.db)).toEqual([]);
    expect(bench.states.map((s) => s.state)).toEqual(['firing', 'resolved']);
  });

  it('forgets a pending alert that goes away before it fires, without a notice', async () => {
    bench = alertBench((config) => {
      config.alerts.for = { wasteMs: 10 * MINUTE };
    });
    await bench.run(5 * MINUTE, () => [finding('waste:sim:stuck-starting:pod-1')]);
    await bench.run(30 * MINUTE, () => []);
    expect(bench.states.map((s) => s.state)).toEqual(['pending']);
    expect(await bench.outbox()).toEqual([]);
  });

  it('changes nothing when a tick is run again at the same time (a restart after a crash)', async () => {
    bench = alertBench();
    await bench.run(2 * MINUTE, () => [finding('waste:sim:stuck-starting:pod-1')]);
    await bench.tick([finding('waste:sim:stuck-starting:pod-1')]);
    const before = { outbox: await bench.outbox(), alerts: await openAlerts(bench.db), states: bench.states.length };
    bench.reopen();
    await bench.tick([finding('waste:sim:stuck-starting:pod-1')]);
    await bench.tick([finding('waste:sim:stuck-starting:pod-1')]);
    expect(await bench.outbox()).toEqual(before.outbox);
    expect(await openAlerts(bench.db)).toEqual(before.alerts);
    expect(bench.states).toHaveLength(before.states);
    const [alert] = await openAlerts(bench.db);
    expect(alert && alertState(alert, bench.clock.now())).toBe('firing');
  });
});

describe('grouping and digests', () => {
  it('waits groupWait so alerts firing together share one message', async () => {
    bench = alertBench();
    await bench.tick([finding('waste:sim:stuck-starting:pod-1')]);
    expect(await bench.outbox()).toEqual([]);
    await bench.clock.advanceBy(MINUTE);
    await bench.tick([finding('waste:sim:stuck-starting:pod-1'), finding('waste:sim:stuck-starting:pod-2')]);
    expect(await announced()).toEqual([['waste:sim:stuck-starting:pod-1', 'waste:sim:stuck-starting:pod-2']]);
    expect((await subjects())[0]).toMatch(/^\[sim\] waste:sim:stuck-starting:pod-\d happened, \$1\.00 \(\+1 more\)$/);
    expect((await bench.outbox())[0]?.text).toContain('2 new alerts');
  });

  it('holds a talking group to groupInterval, then announces only what is new', async () => {
    bench = alertBench();
    const first = finding('waste:sim:stuck-starting:pod-1');
    const second = finding('waste:sim:stuck-starting:pod-2');
    await bench.run(2 * MINUTE, () => [first]);
    await bench.run(4 * MINUTE, () => [first, second]);
    expect(await announced()).toEqual([[first.key]]);
    await bench.run(2 * MINUTE, () => [first, second]);
    expect(await announced()).toEqual([[first.key], [second.key]]);
    const text = (await bench.outbox())[1]?.text ?? '';
    expect(text).toContain('1 new alert, 1 more still firing');
    expect(text).toContain(`Still firing (1)\n  - ${first.summary}`);
  });

  it('splits groups by the groupBy labels and by recipients', async () => {
    bench = alertBench((config) => {
      config.email.to = ['ops@example.com'];
    });
    await bench.run(2 * MINUTE, () => [
      budgetFinding('gpu', 'actual', 50),
      budgetFinding('gpu', 'live', 50),
      budgetFinding('cpu', 'actual', 50),
      { ...finding('waste:sim:stuck-starting:pod-1'), recipients: ['ml@example.com'] },
      finding('waste:sim:stuck-starting:pod-2'),
    ]);
    const byGroup = (await bench.outbox()).map((message) => [message.to, message.alertKeys]);
    expect(byGroup).toEqual([
      [['ops@example.com'], ['budget:sim:gpu:actual:50', 'budget:sim:gpu:live:50']],
      [['ops@example.com'], ['budget:sim:cpu:actual:50']],
      [['ml@example.com'], ['waste:sim:stuck-starting:pod-1']],
      [['ops@example.com'], ['waste:sim:stuck-starting:pod-2']],
    ]);
  });
});

describe('repeat interval and resolved notices', () => {
  it('repeats a group still firing every repeatInterval, and says when it resolves', async () => {
    bench = alertBench((config) => {
      config.alerts.noRepeat = ['budget', 'capacity'];
    });
    const waste = finding('waste:sim:volume-unmounted:vol-1');
    await bench.run(9 * HOUR, () => [waste]);
    expect((await bench.outbox()).map((m) => [m.reason, m.createdAt - START])).toEqual([
      ['first', MINUTE],
      ['repeat_elapsed', MINUTE + 4 * HOUR],
      ['repeat_elapsed', MINUTE + 8 * HOUR],
    ]);
    expect((await subjects())[1]).toBe('[sim] Still: waste:sim:volume-unmounted:vol-1 happened, $1.00');
    await bench.run(40 * MINUTE, () => []);
    expect((await bench.outbox()).map((m) => m.reason).slice(3)).toEqual(['all_resolved']);
    expect((await subjects())[3]).toBe('[sim] Resolved: waste:sim:volume-unmounted:vol-1 happened, $1.00');
    await bench.run(6 * HOUR, () => []);
    expect(await bench.outbox()).toHaveLength(4);
  });

  it('never repeats the noRepeat rules and sends no resolved notice for rules not in sendResolved', async () => {
    bench = alertBench();
    const capacity = finding('capacity:sim:H200:POD:all:rise@1', { summary: 'H200 SXM is back: NONE → HIGH' });
    await bench.run(9 * HOUR, () => [capacity, budgetFinding('gpu', 'actual', 50)]);
    expect((await bench.outbox()).map((m) => m.reason)).toEqual(['first', 'first']);
    await bench.run(HOUR, () => [budgetFinding('gpu', 'actual', 50)]);
    expect(await bench.outbox()).toHaveLength(2);
    await bench.run(HOUR, () => []);
    expect((await bench.outbox()).map((m) => m.reason)).toEqual(['first', 'first', 'all_resolved']);
    expect((await bench.outbox())[2]?.alertKeys).toEqual(['budget:sim:gpu:actual:50']);
  });

  it('announces a partial resolution with what still fires', async () => {
    bench = alertBench();
    const a = finding('waste:sim:stuck-starting:pod-1');
    const b = finding('waste:sim:stuck-starting:pod-2');
    await bench.run(10 * MINUTE, () => [a, b]);
    await bench.run(40 * MINUTE, () => [a]);
    expect((await bench.outbox()).map((m) => m.reason)).toEqual(['first', 'new_resolved']);
    expect((await subjects())[1]).toBe('[sim] Resolved: waste:sim:stuck-starting:pod-2 happened, $1.00');
    expect((await bench.outbox())[1]?.text).toContain('1 resolved alert, 1 more still firing');
  });
});

describe('inhibition', () => {
  it('mutes a budget’s lower thresholds while a higher one fires, for the same budget and figure only', async () => {
    bench = alertBench();
    const at = (hour: number) => (now: number) => now - START >= hour * HOUR;
    await bench.run(4 * HOUR, (now) => [
      budgetFinding('gpu', 'actual', 50),
      ...(at(1)(now) ? [budgetFinding('gpu', 'actual', 80)] : []),
      ...(at(2)(now) ? [budgetFinding('gpu', 'actual', 100), budgetFinding('gpu', 'forecast', 50)] : []),
      ...(at(3)(now) ? [budgetFinding('cpu', 'actual', 50)] : []),
    ]);
    expect(await announced()).toEqual([
      ['budget:sim:gpu:actual:50'],
      ['budget:sim:gpu:actual:80'],
      ['budget:sim:gpu:actual:100', 'budget:sim:gpu:forecast:50'],
      ['budget:sim:cpu:actual:50'],
    ]);
    // The digest lists what still fires: never the muted lower thresholds.
    expect((await bench.outbox())[2]?.text).not.toContain('budget:sim:gpu:actual:80');
  });

  it('mutes nothing with inhibit: false', async () => {
    bench = alertBench((config) => {
      config.alerts.inhibit = false;
    });
    await bench.run(2 * MINUTE, () => [budgetFinding('gpu', 'actual', 50), budgetFinding('gpu', 'actual', 100)]);
    expect(await announced()).toEqual([['budget:sim:gpu:actual:50', 'budget:sim:gpu:actual:100']]);
  });
});

describe('silences', () => {
  it('mute exactly what they match, while they last', async () => {
    bench = alertBench();
    await insertSilence(bench.db, {
      id: 'silence-1',
      matchers: [
        { name: 'budget', op: '=', value: 'gpu' },
        { name: 'figure', op: '=~', value: 'actual|live' },
      ],
      comment: 'known overrun',
      createdBy: 'test',
      createdAt: START,
      startsAt: START,
      endsAt: START + 2 * HOUR,
    });
    await insertSilence(bench.db, {
      id: 'silence-2',
      matchers: [{ name: 'key', op: '=', value: 'waste:sim:stuck-starting:pod-1' }],
      comment: 'debugging it',
      createdBy: 'test',
      createdAt: START,
      startsAt: START,
      endsAt: START + 10 * HOUR,
    });
    await bench.run(HOUR, () => [
      budgetFinding('gpu', 'actual', 50),
      budgetFinding('gpu', 'forecast', 80),
      budgetFinding('cpu', 'actual', 50),
      finding('waste:sim:stuck-starting:pod-1'),
      finding('waste:sim:stuck-starting:pod-2'),
    ]);
    expect(await announced()).toEqual([
      ['budget:sim:gpu:forecast:80'],
      ['budget:sim:cpu:actual:50'],
      ['waste:sim:stuck-starting:pod-2'],
    ]);
    // Once the silence ends, an alert that fires anew is announced.
    await bench.run(2 * HOUR, (now) => [
      budgetFinding('gpu', 'forecast', 80),
      budgetFinding('cpu', 'actual', 50),
      ...(now - START >= 2 * HOUR ? [budgetFinding('gpu', 'actual', 80)] : []),
      finding('waste:sim:stuck-starting:pod-2'),
    ]);
    expect((await announced()).slice(3)).toEqual([['budget:sim:gpu:actual:80']]);
  });
});

describe('the messages the pipeline writes', () => {
  it('carry the figures of the alerts as this tick last refreshed them', async () => {
    bench = alertBench((config) => {
      config.alerts.repeatIntervalMs = HOUR;
      // Budgets are announced once by default; repeated here to see a later tick's figures.
      config.alerts.noRepeat = [];
    });
    const budget = (billed: number) => ({
      ...budgetFinding('gpu-daily', 'actual', 80),
      details: { ...ALERTS['budget-spent-80']?.details, value: billed, actual: billed, evaluatedAt: bench.clock.now() },
    });
    await bench.run(5 * MINUTE, () => [budget(92.4)]);
    expect(await bench.outbox()).toHaveLength(1);
    // The figure comes from the details alone (the summary names none).
    expect((await bench.outbox())[0]?.text).toContain('$92.40');
    await bench.run(HOUR, (now) => [budget(now - START > 30 * MINUTE ? 97.1 : 92.4)]);
    const repeat = (await bench.outbox())[1];
    expect(repeat?.subject).toMatch(/^\[sim\] Still: /);
    expect(repeat?.text).toContain('$97.10');
    expect(repeat?.html).toContain('$97.10');
  });
});
