import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClientFor } from '../../src/api/from-config.js';
import { type ApiRequest, HttpTransport } from '../../src/api/http.js';
import type { ApiClient } from '../../src/api/index.js';
import type { LocalExchange } from '../../src/api/local-exchange.js';
import { RateLimitBudget } from '../../src/api/rate-limit.js';
import { silentLogger } from '../../src/log.js';
import { inProcessExchange } from '../../src/replay/in-process-exchange.js';
import { type Harness, startHarness } from '../helpers/harness.js';

/** small-team drops every /v2/ connection from 10h to 10h03m (its `reset` fault). */
const IN_RESET_WINDOW_MS = 10 * 3_600_000 + 60_000;

describe('the replay’s in-process road to the simulator', () => {
  let harness: Harness | undefined;
  let inProcess: ApiClient | undefined;
  afterEach(async () => {
    await inProcess?.close();
    await harness?.close();
  });

  async function start(): Promise<{ h: Harness; api: ApiClient }> {
    harness = await startHarness('small-team.yaml', (config) => {
      config.api.retries.max = 0;
    });
    const account = harness.config.accounts[0];
    if (!account) throw new Error('no account');
    inProcess = apiClientFor(harness.config, account, {
      clock: harness.clock,
      log: silentLogger(),
      local: inProcessExchange([harness.sim]),
    });
    return { h: harness, api: inProcess };
  }

  it('answers REST and GraphQL as HTTP does, through the same request log', async () => {
    const { h, api } = await start();
    await h.clock.advanceTo(h.scenario.startMs + 3_600_000);
    const overHttp = await h.drive(h.api.rest.listPods());
    const before = h.sim.requestLog.counts().total;
    const inside = await h.drive(api.rest.listPods());
    expect(inside.items.length).toBeGreaterThan(0);
    expect(inside).toEqual(overHttp);
    expect(await h.drive(api.graphql.gpuTypesStock({ gpuCount: 1 }))).toEqual(
      await h.drive(h.api.graphql.gpuTypesStock({ gpuCount: 1 })),
    );
    expect(h.sim.requestLog.counts().total).toBe(before + 3);
  });

  it('fails a dropped connection as undici does over a socket', async () => {
    const { h, api } = await start();
    await h.clock.advanceTo(h.scenario.startMs + IN_RESET_WINDOW_MS);
    const failure = (work: Promise<unknown>) =>
      h.drive(work).then(
        () => undefined,
        (error: Error) => error,
      );
    const overHttp = await failure(h.api.rest.listPods());
    const inside = await failure(api.rest.listPods());
    expect(overHttp?.message).toMatch(/connection reset/);
    expect(inside?.message).toBe(overHttp?.message);
    expect((inside as { kind?: string }).kind).toBe((overHttp as { kind?: string }).kind);
  });
});

describe('the in-process road and abort signals', () => {
  it('leaves no abort listener behind on a run’s signal once its answers are read', async () => {
    const h = await startHarness('small-team.yaml');
    const account = h.config.accounts[0];
    if (!account) throw new Error('no account');
    const api = apiClientFor(h.config, account, {
      clock: h.clock,
      log: silentLogger(),
      local: inProcessExchange([h.sim]),
    });
    try {
      const run = new AbortController();
      for (let i = 0; i < 12; i++) await h.drive(api.rest.listPods({}, { signal: run.signal }));
      expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    } finally {
      await api.close();
      await h.close();
    }
  });

  it('fails a request whose run is aborted while it is answered with the run’s reason', async () => {
    const h = await startHarness('small-team.yaml');
    const account = h.config.accounts[0];
    if (!account) throw new Error('no account');
    const run = new AbortController();
    const reason = new Error('shutting down');
    const simulators = inProcessExchange([h.sim]);
    const api = apiClientFor(h.config, account, {
      clock: h.clock,
      log: silentLogger(),
      // The run ends after the simulator has answered and before the client has read the answer.
      local: async (req) => {
        const reply = await simulators(req);
        run.abort(reason);
        return reply;
      },
    });
    try {
      const before = h.sim.requestLog.counts().total;
      const outcome = await h.drive(api.rest.listPods({}, { signal: run.signal })).then(
        () => 'answered',
        (error: unknown) => error,
      );
      expect(outcome).toBe(reason);
      expect(h.sim.requestLog.counts().total).toBe(before + 1);
      // Aborted before it leaves, it does not reach the simulator.
      expect(await h.drive(api.rest.listPods({}, { signal: run.signal })).catch((error: unknown) => error)).toBe(
        reason,
      );
      expect(h.sim.requestLog.counts().total).toBe(before + 1);
    } finally {
      await api.close();
      await h.close();
    }
  });
});

describe('the in-process request target', () => {
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

  it('is the one URL parsing makes of what the client wrote, as undici sends it over HTTP', async () => {
    const h = await startHarness('small-team.yaml');
    const account = h.config.accounts[0];
    if (!account) throw new Error('no account');
    const transport = (local?: LocalExchange) =>
      new HttpTransport(
        {
          restBaseUrl: account.restBaseUrl,
          graphqlBaseUrl: account.graphqlBaseUrl,
          apiKey: account.apiKey,
          graphqlAuth: 'query',
          clock: h.clock,
          log: silentLogger(),
          timeouts: { connectMs: 2_000, headersMs: 5_000, bodyMs: 5_000 },
          retries: { max: 0, baseDelayMs: 1_000, maxDelayMs: 1_000 },
          concurrency: 1,
          local,
        },
        new RateLimitBudget(h.clock),
      );
    const overHttp = transport();
    const inside = transport(inProcessExchange([h.sim]));
    try {
      for (const req of requests) {
        await h.drive(overHttp.send(req)).catch(() => {});
        await h.drive(inside.send(req)).catch(() => {});
      }
      const lines = h.sim.requestLog.entries().map((e) => `${e.method} ${e.path}?${e.query} ${e.status}`);
      expect(lines).toHaveLength(2 * requests.length);
      for (let i = 0; i < requests.length; i++) expect(lines[2 * i + 1], lines[2 * i]).toBe(lines[2 * i]);
      // Normalised by URL parsing on both roads, not sent as written.
      expect(lines.some((line) => line.startsWith('GET /v2/?'))).toBe(true);
      expect(lines.some((line) => line.includes("'"))).toBe(false);
    } finally {
      await overHttp.close();
      await inside.close();
      await h.close();
    }
  });
});
