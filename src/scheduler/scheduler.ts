/**
 * Runs named jobs on cron schedules, never two runs of one job at once. The real scheduler uses
 * croner on the system clock; the virtual one is a discrete-event loop on a VirtualClock.
 */
export interface Job {
  name: string;
  /** A cron expression (see cron.ts), evaluated in UTC. */
  schedule: string;
  run(): Promise<void>;
}

export interface Scheduler {
  add(job: Job): void;
  start(): void;
  /** Stops starting new runs and resolves when in-flight runs end, or after `graceMs`. */
  stop(graceMs: number): Promise<{ unfinished: string[] }>;
}

/** Waits for the given runs to finish, up to `graceMs` of real time; names those still running. */
export async function drain(running: Map<string, Promise<void>>, graceMs: number): Promise<{ unfinished: string[] }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  await Promise.race([Promise.allSettled([...running.values()]), timeout]);
  clearTimeout(timer);
  return { unfinished: [...running.keys()] };
}
