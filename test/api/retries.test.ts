import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { destroy, json, problem, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { documentExample } from './document.js';
import { drive, makeClient, rejectionOf, START, type TestClient } from './support.js';

let server: ScriptedServer;
let client: TestClient;

beforeEach(async () => {
  server = await startScriptedServer();
});

afterEach(async () => {
  await client?.close();
  await server.close();
});

const pod = () => documentExample('get', '/v2/pods/{id}');
const unavailable = () => problem(503, 'Service Unavailable', 'upstream busy');

describe('retries of idempotent requests', () => {
  it('retries a GET on 5xx with exponential backoff, then returns the answer', async () => {
    client = makeClient(server.url);
    server.enqueue(unavailable(), problem(502, 'Bad Gateway', 'no upstream'), json(200, pod()));
    const result = await drive(client.clock, client.rest.getPod('pod-1'));
    expect(result.id).toBe('7h9k2m4n6p');
    expect(server.requests).toHaveLength(3);
    // random() = 1 takes the top of each jitter range: base·2^attempt.
    expect(client.clock.sleeps).toEqual([1_000, 2_000]);
    expect(client.events.map((event) => event.status)).toEqual([503, 502, 200]);
    expect(client.events.every((event) => event.route === '/pods/{id}' && event.method === 'GET')).toBe(true);
    const lines = client.captured.lines.map((line) => JSON.parse(line));
    const debug = lines.filter((line) => line.level === 20);
    expect(debug.map((line) => [line.route, line.status, typeof line.durationMs])).toEqual([
      ['/pods/{id}', 503, 'number'],
      ['/pods/{id}', 502, 'number'],
      ['/pods/{id}', 200, 'number'],
    ]);
    const warnings = lines.filter((line) => line.level === 40);
    expect(warnings.map((line) => [line.attempt, line.delayMs])).toEqual([
      [1, 1_000],
      [2, 2_000],
    ]);
  });

  it('draws each delay from the upper half of its range and respects the cap', async () => {
    client = makeClient(server.url, { random: () => 0, retries: { max: 3, baseDelayMs: 1_000, maxDelayMs: 3_000 } });
    server.enqueue(unavailable(), unavailable(), unavailable(), json(200, pod()));
    await drive(client.clock, client.rest.getPod('pod-1'));
    expect(client.clock.sleeps).toEqual([500, 1_000, 1_500]);
  });

  it('gives up after the configured retries with a transient error that says so', async () => {
    client = makeClient(server.url, { retries: { max: 2, baseDelayMs: 100, maxDelayMs: 1_000 } });
    server.setFallback(unavailable());
    const error = await rejectionOf(drive(client.clock, client.rest.getPod('pod-1')));
    expect(server.requests).toHaveLength(3);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).kind).toBe('transient');
    expect((error as ApiError).status).toBe(503);
    expect(error.message).toBe('GET /pods/{id} (pod-1): 503 Service Unavailable: upstream busy [after 3 attempts]');
  });

  it('retries a GET after a connection reset', async () => {
    client = makeClient(server.url);
    server.enqueue(destroy(), json(200, { pods: [pod()] }));
    const pods = await drive(client.clock, client.rest.listPods());
    expect(pods.items).toHaveLength(1);
    expect(client.events.map((event) => event.status)).toEqual(['error', 200]);
  });

  it('does not retry a 4xx other than 429', async () => {
    client = makeClient(server.url);
    server.enqueue(problem(404, 'Not Found', 'pod not found'));
    const error = await rejectionOf(drive(client.clock, client.rest.getPod('pod-1')));
    expect(server.requests).toHaveLength(1);
    expect((error as ApiError).kind).toBe('not_found');
    expect(error.message).toBe('GET /pods/{id} (pod-1): 404 Not Found: pod not found');
  });
});

describe('503 Service Unavailable with Retry-After', () => {
  const busyFor = (retryAfter: string) =>
    problem(503, 'Service Unavailable', 'maintenance', { headers: { 'retry-after': retryAfter } });

  it('waits the Retry-After seconds instead of its own backoff, then retries a GET', async () => {
    client = makeClient(server.url);
    server.enqueue(busyFor('45'), json(200, { pods: [] }));
    await drive(client.clock, client.rest.listPods());
    expect(server.requests).toHaveLength(2);
    expect(client.clock.sleeps).toEqual([45_000]);
    expect(client.clock.now()).toBe(START + 45_000);
  });

  it('gives up at once when the Retry-After is beyond the longest wait we accept', async () => {
    client = makeClient(server.url, { maxRateLimitWaitMs: 60_000 });
    server.enqueue(busyFor('600'));
    const error = await rejectionOf(drive(client.clock, client.rest.listPods()));
    expect(server.requests).toHaveLength(1);
    expect((error as ApiError).kind).toBe('transient');
    expect(error.message).toBe(
      'GET /pods: 503 Service Unavailable: maintenance [not retried: Retry-After 600s exceeds the 60s limit]',
    );
  });
});

describe('POST /pods/{id}/action is never repeated blindly', () => {
  it('does not retry a 503 and reports that the outcome is unknown', async () => {
    client = makeClient(server.url);
    server.setFallback(unavailable());
    const error = await rejectionOf(drive(client.clock, client.rest.podAction('pod-1', 'stop')));
    expect(server.requests).toHaveLength(1);
    expect(client.clock.sleeps).toEqual([]);
    expect((error as ApiError).kind).toBe('transient');
    expect(error.message).toBe(
      'POST /pods/{id}/action (pod-1, stop): 503 Service Unavailable: upstream busy ' +
        '[not retried: POST /pods/{id}/action is not idempotent, the outcome is unknown]',
    );
  });

  it('does not retry after a connection reset either', async () => {
    client = makeClient(server.url);
    server.setFallback(destroy());
    const error = await rejectionOf(drive(client.clock, client.rest.podAction('pod-1', 'stop')));
    expect(server.requests).toHaveLength(1);
    expect(error.message).toMatch(/^POST \/pods\/\{id\}\/action \(pod-1, stop\): connection reset .*\[not retried/);
  });
});

describe('429 Too Many Requests', () => {
  const tooMany = (retryAfter: string) =>
    problem(429, 'Too Many Requests', 'rate limit exceeded for the minute window', {
      headers: { 'retry-after': retryAfter },
    });

  it('waits Retry-After seconds, then retries a GET', async () => {
    client = makeClient(server.url);
    server.enqueue(tooMany('12'), json(200, { pods: [] }));
    await drive(client.clock, client.rest.listPods());
    expect(server.requests).toHaveLength(2);
    expect(client.clock.sleeps).toEqual([12_000]);
    expect(client.clock.now()).toBe(START + 12_000);
  });

  it('waits until a Retry-After HTTP-date, then retries even a POST action', async () => {
    client = makeClient(server.url);
    server.enqueue(tooMany(new Date(START + 30_000).toUTCString()), json(200, pod()));
    const result = await drive(client.clock, client.rest.podAction('pod-1', 'stop'));
    expect(result?.id).toBe('7h9k2m4n6p');
    expect(server.requests.map((request) => [request.method, request.body])).toEqual([
      ['POST', '{"action":"stop"}'],
      ['POST', '{"action":"stop"}'],
    ]);
    expect(client.clock.sleeps).toEqual([30_000]);
  });

  it('gives up at once when Retry-After is beyond the longest wait we accept', async () => {
    client = makeClient(server.url, { maxRateLimitWaitMs: 60_000 });
    server.enqueue(tooMany('3600'));
    const error = await rejectionOf(drive(client.clock, client.rest.listPods()));
    expect(server.requests).toHaveLength(1);
    expect((error as ApiError).kind).toBe('rate_limited');
    expect((error as ApiError).retryAfterMs).toBe(3_600_000);
    expect(error.message).toBe(
      'GET /pods: 429 Too Many Requests: rate limit exceeded for the minute window ' +
        '[not retried: Retry-After 3600s exceeds the 60s limit]',
    );
  });
});
