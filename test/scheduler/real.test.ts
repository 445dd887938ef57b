import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { RealScheduler } from '../../src/scheduler/real.js';

/** A JSON logger whose lines the test reads, with a way to wait for one. */
function capturedLogger() {
  const stream = new PassThrough();
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    for (const wake of waiters.splice(0)) wake();
  });
  const waitFor = async (msg: string) => {
    while (!lines.some((line) => line.msg === msg)) await new Promise<void>((resolve) => waiters.push(resolve));
    return lines.filter((line) => line.msg === msg);
  };
  return { log: createLogger({ level: 'info', destination: stream }), lines, waitFor };
}

describe('RealScheduler', () => {
  it("logs a failing job through our logger, on node-cron's schedule and when fired at start, and goes on", async () => {
    const { log, waitFor } = capturedLogger();
    const scheduler = new RealScheduler(log);
    let runs = 0;
    const job = {
      name: 'broken@main',
      schedule: '* * * * * *',
      run: async () => {
        runs++;
        throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      },
    };
    scheduler.add(job);
    scheduler.start();
    try {
      // Fired at start: the promise settles, the error does not escape.
      await expect(scheduler.fire(job)).resolves.toBeUndefined();
      // Then from node-cron, at least once more.
      while (runs < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await scheduler.stop(1_000);
    }
    const failures = await waitFor('job failed');
    expect(failures.length).toBeGreaterThanOrEqual(2);
    expect(failures[0]).toMatchObject({ level: 50, job: 'broken@main', err: { message: 'database or disk is full' } });
  }, 10_000);

  it('runs a job the busy process reaches late, rather than skipping it, and keeps node-cron off stderr', async () => {
    const { log, lines } = capturedLogger();
    const scheduler = new RealScheduler(log);
    const startedAt: number[] = [];
    let blocked = false;
    const job = {
      name: 'late@main',
      schedule: '*/10 * * * * *',
      run: async () => {
        startedAt.push(Date.now());
        if (blocked) return;
        blocked = true;
        // The process is busy past the next run's time by more than node-cron's one-second
        // tolerance (it reads the clock in whole seconds), but less than the schedule's ten.
        setImmediate(() => {
          const until = (startedAt[0] ?? Date.now()) + 12_500;
          while (Date.now() < until) {}
        });
      },
    };
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      stderr.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
    scheduler.add(job);
    scheduler.start();
    try {
      while (startedAt.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.stderr.write = write;
      await scheduler.stop(1_000);
    }
    const [first = 0, second = 0] = startedAt;
    // Late, once the process was free (12.5 s after the first), not at the slot after (20 s).
    expect(second - first).toBeGreaterThanOrEqual(12_000);
    expect(second - first).toBeLessThan(16_000);
    expect(lines.filter((line) => line.msg === 'run skipped: the process was busy until the next one was due')).toEqual(
      [],
    );
    expect(stderr.filter((text) => text.includes('NODE-CRON'))).toEqual([]);
  }, 60_000);
  it('replaces its jobs (a reload): the new schedules run, and a run in flight finishes before its job runs again', async () => {
    const { log } = capturedLogger();
    const scheduler = new RealScheduler(log);
    const runs: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = { name: 'pods@main', schedule: '0 0 1 1 *', run: () => held.then(() => void runs.push('slow')) };
    scheduler.add(slow);
    scheduler.start();
    const inFlight = scheduler.fire(slow);
    try {
      await scheduler.replace([
        { name: 'pods@main', schedule: '* * * * * *', run: async () => void runs.push('new pods') },
        { name: 'stock@main', schedule: '* * * * * *', run: async () => void runs.push('new stock') },
      ]);
      // The new stock job runs on its schedule; the new pods job waits for the run in flight.
      while (!runs.includes('new stock')) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(runs).not.toContain('new pods');
      release();
      await inFlight;
      expect(runs).toContain('slow');
      while (!runs.includes('new pods')) await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      release();
      await scheduler.stop(1_000);
    }
  }, 10_000);
});

describe('RealScheduler, a run overtaken', () => {
  it('says so when the process was busy past the next run as well', async () => {
    const { log, waitFor } = capturedLogger();
    const scheduler = new RealScheduler(log);
    let runs = 0;
    const job = {
      name: 'overtaken@main',
      schedule: '* * * * * *',
      run: async () => {
        if (++runs > 1) return;
        // Busy for 2.5 s after the first run: the run due a second later is reached late, and
        // the one due two seconds later is overtaken by it.
        setImmediate(() => {
          const until = Date.now() + 2_500;
          while (Date.now() < until) {}
        });
      },
    };
    scheduler.add(job);
    scheduler.start();
    try {
      const [skipped] = await waitFor('run skipped: the process was busy until the next one was due');
      expect(skipped).toMatchObject({ level: 40, job: 'overtaken@main' });
      expect(String(skipped?.dueAt)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    } finally {
      await scheduler.stop(1_000);
    }
  }, 20_000);
});
