import type { VirtualClock } from '../clock.js';
import type { Logger } from '../log.js';
import { nextCronTime } from './cron.js';
import type { InflightCounter } from './inflight.js';
import { drain, type Job, type Scheduler } from './scheduler.js';

interface Entry {
  job: Job;
  nextAt: number;
}

/**
 * A discrete-event loop: jobs fire at their cron times on a VirtualClock, and time jumps to the
 * next event as soon as every running job is either done or parked on the clock (a retry
 * backoff, a rate-limit pause). "Parked" is known from the in-flight I/O counter: when no request
 * is in flight and the promise queue is drained, nothing but the clock can wake a job.
 */
export class VirtualScheduler implements Scheduler {
  private entries: Entry[] = [];
  private running = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(
    private readonly clock: VirtualClock,
    private readonly inflight: InflightCounter,
    private readonly log: Logger,
  ) {}

  add(job: Job): void {
    this.entries.push({ job, nextAt: nextCronTime(job.schedule, this.clock.now() - 1) });
  }

  start(): void {}

  /** Drives the jobs until `endMs` of virtual time. */
  async runUntil(endMs: number): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      this.fireDue();
      await this.quiesce();
      const next = Math.min(...this.entries.map((e) => e.nextAt), this.clock.nextTimerAt() ?? Number.POSITIVE_INFINITY);
      if (next > endMs) {
        await this.clock.advanceTo(Math.max(this.clock.now(), endMs));
        return;
      }
      await this.clock.advanceTo(Math.max(next, this.clock.now()));
    }
  }

  private fireDue(): void {
    const now = this.clock.now();
    for (const entry of this.entries) {
      if (entry.nextAt > now) continue;
      entry.nextAt = nextCronTime(entry.job.schedule, now);
      if (this.running.has(entry.job.name)) {
        this.log.warn({ job: entry.job.name }, 'previous run still going; this one is skipped');
        continue;
      }
      const run = entry.job.run().finally(() => this.running.delete(entry.job.name));
      this.running.set(entry.job.name, run);
    }
  }

  /** Waits until every running job is finished or waits on the clock alone. */
  private async quiesce(): Promise<void> {
    for (;;) {
      // Nothing but jobs starts work here (no fire-and-forget), so once none runs there is
      // nothing left to settle: a round whose jobs finish at once ends after one turn, not ten.
      await settleCallbacks(() => this.running.size === 0);
      if (this.running.size === 0) return;
      if (this.inflight.count === 0) {
        await settleCallbacks();
        if (this.inflight.count === 0) return;
      }
      await Promise.race([this.inflight.idle(), Promise.race(this.running.values())]);
    }
  }

  async stop(graceMs: number): Promise<{ unfinished: string[] }> {
    this.stopped = true;
    return drain(this.running, graceMs);
  }
}

/** Ten turns of the event loop, or fewer once `done` says so. */
async function settleCallbacks(done: () => boolean = () => false): Promise<void> {
  for (let i = 0; i < 10 && !done(); i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
