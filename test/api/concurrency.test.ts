import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { custom, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { drive, makeClient, type TestClient } from './support.js';

let server: ScriptedServer;
let client: TestClient;

beforeEach(async () => {
  server = await startScriptedServer();
});

afterEach(async () => {
  await client?.close();
  await server.close();
});

describe('concurrency limit', () => {
  it.each([1, 2])('keeps at most %i requests in flight across REST and GraphQL', async (concurrency) => {
    let active = 0;
    let maxActive = 0;
    server.setFallback(
      custom(async (request, response) => {
        active++;
        maxActive = Math.max(maxActive, active);
        // Hold each answer briefly so that requests the client lets through overlap here.
        await new Promise((resolve) => setTimeout(resolve, 30));
        active--;
        response.writeHead(200, { 'content-type': 'application/json' });
        const body = request.path === '/graphql' ? { data: { myself: { pods: [] } } } : { pods: [] };
        response.end(JSON.stringify(body));
      }),
    );
    client = makeClient(server.url, { concurrency });
    await drive(
      client.clock,
      Promise.all([
        client.rest.listPods(),
        client.graphql.podsWithRuntime(),
        client.rest.listPods(),
        client.graphql.podsWithRuntime(),
      ]),
    );
    expect(server.requests).toHaveLength(4);
    expect(maxActive).toBe(concurrency);
  });
});

describe('in-flight tracking for virtual time', () => {
  it('reports each HTTP exchange as in flight, and never a wait on the clock', async () => {
    let active = 0;
    const seenAtSleep: number[] = [];
    const inflight = {
      tracked: 0,
      async track<T>(work: Promise<T>): Promise<T> {
        this.tracked++;
        active++;
        try {
          return await work;
        } finally {
          active--;
        }
      },
    };
    client = makeClient(server.url, { inflight });
    const unavailable = custom((_request, response) => {
      response.writeHead(503, { 'content-type': 'application/problem+json' });
      response.end(JSON.stringify({ title: 'Service Unavailable', status: 503, detail: 'busy' }));
    });
    server.enqueue(unavailable, unavailable);
    server.setFallback(custom((_request, response) => void response.end(JSON.stringify({ pods: [] }))));
    const sleeping = client.clock.nextSleep().then(() => seenAtSleep.push(active));
    await drive(client.clock, client.rest.listPods());
    await sleeping;
    expect(inflight.tracked).toBe(3);
    expect(client.clock.sleeps).toHaveLength(2);
    expect(seenAtSleep).toEqual([0]);
    expect(active).toBe(0);
  });
});
