import { afterEach, describe, expect, it } from 'vitest';
import { type ApiRequest, HttpTransport } from '../../src/api/http.js';
import { RateLimitBudget } from '../../src/api/rate-limit.js';
import { VirtualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/log.js';
import { json, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { START } from './support.js';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

function transport(rest: string, graphql: string): HttpTransport {
  const clock = new VirtualClock(START);
  return new HttpTransport(
    {
      restBaseUrl: rest,
      graphqlBaseUrl: graphql,
      apiKey: "rpa_key'with.odd/chars",
      graphqlAuth: 'query',
      clock,
      log: silentLogger(),
      timeouts: { connectMs: 2_000, headersMs: 5_000, bodyMs: 5_000 },
      retries: { max: 0, baseDelayMs: 1_000, maxDelayMs: 1_000 },
      concurrency: 1,
    },
    new RateLimitBudget(clock),
  );
}

const requests: ApiRequest[] = [
  { target: 'rest', method: 'GET', route: '/pods', idempotent: true },
  { target: 'rest', method: 'GET', route: '/pods/{id}', params: { id: 'pod-1' }, idempotent: true },
  { target: 'rest', method: 'GET', route: '/pods/{id}', params: { id: 'a b/ü#?' }, idempotent: true },
  { target: 'rest', method: 'GET', route: '/pods/{id}', params: { id: '..' }, idempotent: true },
  { target: 'rest', method: 'GET', route: '/pods/{id}/stop', params: { id: '.' }, idempotent: true },
  { target: 'rest', method: 'GET', route: '/pods/{id}', params: { id: '%2e%2e' }, idempotent: true },
  {
    target: 'rest',
    method: 'GET',
    route: '/billing/pods',
    query: { q: "it's", list: ['a,b', "c'd", 'é'], n: 5, flag: true, none: undefined },
    idempotent: true,
  },
  { target: 'graphql', method: 'POST', route: '/graphql', body: { query: '{ myself { id } }' }, idempotent: true },
];

describe('the request line', () => {
  it('is the same whether the URL is parsed again or handed over as origin and path', async () => {
    const server = await startScriptedServer(json(200, {}));
    servers.push(server);
    // An upper-case scheme is not how URL parsing writes it back: this transport parses every URL.
    const parsed = transport(
      `${server.url.replace('http:', 'HTTP:')}/v2`,
      `${server.url.replace('http:', 'HTTP:')}/graphql`,
    );
    const direct = transport(`${server.url}/v2`, `${server.url}/graphql`);
    try {
      for (const req of requests) {
        await parsed.send(req);
        await direct.send(req);
      }
    } finally {
      await parsed.close();
      await direct.close();
    }
    const lines = server.requests.map((r) => `${r.method} ${r.url}`);
    expect(lines).toHaveLength(2 * requests.length);
    for (let i = 0; i < requests.length; i++) expect(lines[2 * i + 1], lines[2 * i]).toBe(lines[2 * i]);
    // Normalised by URL parsing on both roads, not sent as written.
    expect(lines).toContain('GET /v2/');
    expect(lines.some((line) => line.includes("'"))).toBe(false);
  });
});
