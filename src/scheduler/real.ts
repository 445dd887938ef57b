import cron, { type Logger as CronLogger, type ScheduledTask } from 'node-cron';
import type { Logger } from '../log.js';
import { drain, type Job, type Scheduler } from './scheduler.js';

/**
 * node-cron in real time, UTC, with no overlap: a run still going when the next is due is skipped;
 * a run the busy process reaches late still runs, once.
 */
export class RealScheduler implements Scheduler {
  private tasks: ScheduledTask[] = [];
  private running = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(private readonly log: Logger) {}

  add(job: Job): void {
    const task = cron.createTask(job.schedule, () => this.fire(job), {
      name: job.name,
      timezone: 'UTC',
      // Late is better than never: node-cron skips a run it reaches more than a second late (a
      // busy CPU, a long synchronous write), which on a loaded machine lost whole Pod polls and
      // evaluations. A late run now runs as soon as the process gets to it; only a run the next
      // one has already overtaken is skipped, and said so below.
      missedExecutionTolerance: Number.MAX_SAFE_INTEGER,
      // Whatever node-cron has to say goes through our logger (JSON, redacted), not to stderr.
      logger: cronLogger(this.log.child({ job: job.name })),
    });
    task.on('execution:missed', (context) => {
      this.log.warn(
        { job: job.name, dueAt: context.date.toISOString() },
        'run skipped: the process was busy until the next one was due',
      );
    });
    this.tasks.push(task);
  }

  start(): void {
    for (const task of this.tasks) void task.start();
  }

  /**
   * Schedules `jobs` instead of the current ones (a configuration reload). A run in flight is
   * not touched: it finishes with what it started with, and a job of the same name does not
   * start again until it has (runs are kept by name).
   */
  async replace(jobs: readonly Job[]): Promise<void> {
    if (this.stopped) return;
    const previous = this.tasks.splice(0);
    for (const task of previous) await task.destroy();
    // stop() may have come while the old tasks were being destroyed: then nothing starts again.
    if (this.stopped) return;
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

/** node-cron's logger interface over ours. */
function cronLogger(log: Logger): CronLogger {
  const entry = (message: string | Error, err?: Error) =>
    typeof message === 'string' ? ([{ err }, message] as const) : ([{ err: message }, 'node-cron error'] as const);
  return {
    info: (message: string) => log.info(message),
    warn: (message: string) => log.warn(message),
    error: (message: string | Error, err?: Error) => log.error(...entry(message, err)),
    debug: (message: string | Error, err?: Error) => log.debug(...entry(message, err)),
  };
}
