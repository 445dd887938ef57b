import type { Cron } from 'croner';
import type { Logger } from '../log.js';
import { cronJob } from './cron.js';
import { drain, type Job, type Scheduler } from './scheduler.js';

/**
 * croner in real time, UTC, with no overlap: a run still going when the next is due is skipped.
 * A run the busy process reaches late still runs, once: croner's timer fires when the process
 * gets to it and the next run is counted from then, so only runs already overtaken are dropped.
 */
export class RealScheduler implements Scheduler {
  private timers: Cron[] = [];
  private running = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(private readonly log: Logger) {}

  add(job: Job): void {
    this.timers.push(cronJob(job.schedule, () => void this.fire(job)));
  }

  start(): void {
    for (const timer of this.timers) timer.resume();
  }

  /** Runs a job now unless it is already running (then the caller gets the run in progress). */
  fire(job: Job): Promise<void> {
    const current = this.running.get(job.name);
    if (current) {
      this.log.warn({ job: job.name }, 'previous run still going; this one is skipped');
      return current;
    }
    if (this.stopped) return Promise.resolve();
    // A job's error goes through our logger (JSON, redacted), never to an unhandled rejection.
    const run = Promise.resolve()
      .then(() => job.run())
      .catch((error: unknown) => this.log.error({ job: job.name, err: error }, 'job failed'))
      .finally(() => this.running.delete(job.name));
    this.running.set(job.name, run);
    return run;
  }

  async stop(graceMs: number): Promise<{ unfinished: string[] }> {
    this.stopped = true;
    for (const timer of this.timers) timer.stop();
    return drain(this.running, graceMs);
  }

  /** After stop: waits (bounded) for runs told to abort to record how they ended. */
  settle(graceMs: number): Promise<{ unfinished: string[] }> {
    return drain(this.running, graceMs);
  }
}
