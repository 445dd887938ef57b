import type { Cron } from 'croner';
import type { Logger } from '../log.js';
import { cronJob, nextCronTime } from './cron.js';
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
    this.timers.push(
      cronJob(job.schedule, (timer) => {
        this.warnOvertaken(job, timer);
        void this.fire(job);
      }),
    );
  }

  /** A run due after the last one and before this late one was overtaken: said, not silent. */
  private warnOvertaken(job: Job, timer: Cron): void {
    const [previous, current] = [timer.previousRun()?.getTime(), timer.currentRun()?.getTime()];
    if (previous === undefined || current === undefined) return;
    const overtaken = nextCronTime(job.schedule, nextCronTime(job.schedule, previous));
    if (overtaken > current) return;
    const dueAt = new Date(overtaken).toISOString();
    this.log.warn({ job: job.name, dueAt }, 'run skipped: the process was busy until the next one was due');
  }

  start(): void {
    for (const timer of this.timers) timer.resume();
  }

  /**
   * Schedules `jobs` instead of the current ones (a configuration reload). A run in flight is
   * not touched: it finishes with what it started with, and a job of the same name does not
   * start again until it has (runs are kept by name).
   */
  async replace(jobs: readonly Job[]): Promise<void> {
    if (this.stopped) return;
    for (const timer of this.timers.splice(0)) timer.stop();
    for (const job of jobs) this.add(job);
    this.start();
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
