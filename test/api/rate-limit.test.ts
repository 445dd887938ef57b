import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { parseRateLimit, parseRateLimitPolicy, parseRetryAfter, RateLimitBudget } from '../../src/api/rate-limit.js';
import { VirtualClock } from '../../src/clock.js';

const POLICY = '"minute";q=60;w=60, "hour";q=3000;w=3600, "day";q=50000;w=86400';
const START = Date.UTC(2026, 5, 1, 12, 0, 0);

describe('RateLimit headers', () => {
  it('parses the document example of RateLimit into windows', () => {
    const parsed = parseRateLimit('"minute";r=0;t=12, "hour";r=2800;t=1812, "day";r=49500;t=45012');
    expect(Object.fromEntries(parsed)).toEqual({
      minute: { remaining: 0, resetSeconds: 12 },
      hour: { remaining: 2800, resetSeconds: 1812 },
      day: { remaining: 49500, resetSeconds: 45012 },
    });
  });

  it('parses RateLimit-Policy into quota and window length', () => {
    expect(parseRateLimitPolicy(POLICY).get('hour')).toEqual({ quota: 3000, windowSeconds: 3600 });
  });

  it('accepts unquoted names, odd spacing and unknown parameters, and skips broken members', () => {
    const parsed = parseRateLimit('minute;r=5;t=10;pk=:abc:,  "hour" ; r=7 ; t=20, "day";r=x;t=1, ');
    expect(Object.fromEntries(parsed)).toEqual({
      minute: { remaining: 5, resetSeconds: 10 },
      hour: { remaining: 7, resetSeconds: 20 },
    });
  });

  it('keeps commas and semicolons inside quoted names, reads keys in any case, and skips a malformed parameter', () => {
    const parsed = parseRateLimit('"a,b";r=1;t=2, "c;d";R=3;T=-4, e;r=1=2;t=5, ;r=1;t=1, f;r=6;t=7;');
    expect(Object.fromEntries(parsed)).toEqual({
      'a,b': { remaining: 1, resetSeconds: 2 },
      'c;d': { remaining: 3, resetSeconds: -4 },
      f: { remaining: 6, resetSeconds: 7 },
    });
  });

  it('treats absent headers as no windows', () => {
    expect(parseRateLimit(undefined).size).toBe(0);
    expect(parseRateLimitPolicy('').size).toBe(0);
  });
});

describe('Retry-After', () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('12', START, 60_000)).toBe(12_000);
  });

  it('reads an HTTP-date relative to the clock', () => {
    const date = new Date(START + 30_000).toUTCString();
    expect(parseRetryAfter(date, START, 60_000)).toBe(30_000);
  });

  it('caps long waits, floors past dates at zero and ignores garbage', () => {
    expect(parseRetryAfter('86400', START, 60_000)).toBe(60_000);
    expect(parseRetryAfter(new Date(START - 5_000).toUTCString(), START, 60_000)).toBe(0);
    expect(parseRetryAfter('soon', START, 60_000)).toBeUndefined();
  });
});

describe('RateLimitBudget', () => {
  it('imposes nothing without headers', () => {
    const budget = new RateLimitBudget(new VirtualClock(START));
    budget.observe(undefined, undefined, undefined);
    expect(budget.delayMs()).toBe(0);
    expect(budget.remaining()).toEqual([]);
  });

  it('exposes the remaining budget per window', () => {
    const clock = new VirtualClock(START);
    const budget = new RateLimitBudget(clock);
    budget.observe(undefined, '"minute";r=40;t=30, "hour";r=2800;t=1812', POLICY);
    expect(budget.remaining()).toEqual([
      { window: 'minute', remaining: 40, quota: 60, windowSeconds: 60, resetsAt: START + 30_000 },
      { window: 'hour', remaining: 2800, quota: 3000, windowSeconds: 3600, resetsAt: START + 1_812_000 },
    ]);
  });

  it('does not pace while the remaining share covers the time left', () => {
    const budget = new RateLimitBudget(new VirtualClock(START));
    budget.observe(undefined, '"minute";r=55;t=50', POLICY);
    expect(budget.delayMs()).toBe(0);
  });

  it('spreads the remaining requests over the time left once the share runs low', async () => {
    const clock = new VirtualClock(START);
    const budget = new RateLimitBudget(clock);
    budget.observe(undefined, '"minute";r=5;t=50', POLICY);
    await budget.acquire('GET /pods', 120_000); // nothing sent yet: the first goes at once
    // 4 left over 50 s: the next one waits 50/4 s after the first.
    expect(budget.delayMs()).toBe(12_500);
  });

  it('waits for the reset when a window is exhausted, and says how long when that is too long', async () => {
    const clock = new VirtualClock(START);
    const budget = new RateLimitBudget(clock);
    budget.observe(undefined, '"minute";r=0;t=12, "day";r=0;t=45012', POLICY);
    expect(budget.delayMs()).toBe(45_012_000);
    const error = await budget.acquire('GET /pods', 120_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).kind).toBe('rate_limited');
    expect((error as ApiError).message).toBe('GET /pods: rate-limit budget exhausted; next request allowed in 45012s');
  });

  it('counts requests sent after the one whose headers arrive', async () => {
    const budget = new RateLimitBudget(new VirtualClock(START));
    budget.observe(undefined, '"hour";r=2900;t=3000', POLICY);
    const first = await budget.acquire('a', 0);
    await budget.acquire('b', 0);
    await budget.acquire('c', 0);
    // The server counted `first` only; b and c are still in flight.
    budget.observe(first, '"hour";r=2890;t=2990', POLICY);
    expect(budget.remaining()[0]?.remaining).toBe(2888);
  });

  it('forgets a window once its reset time passes', async () => {
    const clock = new VirtualClock(START);
    const budget = new RateLimitBudget(clock);
    budget.observe(undefined, '"minute";r=0;t=12', POLICY);
    await clock.advanceBy(12_000);
    expect(budget.delayMs()).toBe(0);
    expect(budget.remaining()[0]?.remaining).toBeNull();
  });

  it('holds every request until a Retry-After has passed', async () => {
    const clock = new VirtualClock(START);
    const budget = new RateLimitBudget(clock);
    budget.blockFor(7_000);
    expect(budget.delayMs()).toBe(7_000);
    await clock.advanceBy(7_000);
    expect(budget.delayMs()).toBe(0);
  });
});
