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
  private readonly counts = new Map<string, Map<RateWindow, WindowCount>>();

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
    const states = this.windows.map((window) => ({ window, state: this.stateOf(key, window, nowMs) }));
    const spent = states.filter(({ window, state }) => state.count >= window.quota);
    if (spent.length === 0) for (const { state } of states) state.count++;
    const headers = {
      'RateLimit-Policy': this.policyHeader,
      RateLimit: states
        .map(({ window, state }) => {
          const remaining = Math.max(0, window.quota - state.count);
          return `"${window.name}";r=${remaining};t=${secondsUntilReset(state, window.lengthMs, nowMs)}`;
        })
        .join(', '),
    };
    if (spent.length === 0) return { headers };
    const waits = spent.map(({ window, state }) => ({
      window: window.name,
      retryAfterSeconds: secondsUntilReset(state, window.lengthMs, nowMs),
    }));
    const longest = waits.reduce((a, b) => (b.retryAfterSeconds > a.retryAfterSeconds ? b : a));
    return { exceeded: longest, headers: { ...headers, 'Retry-After': String(longest.retryAfterSeconds) } };
  }

  private stateOf(key: string, window: { name: RateWindow; lengthMs: number }, nowMs: number): WindowCount {
    let perKey = this.counts.get(key);
    if (!perKey) {
      perKey = new Map();
      this.counts.set(key, perKey);
    }
    const startMs = Math.floor(nowMs / window.lengthMs) * window.lengthMs;
    let state = perKey.get(window.name);
    if (!state || state.startMs !== startMs) {
      state = { startMs, count: 0 };
      perKey.set(window.name, state);
    }
    return state;
  }
}

function secondsUntilReset(state: WindowCount, lengthMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((state.startMs + lengthMs - nowMs) / 1000));
}
