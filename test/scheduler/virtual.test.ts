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

describe('VirtualScheduler fire times', () => {
  it('fires at the virtual minutes the expressions name, from a Friday morning over the weekend edge', async () => {
    // 2026-11-06 is a Friday: 06:00 Friday to 12:00 Saturday, 30 virtual hours.
    const from = Date.parse('2026-11-06T06:00:00Z');
    const clock = new VirtualClock(from);
    const scheduler = new VirtualScheduler(clock, new InflightCounter(), silentLogger());
    const fired = new Map<string, string[]>();
    for (const schedule of ['*/5 * * * *', '0 9 * * 1-5', '30 */2 * * *', '15 0 * * 6']) {
      fired.set(schedule, []);
      scheduler.add({
        name: schedule,
        schedule,
        run: async () => void fired.get(schedule)?.push(new Date(clock.now()).toISOString().slice(5, 16)),
      });
    }
    await scheduler.runUntil(Date.parse('2026-11-07T12:00:00Z'));

    // Every fifth minute, both ends included: 30 hours of 12, plus the one at 12:00 Saturday.
    const fives = fired.get('*/5 * * * *') ?? [];
    expect(fives).toHaveLength(30 * 12 + 1);
    expect(fives.slice(0, 3)).toEqual(['11-06T06:00', '11-06T06:05', '11-06T06:10']);
    expect(fives.slice(-3)).toEqual(['11-07T11:50', '11-07T11:55', '11-07T12:00']);
    expect(fives.every((at) => Number(at.slice(-2)) % 5 === 0)).toBe(true);
    // Weekdays at 09:00: Friday only, not Saturday.
    expect(fired.get('0 9 * * 1-5')).toEqual(['11-06T09:00']);
    // Half past every even hour: 06:30 to 22:30 on Friday, 00:30 to 10:30 on Saturday.
    expect(fired.get('30 */2 * * *')).toEqual([
      ...['06', '08', '10', '12', '14', '16', '18', '20', '22'].map((h) => `11-06T${h}:30`),
      ...['00', '02', '04', '06', '08', '10'].map((h) => `11-07T${h}:30`),
    ]);
    // Saturday (6) at 00:15, the day after.
    expect(fired.get('15 0 * * 6')).toEqual(['11-07T00:15']);
  });
});
