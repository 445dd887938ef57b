import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { latencyJumpsClocks } from '../../src/replay/virtual-sim-clock.js';

const START = Date.parse('2026-11-02T00:00:00Z');

describe('latencyJumpsClocks', () => {
  it('adds up the latencies of one world, as one simulator always did', async () => {
    const clock = new VirtualClock(START);
    const [only] = latencyJumpsClocks(clock, 1);
    await only?.sleep(4_000);
    await only?.sleep(4_000);
    expect(clock.now() - START).toBe(8_000);
  });

  it('overlaps the latencies of several worlds: the clock moves by the largest total, not the sum', async () => {
    const clock = new VirtualClock(START);
    const [research, inference] = latencyJumpsClocks(clock, 2);
    await research?.sleep(4_000);
    await inference?.sleep(4_000);
    expect(clock.now() - START).toBe(4_000);
    await inference?.sleep(4_000);
    await inference?.sleep(1_000);
    expect(clock.now() - START).toBe(9_000);
    await research?.sleep(4_000);
    expect(clock.now() - START).toBe(9_000);
  });

  it('starts afresh once something else moved the clock', async () => {
    const clock = new VirtualClock(START);
    const [research, inference] = latencyJumpsClocks(clock, 2);
    await research?.sleep(4_000);
    await clock.advanceTo(START + 60_000);
    await inference?.sleep(4_000);
    expect(clock.now() - START).toBe(64_000);
  });

  it('refuses a sleep whose signal is already aborted, without moving the clock', async () => {
    const clock = new VirtualClock(START);
    const [only] = latencyJumpsClocks(clock, 1);
    await expect(only?.sleep(4_000, AbortSignal.abort(new Error('shutting down')))).rejects.toThrow('shutting down');
    expect(clock.now()).toBe(START);
  });
});
