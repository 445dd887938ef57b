import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { custom, json, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { drive, makeClient, RecordingClock, START, type TestClient } from './support.js';

let server: ScriptedServer;
let client: TestClient;

beforeEach(async () => {
  server = await startScriptedServer();
});

afterEach(async () => {
  await client?.close();
  await server.close();
});

const POLICY = '"minute";q=60;w=60, "hour";q=3000;w=3600';

describe('pacing from RateLimit headers', () => {
  it('spreads requests once the remaining share of a window runs low', async () => {
    client = makeClient(server.url);
    server.setFallback(json(200, { pods: [] }, { ratelimit: '"minute";r=5;t=50', 'ratelimit-policy': POLICY }));
    for (let i = 0; i < 3; i++) await drive(client.clock, client.rest.listPods());
    // 5 left for 50 s: one request every 10 s.
    expect(client.clock.sleeps).toEqual([10_000, 10_000]);
    expect(server.requests).toHaveLength(3);
  });

  it('waits for the reset when a window reports r=0', async () => {
    client = makeClient(server.url);
    server.enqueue(json(200, { pods: [] }, { ratelimit: '"minute";r=0;t=12, "hour";r=2800;t=1812' }));
    server.setFallback(json(200, { pods: [] }));
    await drive(client.clock, client.rest.listPods());
    await drive(client.clock, client.rest.listPods());
    expect(client.clock.sleeps).toEqual([12_000]);
    expect(client.budget.remaining().map((window) => window.window)).toEqual(['minute', 'hour']);
  });

  it('does not pace when the budget is comfortable or the headers are absent', async () => {
    client = makeClient(server.url);
    server.enqueue(json(200, { pods: [] }, { ratelimit: '"minute";r=59;t=58', 'ratelimit-policy': POLICY }));
    server.setFallback(json(200, { pods: [] }));
    for (let i = 0; i < 5; i++) await drive(client.clock, client.rest.listPods());
    expect(client.clock.sleeps).toEqual([]);
  });

  it.each([1, 2])(
    'keeps a steady workload under a real fixed-window limiter without a 429 (concurrency %i)',
    async (concurrency) => {
      const clock = new RecordingClock(START);
      const limiter = fixedWindowLimiter(clock, { quota: 10, windowMs: 60_000 });
      server.setFallback(custom((_request, response) => limiter.answer(response)));
      client = makeClient(server.url, { clock, concurrency });
      const worker = async () => {
        for (let i = 0; i < 15; i++) await client.rest.listPods();
      };
      await drive(clock, Promise.all([worker(), worker()]));
      expect(limiter.rejected).toBe(0);
      expect(limiter.served).toBe(30);
      // 30 requests at 10 per minute cannot finish before the third window opens.
      expect(clock.now()).toBeGreaterThanOrEqual(START + 120_000);
    },
  );
});

/** A RunPod-like limiter on the virtual clock: q requests per aligned window, headers on every answer. */
function fixedWindowLimiter(clock: RecordingClock, options: { quota: number; windowMs: number }) {
  const counts = new Map<number, number>();
  const state = { served: 0, rejected: 0 };
  return {
    get served() {
      return state.served;
    },
    get rejected() {
      return state.rejected;
    },
    answer(response: import('node:http').ServerResponse) {
      const now = clock.now();
      const window = Math.floor((now - START) / options.windowMs);
      const resetSeconds = Math.ceil((START + (window + 1) * options.windowMs - now) / 1000);
      const used = counts.get(window) ?? 0;
      const policy = `"minute";q=${options.quota};w=${options.windowMs / 1000}`;
      if (used >= options.quota) {
        state.rejected++;
        response.writeHead(429, {
          'content-type': 'application/problem+json',
          'retry-after': String(resetSeconds),
          ratelimit: `"minute";r=0;t=${resetSeconds}`,
          'ratelimit-policy': policy,
        });
        response.end(JSON.stringify({ title: 'Too Many Requests', status: 429, detail: 'rate limit exceeded' }));
        return;
      }
      counts.set(window, used + 1);
      state.served++;
      response.writeHead(200, {
        'content-type': 'application/json',
        ratelimit: `"minute";r=${options.quota - used - 1};t=${resetSeconds}`,
        'ratelimit-policy': policy,
      });
      response.end(JSON.stringify({ pods: [] }));
    },
  };
}
