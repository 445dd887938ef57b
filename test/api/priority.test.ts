import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RequestPriority, Semaphore } from '../../src/api/semaphore.js';
import { custom, type RecordedRequest, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { drive, makeClient, type TestClient } from './support.js';

let server: ScriptedServer;
let client: TestClient | undefined;

beforeEach(async () => {
  server = await startScriptedServer();
});

afterEach(async () => {
  await client?.close();
  client = undefined;
  await server.close();
});

/**
 * A billing backfill that fills every slot must not hold the minute's Pod poll back: billing
 * answers only when the test lets it, and the order in which the server received requests shows
 * who went first (no timing involved).
 */
describe('request priority', () => {
  it.each([1, 3])('sends the Pod poll before queued billing requests (concurrency %i)', async (concurrency) => {
    const held: Array<() => void> = [];
    server.setFallback(
      custom(async (request, response) => {
        if (request.path.startsWith('/v2/billing')) await new Promise<void>((resolve) => held.push(resolve));
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(request.path.startsWith('/v2/billing') ? {} : { pods: [] }));
      }),
    );
    const api = makeClient(server.url, { concurrency });
    client = api;
    const backfill = Array.from({ length: 6 }, (_, day) =>
      api.rest
        .billingPods({ startTime: `2026-11-0${day + 1}T00:00:00Z`, endTime: `2026-11-0${day + 2}T00:00:00Z` })
        // Only the order of the requests matters here, not what billing answered.
        .catch(() => undefined),
    );
    // The backfill holds every slot it may take before the Pod poll asks for one.
    const first = await server.waitForRequests(concurrency === 1 ? 1 : concurrency - 1);
    expect(first.every((request) => request.path.startsWith('/v2/billing'))).toBe(true);
    const poll = api.rest.listPods();
    const release = async () => {
      while (held.length > 0 || server.requests.length < 7) {
        const next = held.shift();
        if (next) next();
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await drive(api.clock, Promise.all([poll, ...backfill, release()]));
    const paths = server.requests.map((request: RecordedRequest) => request.path);
    expect(paths).toHaveLength(7);
    // With one slot the poll waits for the one billing answer in flight; with more, one slot is
    // kept for it and it goes out at once, before any billing answer has come back.
    const expectedAt = concurrency === 1 ? 1 : concurrency - 1;
    expect(paths.indexOf('/v2/pods')).toBe(expectedAt);
  });
});

describe('Semaphore', () => {
  it('hands a freed slot to the most urgent waiter, in arrival order within a priority', async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire('normal');
    const order: string[] = [];
    const wait = (priority: RequestPriority, name: string) =>
      semaphore.acquire(priority).then((done) => {
        order.push(name);
        done();
      });
    const all = Promise.all([
      wait('background', 'billing-1'),
      wait('normal', 'catalog'),
      wait('background', 'billing-2'),
      wait('urgent', 'pods'),
    ]);
    release();
    await all;
    expect(order).toEqual(['pods', 'catalog', 'billing-1', 'billing-2']);
  });

  it('keeps the last of several slots from background holders', async () => {
    const semaphore = new Semaphore(2);
    await semaphore.acquire('background');
    let second = false;
    void semaphore.acquire('background').then(() => {
      second = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(second).toBe(false);
    // The slot background may not take is there at once for the Pod poll.
    await semaphore.acquire('urgent');
  });
});
