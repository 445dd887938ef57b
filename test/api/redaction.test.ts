import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  custom,
  destroy,
  hang,
  json,
  type ScriptedServer,
  startScriptedServer,
  text,
} from '../helpers/scripted-server.js';
import { documentExample } from './document.js';
import { drive, makeClient, rejectionOf, type TestClient } from './support.js';

const CANARY = 'rpa_CANARY_3f9c1d2b7e5a4c8d';

let server: ScriptedServer;
let client: TestClient;
const errors: Error[] = [];

beforeEach(async () => {
  server = await startScriptedServer();
  errors.length = 0;
});

afterEach(async () => {
  await client?.close();
  await server.close();
});

/** A careless server that repeats the credentials it received in its answer. */
const echoCredentials = (status: number) =>
  custom((request, response) => {
    response.writeHead(status, { 'content-type': 'application/problem+json' });
    const detail = `bad credentials: ${request.headers.authorization ?? ''} at ${request.url}`;
    response.end(JSON.stringify({ title: 'Echo', status, detail, errors: [`key ${CANARY}`] }));
  });

async function failure(work: Promise<unknown>): Promise<void> {
  errors.push(await rejectionOf(drive(client.clock, work)));
}

function leaks(): string[] {
  const printed = [
    client.captured.text(),
    ...errors.flatMap((error) => [error.message, inspect(error, { depth: 10 }), JSON.stringify(error)]),
  ];
  return printed.filter((text) => text.includes(CANARY));
}

describe('the API key never shows', () => {
  it('in logs and errors of REST calls: success, retries, echoes, resets and timeouts', async () => {
    client = makeClient(server.url, {
      apiKey: CANARY,
      timeouts: { connectMs: 300, headersMs: 300, bodyMs: 300 },
      retries: { max: 1, baseDelayMs: 10, maxDelayMs: 10 },
    });
    server.enqueue(json(200, documentExample('get', '/v2/pods/{id}')));
    await drive(client.clock, client.rest.getPod(CANARY));
    server.enqueue(echoCredentials(503), echoCredentials(503));
    await failure(client.rest.listPods());
    server.enqueue(echoCredentials(401));
    await failure(client.rest.podAction('pod-1', 'stop'));
    server.enqueue(text(200, `{"pods": [ ${CANARY}`));
    await failure(client.rest.listClusters());
    server.enqueue(destroy(), destroy());
    await failure(client.rest.listEndpoints());
    server.enqueue(hang(), hang());
    await failure(client.rest.listNetworkVolumes());

    expect(server.requests.every((request) => request.headers.authorization === `Bearer ${CANARY}`)).toBe(true);
    expect(errors).toHaveLength(5);
    expect(client.captured.lines.length).toBeGreaterThan(8);
    expect(leaks()).toEqual([]);
    expect(errors[1]?.message).toContain('bad credentials: Bearer [REDACTED]');
  });

  it('in logs and errors of GraphQL calls that carry the key in the URL', async () => {
    client = makeClient(server.url, {
      apiKey: CANARY,
      graphqlAuth: 'query',
      retries: { max: 0, baseDelayMs: 1, maxDelayMs: 1 },
    });
    server.enqueue(echoCredentials(500), echoCredentials(400), echoCredentials(410));
    await failure(client.graphql.podsWithRuntime());
    await failure(client.graphql.podStop('p1'));
    await failure(client.graphql.gpuTypesStock({ gpuCount: 1 }));
    server.enqueue(json(200, { errors: [{ message: `denied for ${CANARY}` }] }));
    await failure(client.graphql.podsWithRuntime());

    expect(server.requests.every((request) => request.query.get('api_key') === CANARY)).toBe(true);
    expect(errors[0]?.message).toContain('api_key=[REDACTED]');
    expect(leaks()).toEqual([]);
  });
});
