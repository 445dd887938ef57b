import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { ScaledClock } from '../../src/simulator/scaled-clock.js';

const SCENARIO_START = Date.parse('2026-11-02T00:00:00Z');

describe('ScaledClock', () => {
  it('starts at the given instant and runs speed times as fast as its base', async () => {
    const base = new VirtualClock(1_000_000);
    const clock = new ScaledClock({ startMs: SCENARIO_START, speed: 60, base });
    expect(clock.now()).toBe(SCENARIO_START);
    await base.advanceBy(1_000);
    expect(clock.now()).toBe(SCENARIO_START + 60_000);
  });

  it('sleeps for its own time: a virtual minute at 60x is a base second', async () => {
    const base = new VirtualClock(0);
    const clock = new ScaledClock({ startMs: SCENARIO_START, speed: 60, base });
    let woke = false;
    const sleeping = clock.sleep(60_000).then(() => {
      woke = true;
    });
    expect(base.nextTimerAt()).toBe(1_000);
    await base.advanceBy(999);
    expect(woke).toBe(false);
    await base.advanceBy(1);
    await sleeping;
    expect(woke).toBe(true);
    expect(clock.now()).toBe(SCENARIO_START + 60_000);
  });

  it('rejects a speed that is not a positive number', () => {
    expect(() => new ScaledClock({ startMs: 0, speed: 0 })).toThrow(/speed/);
    expect(() => new ScaledClock({ startMs: 0, speed: Number.NaN })).toThrow(/speed/);
  });
});
