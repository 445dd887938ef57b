import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../log.js';
import { drain, type Job, type Scheduler } from './scheduler.js';

/** node-cron in real time, UTC, with no overlap: a run still going when the next is due is skipped. */
export class RealScheduler implements Scheduler {
  private tasks: ScheduledTask[] = [];
  private running = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(private readonly log: Logger) {}

  add(job: Job): void {
    const task = cron.createTask(job.schedule, () => this.fire(job), { name: job.name, timezone: 'UTC' });
    this.tasks.push(task);
  }

  start(): void {
    for (const task of this.tasks) void task.start();
  }

  /** Runs a job now unless it is already running (then the caller gets the run in progress). */
  fire(job: Job): Promise<void> {
    const current = this.running.get(job.name);
    if (current) {
      this.log.warn({ job: job.name }, 'previous run still going; this one is skipped');
      return current;
    }
    if (this.stopped) return Promise.resolve();
    // A job's error goes through our logger (JSON, redacted), never to node-cron, which would
    // print it as a coloured stack, nor to an unhandled rejection at start-up.
    const run = Promise.resolve()
      .then(() => job.run())
      .catch((error: unknown) => this.log.error({ job: job.name, err: error }, 'job failed'))
      .finally(() => this.running.delete(job.name));
    this.running.set(job.name, run);
    return run;
  }

  async stop(graceMs: number): Promise<{ unfinished: string[] }> {
    this.stopped = true;
    for (const task of this.tasks) await task.destroy();
    return drain(this.running, graceMs);
  }

  /** After stop: waits (bounded) for runs told to abort to record how they ended. */
  settle(graceMs: number): Promise<{ unfinished: string[] }> {
    return drain(this.running, graceMs);
  }
}
