import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/log.js';
import { InflightCounter } from '../../src/scheduler/inflight.js';
import { VirtualScheduler } from '../../src/scheduler/virtual.js';

const start = Date.parse('2026-11-02T00:00:00Z');

function setup() {
  const clock = new VirtualClock(start);
  const inflight = new InflightCounter();
  const scheduler = new VirtualScheduler(clock, inflight, silentLogger());
  return { clock, inflight, scheduler };
}

describe('VirtualScheduler', () => {
  it('fires each job at its cron times, including the start when it is on the schedule', async () => {
    const { clock, scheduler } = setup();
    const fired: number[] = [];
    scheduler.add({ name: 'every-5m', schedule: '*/5 * * * *', run: async () => void fired.push(clock.now() - start) });
    await scheduler.runUntil(start + 20 * 60_000);
    expect(fired.map((ms) => ms / 60_000)).toEqual([0, 5, 10, 15, 20]);
    expect(clock.now()).toBe(start + 20 * 60_000);
  });

  it('waits for real I/O before moving time, so a slow response is not "late"', async () => {
    const { clock, inflight, scheduler } = setup();
    const seen: number[] = [];
    scheduler.add({
      name: 'io',
      schedule: '* * * * *',
      run: async () => {
        await inflight.track(new Promise((resolve) => setTimeout(resolve, 20)));
        seen.push(clock.now() - start);
      },
    });
    await scheduler.runUntil(start + 2 * 60_000);
    expect(seen).toEqual([0, 60_000, 120_000]);
  });

  it('moves time for a job parked on the clock (a backoff), and skips overlapping runs', async () => {
    const { clock, scheduler } = setup();
    const finished: number[] = [];
    let starts = 0;
    scheduler.add({
      name: 'slow',
      schedule: '* * * * *',
      run: async () => {
        starts++;
        await clock.sleep(90_000);
        finished.push(clock.now() - start);
      },
    });
    await scheduler.runUntil(start + 4 * 60_000);
    // Runs start at 0 and 2m (1m and 3m are skipped: the previous run is still going).
    expect(finished).toEqual([90_000, 210_000]);
    expect(starts).toBe(3);
  });
});
