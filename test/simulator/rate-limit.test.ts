import { afterEach, describe, expect, it } from 'vitest';
import { READ_ONLY_KEY, START_MS, startTestSim, type TestSim } from './harness.js';

let t: TestSim;
afterEach(async () => {
  await t?.sim.close();
});

const LIMITS = { minute: 3, hour: 5, day: 7 };
const POLICY = '"minute";q=3;w=60, "hour";q=5;w=3600, "day";q=7;w=86400';

async function expectAllowed(res: Response, rateLimit: string): Promise<void> {
  expect(res.status).toBe(200);
  expect(res.headers.get('ratelimit-policy')).toBe(POLICY);
  expect(res.headers.get('ratelimit')).toBe(rateLimit);
  expect(res.headers.get('retry-after')).toBeNull();
  await res.body?.cancel();
}

async function expectRefused(res: Response, window: string, retryAfter: number): Promise<void> {
  expect(res.status).toBe(429);
  expect(res.headers.get('retry-after')).toBe(String(retryAfter));
  expect(res.headers.get('ratelimit-policy')).toBe(POLICY);
  expect(await res.json()).toEqual({
    title: 'Too Many Requests',
    status: 429,
    detail: `rate limit exceeded for the ${window} window`,
  });
}

describe('simulator rate limits', () => {
  it('spends the minute, then the hour, then the day window, one at a time', async () => {
    t = await startTestSim({ rateLimit: LIMITS });
    // Minute window: three requests, then refused until the minute ends.
    await expectAllowed(await t.call('/v2/pods'), '"minute";r=2;t=60, "hour";r=4;t=3600, "day";r=6;t=86400');
    await expectAllowed(await t.call('/v2/pods'), '"minute";r=1;t=60, "hour";r=3;t=3600, "day";r=5;t=86400');
    await expectAllowed(await t.call('/v2/pods'), '"minute";r=0;t=60, "hour";r=2;t=3600, "day";r=4;t=86400');
    await expectRefused(await t.call('/v2/pods'), 'minute', 60);
    await t.clock.advanceBy(45_000);
    await expectRefused(await t.call('/v2/catalog/gpus'), 'minute', 15);

    // Next minute: the hour window runs out first.
    await t.clock.advanceTo(START_MS + 60_000);
    await expectAllowed(await t.call('/v2/pods'), '"minute";r=2;t=60, "hour";r=1;t=3540, "day";r=3;t=86340');
    await expectAllowed(await t.call('/v2/pods'), '"minute";r=1;t=60, "hour";r=0;t=3540, "day";r=2;t=86340');
    await expectRefused(await t.call('/v2/pods'), 'hour', 3540);

    // Next hour: then the day window.
    await t.clock.advanceTo(START_MS + 3_600_000);
    await expectAllowed(await t.call('/v2/pods'), '"minute";r=2;t=60, "hour";r=4;t=3600, "day";r=1;t=82800');
    await expectAllowed(await t.call('/v2/pods'), '"minute";r=1;t=60, "hour";r=3;t=3600, "day";r=0;t=82800');
    await expectRefused(await t.call('/v2/pods'), 'day', 82_800);
    await t.clock.advanceTo(START_MS + 86_400_000 - 1_000);
    await expectRefused(await t.call('/v2/pods'), 'day', 1);

    // Next day: everything is fresh again.
    await t.clock.advanceTo(START_MS + 86_400_000);
    await expectAllowed(await t.call('/v2/pods'), '"minute";r=2;t=60, "hour";r=4;t=3600, "day";r=6;t=86400');
    expect(t.sim.requestLog.counts().status429).toBe(5);
  });

  it('puts the headers on every authenticated response, not on 401s', async () => {
    t = await startTestSim({ rateLimit: { minute: 100 } });
    const notFound = await t.call('/v2/pods/no-such-pod');
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('ratelimit')).toBe('"minute";r=99;t=60');
    expect(notFound.headers.get('ratelimit-policy')).toBe('"minute";q=100;w=60');
    const forbidden = await t.call('/v2/pods/pod-train-1/action', {
      method: 'POST',
      body: JSON.stringify({ action: 'stop' }),
      key: READ_ONLY_KEY,
    });
    expect(forbidden.status).toBe(403);
    // Each key has its own quota.
    expect(forbidden.headers.get('ratelimit')).toBe('"minute";r=99;t=60');
    const unauthorized = await t.call('/v2/pods', { key: 'wrong' });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('ratelimit')).toBeNull();
    expect(unauthorized.headers.get('ratelimit-policy')).toBeNull();
  });

  it('sends no headers and sets no limit when the scenario has no rateLimit', async () => {
    t = await startTestSim();
    for (let i = 0; i < 20; i++) {
      const res = await t.call('/v2/pods');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit')).toBeNull();
      expect(res.headers.get('ratelimit-policy')).toBeNull();
      await res.body?.cancel();
    }
  });
});
