/**
 * RunPod's per-user REST v2 limits (api-notes §6): minute, hour and day windows, every request
 * counting against all three, `RateLimit-Policy` and `RateLimit` headers on every authenticated
 * response, and a 429 with `Retry-After` naming the spent window. Windows are fixed and aligned
 * on the clock's epoch time, so a VirtualClock can step from one window into the next exactly.
 */

export type RateWindow = 'minute' | 'hour' | 'day';

export type RateLimits = Partial<Record<RateWindow, number>>;

const WINDOW_SECONDS: Record<RateWindow, number> = { minute: 60, hour: 3600, day: 86_400 };
const WINDOWS: RateWindow[] = ['minute', 'hour', 'day'];

export interface RateLimitExceeded {
  window: RateWindow;
  retryAfterSeconds: number;
}

export interface RateLimitDecision {
  /** Absent when the request is allowed. */
  exceeded?: RateLimitExceeded;
  headers: Record<string, string>;
}

interface WindowCount {
  startMs: number;
  count: number;
}

export class RateLimiter {
  private readonly windows: Array<{ name: RateWindow; quota: number; lengthMs: number }>;
  private readonly policyHeader: string;
  /** Per key, one count per window, in the order of `windows`. */
  private readonly counts = new Map<string, WindowCount[]>();

  constructor(limits: RateLimits) {
    this.windows = WINDOWS.flatMap((name) => {
      const quota = limits[name];
      if (quota === undefined) return [];
      if (!Number.isInteger(quota) || quota < 1) {
        throw new Error(`rate limit: the ${name} quota must be a positive integer, got ${quota}`);
      }
      return [{ name, quota, lengthMs: WINDOW_SECONDS[name] * 1000 }];
    });
    if (this.windows.length === 0) throw new Error('rate limit: set at least one of minute, hour, day');
    this.policyHeader = this.windows.map((w) => `"${w.name}";q=${w.quota};w=${WINDOW_SECONDS[w.name]}`).join(', ');
  }

  /**
   * Counts one request by `key` at `nowMs` against every window, unless a window is already
   * spent: then nothing is counted and the decision names the window to wait for (the one that
   * resets last, since the request stays refused until every spent window has reset).
   */
  take(key: string, nowMs: number): RateLimitDecision {
    // Plain loops and one string, no arrays of intermediate objects: every REST request passes here.
    const states = this.statesOf(key, nowMs);
    let spent = false;
    for (let index = 0; index < states.length; index++) {
      if ((states[index] as WindowCount).count >= (this.windows[index] as { quota: number }).quota) spent = true;
    }
    let rateLimit = '';
    let longest: RateLimitExceeded | undefined;
    for (let index = 0; index < states.length; index++) {
      const window = this.windows[index] as { name: RateWindow; quota: number; lengthMs: number };
      const state = states[index] as WindowCount;
      if (!spent) state.count++;
      const reset = secondsUntilReset(state, window.lengthMs, nowMs);
      if (index > 0) rateLimit += ', ';
      rateLimit += `"${window.name}";r=${Math.max(0, window.quota - state.count)};t=${reset}`;
      // The window that resets last; the earlier one on a tie.
      if (state.count >= window.quota && (longest === undefined || reset > longest.retryAfterSeconds)) {
        longest = { window: window.name, retryAfterSeconds: reset };
      }
    }
    const headers: Record<string, string> = { 'RateLimit-Policy': this.policyHeader, RateLimit: rateLimit };
    if (!spent || longest === undefined) return { headers };
    headers['Retry-After'] = String(longest.retryAfterSeconds);
    return { exceeded: longest, headers };
  }

  /** The key's count in each window at `nowMs`, a window that has ended starting again at 0. */
  private statesOf(key: string, nowMs: number): WindowCount[] {
    let states = this.counts.get(key);
    if (!states) {
      states = this.windows.map(() => ({ startMs: Number.NaN, count: 0 }));
      this.counts.set(key, states);
    }
    for (let index = 0; index < states.length; index++) {
      const lengthMs = (this.windows[index] as { lengthMs: number }).lengthMs;
      const startMs = Math.floor(nowMs / lengthMs) * lengthMs;
      const state = states[index] as WindowCount;
      if (state.startMs !== startMs) {
        state.startMs = startMs;
        state.count = 0;
      }
    }
    return states;
  }
}

function secondsUntilReset(state: WindowCount, lengthMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((state.startMs + lengthMs - nowMs) / 1000));
}
