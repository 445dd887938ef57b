/**
 * The only place that reads the system time. Everything else receives a Clock, so the same
 * code runs live, in tests, and in a replay of a day in a second.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Resolves after `ms` of this clock's time; rejects with the signal's reason if aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export class RealClock implements Clock {
  now(): number {
    return Date.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return abortableWait(signal, (done) => {
      const timer = setTimeout(done, Math.max(0, ms));
      return () => clearTimeout(timer);
    });
  }
}

/** Resolves when `wait` calls `done`; once aborted, undoes the wait (what `wait` returned) and rejects. */
function abortableWait(signal: AbortSignal | undefined, wait: (done: () => void) => () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      cancel();
      reject(signal?.reason);
    };
    const cancel = wait(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

/**
 * A clock that moves only when told to. Sleepers wake in time order as the clock is advanced,
 * with pending promise callbacks drained between wake-ups, so a discrete-event loop can drive
 * the daemon through a simulated day as fast as the machine allows.
 */
export class VirtualClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private seq = 0;

  constructor(start: number) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return abortableWait(signal, (done) => {
      const timer: Timer = { at: this.current + Math.max(0, ms), seq: this.seq++, resolve: done };
      this.timers.push(timer);
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      return () => {
        this.timers = this.timers.filter((t) => t !== timer);
      };
    });
  }

  /** The time of the earliest pending sleeper, or undefined when nobody sleeps. */
  nextTimerAt(): number | undefined {
    return this.timers[0]?.at;
  }

  /** Moves time forward to `target`, waking every sleeper due on the way, in order. */
  async advanceTo(target: number): Promise<void> {
    if (target < this.current) throw new Error(`VirtualClock cannot go back from ${this.current} to ${target}`);
    for (;;) {
      await drainMicrotasks();
      const next = this.timers[0];
      if (!next || next.at > target) break;
      this.timers.shift();
      this.current = Math.max(this.current, next.at);
      next.resolve();
    }
    this.current = target;
    await drainMicrotasks();
  }

  advanceBy(ms: number): Promise<void> {
    return this.advanceTo(this.current + ms);
  }

  /**
   * Moves time forward at once, without waking anybody: for work that "takes" virtual time
   * (an injected latency) while the event loop drives the clock. Sleepers now due wake at the
   * next advance.
   */
  jump(ms: number): void {
    this.current += Math.max(0, ms);
  }
}

/** Lets promise chains that were just unblocked run before time moves again. */
async function drainMicrotasks(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** RFC 3339 in UTC with second precision, the form the RunPod API uses. */
export function toIso(ms: number): string {
  // toISOString always ends in ".sssZ": cut the milliseconds off (a billing backfill formats millions).
  return `${new Date(ms).toISOString().slice(0, -5)}Z`;
}
