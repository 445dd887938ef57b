import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { VirtualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/log.js';
import { InflightCounter } from '../../src/scheduler/inflight.js';

describe('api client hold', () => {
  it('counts work between requests as in flight until it settles, so a virtual clock waits for it', async () => {
    const inflight = new InflightCounter();
    const api = createApiClient({
      restBaseUrl: 'http://127.0.0.1:9/v2',
      graphqlBaseUrl: 'http://127.0.0.1:9/graphql',
      apiKey: 'rpa_test_key_0000',
      graphqlAuth: 'header',
      clock: new VirtualClock(0),
      log: silentLogger(),
      timeouts: { connectMs: 1_000, headersMs: 1_000, bodyMs: 1_000 },
      retries: { max: 0, baseDelayMs: 1_000, maxDelayMs: 1_000 },
      concurrency: 1,
      inflight,
    });
    let finish: (rows: number) => void = () => {};
    const held = api.hold(new Promise<number>((resolve) => (finish = resolve)));

    expect(inflight.count).toBe(1);
    let idle = false;
    const waiting = inflight.idle().then(() => (idle = true));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);

    finish(42);
    await expect(held).resolves.toBe(42);
    await waiting;
    expect(inflight.count).toBe(0);
    await api.close();
  });
});
