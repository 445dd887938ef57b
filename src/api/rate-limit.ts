import type { Clock } from '../clock.js';
import { ApiError } from './errors.js';

/** What callers (metrics, status) see of one window. `remaining` is null once the window reset unseen. */
export interface RateLimitWindow {
  window: string;
  remaining: number | null;
  quota: number | null;
  windowSeconds: number | null;
  resetsAt: number;
}

/** Below this many requests left, a window without a published policy is spread over its time left. */
const LOW_WATER_WITHOUT_POLICY = 5;
/** How far (as a share of the quota) a burst may run ahead of an even spend before pacing starts. */
const BURST_SHARE = 0.1;

/** The windows of a `RateLimit` header: `"minute";r=0;t=12`. */
export function parseRateLimit(header: string | undefined) {
  return parseList(header, (params) =>
    params.r === undefined || params.t === undefined ? undefined : { remaining: params.r, resetSeconds: params.t },
  );
}

/** The windows of a `RateLimit-Policy` header: `"minute";q=60;w=60`. */
export function parseRateLimitPolicy(header: string | undefined) {
  return parseList(header, (params) =>
    params.q === undefined || params.w === undefined ? undefined : { quota: params.q, windowSeconds: params.w },
  );
}

/** `Retry-After` as delay-seconds or an HTTP-date, in ms from `now`, capped at `capMs`. */
export function parseRetryAfter(value: string | undefined, now: number, capMs: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  let delay: number;
  if (/^\d+(\.\d+)?$/.test(text)) delay = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    delay = at - now;
  }
  return Math.min(Math.max(0, delay), capMs);
}

/**
 * A structured-field list (RFC 8941 subset): comma-separated members, each a token or quoted
 * name followed by `;key=integer` parameters. Members and parameters that do not parse are skipped.
 */
function parseList<T>(
  header: string | undefined,
  build: (params: Record<string, number>) => T | undefined,
): Map<string, T> {
  const out = new Map<string, T>();
  for (const member of splitUnquoted(header ?? '', ',')) {
    const [rawName = '', ...rawParams] = splitUnquoted(member, ';');
    const name = rawName.trim();
    if (!name) continue;
    const params: Record<string, number> = {};
    for (const param of rawParams) {
      const match = PARAM.exec(param.trim());
      if (match?.[1] !== undefined) params[match[1].toLowerCase()] = Number(match[2]);
    }
    const entry = build(params);
    if (entry !== undefined) out.set(unquote(name), entry);
  }
  return out;
}

const PARAM = /^([a-z][a-z0-9_.*-]*)=(-?\d+)$/i;

/** `text` cut at every `separator` outside double quotes. */
function splitUnquoted(text: string, separator: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') quoted = !quoted;
    else if (!quoted && text[i] === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** `"minute"` is `minute`; anything else as it is. */
function unquote(text: string): string {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}

type WindowState = Omit<RateLimitWindow, 'window'> & { remaining: number };

/** A request counted against the budget, from send to response. */
export interface BudgetTicket {
  readonly seq: number;
}

/**
 * The account's request budget per window as the server last reported it. A window whose
 * remaining requests fall behind an even spend of its quota (beyond a small burst) spreads them
 * over its time left, so a steady workload never meets a 429; at zero we wait for the reset.
 */
export class RateLimitBudget {
  private readonly windows = new Map<string, WindowState>();
  private readonly inFlight = new Set<number>();
  private seq = 0;
  private lastSentAt = Number.NEGATIVE_INFINITY;
  private blockedUntil = Number.NEGATIVE_INFINITY;

  constructor(private readonly clock: Clock) {}

  /** Waits (on the clock) until a request may be sent, then counts it. */
  async acquire(op: string, maxWaitMs: number, signal?: AbortSignal): Promise<BudgetTicket> {
    for (;;) {
      const delay = this.delayMs();
      if (delay <= 0) return this.reserve();
      if (delay > maxWaitMs) {
        throw new ApiError({
          kind: 'rate_limited',
          op,
          message: `rate-limit budget exhausted; next request allowed in ${Math.ceil(delay / 1000)}s`,
          retryAfterMs: delay,
        });
      }
      await this.clock.sleep(delay, signal);
    }
  }

  /** Records the `RateLimit` / `RateLimit-Policy` headers of the response to `ticket`'s request. */
  observe(ticket: BudgetTicket | undefined, rateLimit: string | undefined, policy: string | undefined): void {
    const now = this.clock.now();
    const policies = parseRateLimitPolicy(policy);
    // Requests sent after this one are not in the server's count yet.
    const sentLater = ticket ? [...this.inFlight].filter((seq) => seq > ticket.seq).length : 0;
    for (const [name, entry] of parseRateLimit(rateLimit)) {
      const known = this.windows.get(name);
      const windowPolicy = policies.get(name);
      this.windows.set(name, {
        remaining: Math.max(0, entry.remaining - sentLater),
        resetsAt: now + entry.resetSeconds * 1000,
        quota: windowPolicy?.quota ?? known?.quota ?? null,
        windowSeconds: windowPolicy?.windowSeconds ?? known?.windowSeconds ?? null,
      });
    }
  }

  /** The request is answered (or failed); it no longer needs correcting for. */
  release(ticket: BudgetTicket): void {
    this.inFlight.delete(ticket.seq);
  }

  /** A 429's Retry-After: nothing is sent before it has passed. */
  blockFor(ms: number): void {
    this.blockedUntil = Math.max(this.blockedUntil, this.clock.now() + ms);
  }

  remaining(): RateLimitWindow[] {
    const now = this.clock.now();
    return [...this.windows].map(([window, state]) => ({
      window,
      remaining: now < state.resetsAt ? state.remaining : null,
      quota: state.quota,
      windowSeconds: state.windowSeconds,
      resetsAt: state.resetsAt,
    }));
  }

  /** How long from now before the next request may be sent. */
  delayMs(): number {
    const now = this.clock.now();
    let delay = this.blockedUntil - now;
    for (const state of this.windows.values()) delay = Math.max(delay, this.windowDelay(state, now));
    return Math.max(0, delay);
  }

  private windowDelay(state: WindowState, now: number): number {
    const timeLeft = state.resetsAt - now;
    if (timeLeft <= 0) return 0;
    if (state.remaining <= 0) return timeLeft;
    const low =
      state.quota !== null && state.windowSeconds !== null && state.quota > 0 && state.windowSeconds > 0
        ? state.remaining <
          evenShare(state.quota, state.windowSeconds, timeLeft) - Math.max(1, state.quota * BURST_SHARE)
        : state.remaining <= LOW_WATER_WITHOUT_POLICY;
    if (!low) return 0;
    return this.lastSentAt + timeLeft / state.remaining - now;
  }

  private reserve(): BudgetTicket {
    const now = this.clock.now();
    this.lastSentAt = now;
    for (const state of this.windows.values()) {
      if (now < state.resetsAt) state.remaining = Math.max(0, state.remaining - 1);
    }
    const ticket = { seq: this.seq++ };
    this.inFlight.add(ticket.seq);
    return ticket;
  }
}

/** What would be left now had the quota been spent evenly over the window. */
function evenShare(quota: number, windowSeconds: number, timeLeftMs: number): number {
  return (quota * Math.min(timeLeftMs, windowSeconds * 1000)) / (windowSeconds * 1000);
}
