import { describe, expect, it } from 'vitest';
import { toIso, VirtualClock } from '../src/clock.js';

describe('VirtualClock', () => {
  it('wakes sleepers in time order as time advances, and only those due', async () => {
    const clock = new VirtualClock(1_000);
    const woke: Array<[string, number]> = [];
    void clock.sleep(500).then(() => woke.push(['b', clock.now()]));
    void clock.sleep(100).then(() => woke.push(['a', clock.now()]));
    void clock.sleep(5_000).then(() => woke.push(['c', clock.now()]));
    await clock.advanceTo(2_000);
    expect(woke).toEqual([
      ['a', 1_100],
      ['b', 1_500],
    ]);
    expect(clock.now()).toBe(2_000);
    expect(clock.nextTimerAt()).toBe(6_000);
  });

  it('lets a woken sleeper sleep again within the same advance', async () => {
    const clock = new VirtualClock(0);
    const times: number[] = [];
    void (async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(10);
        times.push(clock.now());
      }
    })();
    await clock.advanceTo(100);
    expect(times).toEqual([10, 20, 30]);
  });

  it('rejects an aborted sleep and forgets its timer', async () => {
    const clock = new VirtualClock(0);
    const controller = new AbortController();
    const sleeping = clock.sleep(10, controller.signal);
    controller.abort(new Error('shutdown'));
    await expect(sleeping).rejects.toThrow('shutdown');
    expect(clock.nextTimerAt()).toBeUndefined();
  });

  it('never goes back in time', async () => {
    const clock = new VirtualClock(100);
    await expect(clock.advanceTo(50)).rejects.toThrow(/cannot go back/);
  });

  it('formats RFC 3339 UTC with second precision', () => {
    expect(toIso(Date.parse('2026-11-02T10:00:00.123Z'))).toBe('2026-11-02T10:00:00Z');
  });
});
