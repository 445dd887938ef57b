import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { hang, json, type ScriptedServer, stallBody, startScriptedServer } from '../helpers/scripted-server.js';
import { startFullBacklogListener } from './full-backlog.js';
import { drive, makeClient, rejectionOf, type TestClient } from './support.js';

let server: ScriptedServer;
let client: TestClient;

beforeEach(async () => {
  server = await startScriptedServer();
});

afterEach(async () => {
  await client?.close();
  await server.close();
});

const timeouts = { connectMs: 300, headersMs: 300, bodyMs: 300 };

describe('timeouts', () => {
  it('gives up on a server that never answers after the headers timeout, and retries a GET', async () => {
    client = makeClient(server.url, { timeouts, retries: { max: 1, baseDelayMs: 100, maxDelayMs: 100 } });
    server.setFallback(hang());
    const error = await rejectionOf(drive(client.clock, client.rest.listPods()));
    expect(server.requests).toHaveLength(2);
    expect((error as ApiError).kind).toBe('transient');
    expect(error.message).toBe('GET /pods: headers timeout: no response within 300ms [after 2 attempts]');
  });

  it('gives up on a body that stalls after the body timeout', async () => {
    client = makeClient(server.url, { timeouts, retries: { max: 0, baseDelayMs: 100, maxDelayMs: 100 } });
    server.setFallback(stallBody('{"pods":['));
    const error = await rejectionOf(drive(client.clock, client.rest.listPods()));
    expect((error as ApiError).kind).toBe('transient');
    expect(error.message).toBe('GET /pods: body timeout: response body stalled for 300ms');
    expect(client.events.map((event) => event.status)).toEqual([200]);
  });

  it('gives up on a connection that is never accepted after the connect timeout', async () => {
    const listener = await startFullBacklogListener();
    try {
      client = makeClient(`http://127.0.0.1:${listener.port}`, {
        timeouts,
        retries: { max: 0, baseDelayMs: 100, maxDelayMs: 100 },
      });
      const error = await rejectionOf(drive(client.clock, client.rest.listPods()));
      expect(error).toBeInstanceOf(ApiError);
      expect(error.message).toBe('GET /pods: connect timeout: no connection within 300ms');
      expect(client.events.map((event) => event.status)).toEqual(['error']);
    } finally {
      await listener.close();
    }
  });

  it('never retries a Pod action that timed out: it may have been applied', async () => {
    client = makeClient(server.url, { timeouts });
    server.setFallback(hang());
    const error = await rejectionOf(drive(client.clock, client.rest.podAction('pod-1', 'stop')));
    expect(server.requests).toHaveLength(1);
    expect(error.message).toContain('[not retried: POST /pods/{id}/action is not idempotent, the outcome is unknown]');
  });
});

describe('abort', () => {
  it("stops a call in flight with the caller's reason", async () => {
    client = makeClient(server.url);
    server.setFallback(hang());
    const controller = new AbortController();
    const call = client.rest.listPods({}, { signal: controller.signal });
    await server.waitForRequests(1);
    const reason = new Error('collector run timed out');
    controller.abort(reason);
    expect(await rejectionOf(call)).toBe(reason);
  });

  it("stops a call waiting for a rate-limit window with the caller's reason", async () => {
    client = makeClient(server.url);
    server.enqueue(json(200, { pods: [] }, { ratelimit: '"minute";r=0;t=50' }));
    await drive(client.clock, client.rest.listPods());
    const controller = new AbortController();
    const sleeping = client.clock.nextSleep();
    const call = client.rest.listPods({}, { signal: controller.signal });
    await sleeping;
    controller.abort(new Error('shutdown'));
    expect((await rejectionOf(call)).message).toBe('shutdown');
    expect(server.requests).toHaveLength(1);
  });
});
