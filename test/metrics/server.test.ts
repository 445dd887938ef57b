import { createServer } from 'node:net';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { type MetricsServer, startMetricsServer } from '../../src/web/server.js';
import { type DaemonHarness, onePodScenario, startDaemonHarness, startDaemonServer } from './support.js';

const TOKEN = 'metrics-test-token';

const scenario = onePodScenario('metrics-server');

let server: MetricsServer | undefined;

async function start(token?: string): Promise<{ h: DaemonHarness; server: MetricsServer }> {
  const started = await startDaemonServer(scenario, (config) => {
    if (token) config.http.bearerToken = token;
  });
  server = started.server;
  return started;
}

async function get(path: string, token?: string, method: 'GET' | 'POST' = 'GET') {
  if (!server) throw new Error('no server');
  const response = await request(`${server.url}${path}`, {
    method,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
}

describe('the metrics and status server', () => {
  it('listens where http.listen says and answers /healthz, /metrics, and 404/405 for the rest', async () => {
    const { server } = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(metrics.body).toContain('podwarden_build_info{');
    expect((await get('/nope')).status).toBe(404);
    const post = await get('/metrics', undefined, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('is unready until Pods are collected, and again when the Pod collector stalls', async () => {
    const { h } = await start();
    const initially = await get('/readyz');
    expect(initially.status).toBe(503);
    expect(initially.body).toContain('account sim: Pods not collected successfully yet');

    await h.drive(h.daemon.collect('pods', 'sim'));
    expect(await get('/readyz')).toMatchObject({ status: 200, body: 'ready\n' });

    // The pods schedule is every minute: two intervals without a success is a stall.
    await h.clock.advanceBy(2 * 60_000);
    expect((await get('/readyz')).status).toBe(200);
    await h.clock.advanceBy(1_000);
    const stalled = await get('/readyz');
    expect(stalled.status).toBe(503);
    expect(stalled.body).toBe('not ready: account sim: Pods last collected 2m1s ago (limit 2m)\n');

    await h.drive(h.daemon.collect('pods', 'sim'));
    expect((await get('/readyz')).status).toBe(200);
  });

  it('is unready and fails scrapes once the database is closed', async () => {
    const { h } = await start();
    await h.drive(h.daemon.collect('pods', 'sim'));
    h.daemon.db.close();
    const closed = await get('/readyz');
    expect(closed).toMatchObject({ status: 503, body: 'not ready: database: closed\n' });
    expect((await get('/healthz')).status).toBe(200);
    // A scrape that cannot read the database fails as a whole rather than serving half the metrics.
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(500);
    expect(metrics.body).toMatch(/^internal error: .*database connection is not open/);
  });

  it('requires the bearer token, when one is set, everywhere but the probes /healthz and /readyz', async () => {
    await start(TOKEN);
    for (const path of ['/metrics', '/api/status']) {
      const missing = await get(path);
      expect(missing.status, path).toBe(401);
      expect(missing.headers['www-authenticate']).toBe('Bearer realm="podwarden"');
      expect((await get(path, 'wrong-token')).status, path).toBe(401);
      expect((await get(path, `${TOKEN}x`)).status, path).toBe(401);
      expect((await get(path, TOKEN)).status, path).not.toBe(401);
    }
    // A Kubernetes probe sends no token; the probes say only ok, ready, or why not.
    expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    const ready = await get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatch(/^not ready: /);
    expect(await get('/metrics', TOKEN)).toMatchObject({ status: 200 });
  });

  it('reports collectors, readiness and rate limits as JSON on /api/status', async () => {
    const { h } = await start();
    await h.drive(h.daemon.collect('pods', 'sim'));
    const reply = await get('/api/status');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    const status = JSON.parse(reply.body);
    expect(status).toMatchObject({ now: '2026-11-02T09:00:00Z', ready: true, reasons: [] });
    const pods = status.collectors.find((c: { collector: string }) => c.collector === 'pods');
    expect(pods).toMatchObject({
      account: 'sim',
      schedule: '* * * * *',
      intervalSeconds: 60,
      lastSuccessAt: '2026-11-02T09:00:00Z',
      lastRun: { outcome: 'ok', rows: 2, error: null, detail: null },
    });
    const billing = status.collectors.find((c: { collector: string }) => c.collector === 'billing');
    expect(billing).toMatchObject({ lastSuccessAt: null, lastRun: null });
  });

  it('fails to start with the address in the message when the port is taken, and closes despite open connections', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    let h: DaemonHarness | undefined;
    try {
      h = await startDaemonHarness(scenario, (config) => {
        config.http.listen = `127.0.0.1:${port}`;
      });
      const log = silentLogger();
      await expect(startMetricsServer({ config: h.config, daemon: h.daemon, clock: h.clock, log })).rejects.toThrow(
        `metrics server: listen on 127.0.0.1:${port}: listen EADDRINUSE`,
      );
    } finally {
      taken.close();
      await h?.close();
    }

    const { server } = await start();
    // A keep-alive connection, as Prometheus holds one between scrapes.
    await get('/metrics');
    await server.close();
    await expect(request(`${server.url}/healthz`)).rejects.toThrow(/ECONNREFUSED/);
  });
});
