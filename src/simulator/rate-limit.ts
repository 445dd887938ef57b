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

export interface RateLimitDecision {
  /** Absent when the request is allowed. */
  exceeded?: { window: RateWindow; retryAfterSeconds: number };
  headers: Record<string, string>;
}

interface Window {
  name: RateWindow;
  quota: number;
  lengthMs: number;
}

/** One key's count in one window. */
interface WindowCount {
  window: Window;
  startMs: number;
  count: number;
}

export class RateLimiter {
  private readonly windows: Window[];
  private readonly policyHeader: string;
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
    const states = this.statesOf(key, nowMs);
    const spent = states.some((state) => state.count >= state.window.quota);
    const parts: string[] = [];
    let longest: RateLimitDecision['exceeded'];
    for (const state of states) {
      const { name, quota, lengthMs } = state.window;
      if (!spent) state.count++;
      const reset = Math.max(1, Math.ceil((state.startMs + lengthMs - nowMs) / 1000));
      parts.push(`"${name}";r=${Math.max(0, quota - state.count)};t=${reset}`);
      // The window that resets last; the earlier one on a tie.
      if (state.count >= quota && (longest === undefined || reset > longest.retryAfterSeconds)) {
        longest = { window: name, retryAfterSeconds: reset };
      }
    }
    const headers: Record<string, string> = { 'RateLimit-Policy': this.policyHeader, RateLimit: parts.join(', ') };
    if (!spent || longest === undefined) return { headers };
    headers['Retry-After'] = String(longest.retryAfterSeconds);
    return { exceeded: longest, headers };
  }

  /** The key's count in each window at `nowMs`, a window that has ended starting again at 0. */
  private statesOf(key: string, nowMs: number): WindowCount[] {
    let states = this.counts.get(key);
    if (!states) {
      states = this.windows.map((window) => ({ window, startMs: Number.NaN, count: 0 }));
      this.counts.set(key, states);
    }
    for (const state of states) {
      const startMs = Math.floor(nowMs / state.window.lengthMs) * state.window.lengthMs;
      if (state.startMs !== startMs) {
        state.startMs = startMs;
        state.count = 0;
      }
    }
    return states;
  }
}
