import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { retryDelay } from '../../src/alerts/retry.js';
import { alertSettings } from '../../src/alerts/settings.js';
import { recordFindings } from '../../src/alerts/state.js';
import { queueForAlertmanager } from '../../src/channels/alertmanager.js';
import type { PostableAlert } from '../../src/channels/alertmanager-payload.js';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { claimRow } from '../../src/db/channel-outbox.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { MetricsSource } from '../../src/metrics/source.js';
import { hasPeer } from '../helpers/peers.js';
import { hang, type ScriptedServer, startScriptedServer, text } from '../helpers/scripted-server.js';
import { type SmtpPeer, startSmtp } from '../helpers/smtp.js';
import { rowsOf } from '../helpers/store.js';
import { type AlertBench, alertBench, budgetFinding, finding, MINUTE } from './support.js';

let bench: AlertBench | undefined;
let server: ScriptedServer | undefined;
let smtp: SmtpPeer | undefined;
let dir: string | undefined;
afterEach(async () => {
  bench?.close();
  await server?.close();
  await smtp?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  bench = server = smtp = dir = undefined;
});

/** A bench whose `alerts` section is parsed from YAML-shaped input, secret files and all. */
function benchWith(alerts: Record<string, unknown>, extra: Record<string, unknown> = {}): AlertBench {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-am-delivery-'));
  writeFileSync(join(dir, 'am-token'), 'token-from-file-0001\n');
  const parsed = parseConfig(
    { accounts: [{ name: 'sim', apiKey: 'sim-key-0001' }], alerts, ...extra },
    { env: {}, baseDir: dir },
  );
  return alertBench((config: Config) => {
    config.alerts = parsed.alerts;
    config.email = parsed.email;
  });
}

const posted = (server: ScriptedServer, index: number) =>
  JSON.parse(server.requests[index]?.body ?? '[]') as PostableAlert[];

describe('posting to Alertmanager', () => {
  it('sends the bearer token read from a file, and the alert as API v2 takes it', async () => {
    server = await startScriptedServer(text(200, ''));
    bench = benchWith({ alertmanager: { urls: [`${server.url}/`], bearerTokenFile: 'am-token' } });
    await bench.tick([budgetFinding('monthly', 'actual', 80)]);
    const [request] = await server.waitForRequests(1);
    expect([request?.method, request?.path]).toEqual(['POST', '/api/v2/alerts']);
    expect(request?.headers.authorization).toBe('Bearer token-from-file-0001');
    expect(request?.headers['content-type']).toBe('application/json');
    const [alert] = posted(server, 0);
    expect(Object.keys(alert ?? {})).toEqual(['labels', 'annotations', 'startsAt', 'endsAt']);
    expect(alert?.startsAt).toBe('2026-11-02T00:00:00Z');
    // Four resend intervals (1m by default) ahead.
    expect(alert?.endsAt).toBe('2026-11-02T00:04:00Z');
  });

  it('sends basic auth', async () => {
    server = await startScriptedServer(text(200, ''));
    bench = benchWith({
      alertmanager: { urls: [server.url], basicAuth: { username: 'podwarden', password: 's3cret' } },
    });
    await bench.tick([budgetFinding('monthly', 'actual', 80)]);
    const [request] = await server.waitForRequests(1);
    expect(request?.headers.authorization).toBe(`Basic ${Buffer.from('podwarden:s3cret').toString('base64')}`);
  });

  it('resends a firing alert every interval, then posts it resolved with endsAt = the resolve time', async () => {
    server = await startScriptedServer(text(200, ''));
    bench = benchWith({ alertmanager: { urls: [server.url], resendInterval: '2m' } });
    const budget = budgetFinding('monthly', 'actual', 80);
    await bench.run(5 * MINUTE, () => [budget]);
    await bench.tick([]);
    const resolvedAt = bench.clock.now();
    await bench.clock.advanceBy(MINUTE);
    await bench.tick([]);
    // Posted at 0, 2 and 4 minutes firing, at 5 resolved, and then nothing more.
    expect(server.requests.map((_, i) => posted(server as ScriptedServer, i)[0]?.endsAt)).toEqual([
      '2026-11-02T00:08:00Z',
      '2026-11-02T00:10:00Z',
      '2026-11-02T00:12:00Z',
      new Date(resolvedAt).toISOString().replace('.000', ''),
    ]);
    expect((await rowsOf(bench.db, ['alertmanager'])).map((row) => row.finishedAt)).toEqual([resolvedAt]);
  });

  it('keeps refused alerts, backs off, delivers them later, and counts all of it by account', async () => {
    server = await startScriptedServer(text(200, ''));
    server.enqueue(text(400, '{"code":400,"message":"bad alert"}'), text(503, 'starting'));
    bench = benchWith({ alertmanager: { urls: [server.url], resendInterval: '1h' } });
    const metrics = createMetrics({
      source: {
        db: bench.db,
        events: bench.events as unknown as MetricsSource['events'],
        enabledCollectors: () => [],
        rateLimits: () => [],
        databaseWriteProblem: () => undefined,
      },
      config: bench.config,
      clock: bench.clock,
    });
    const budget = budgetFinding('monthly', 'actual', 80);
    await bench.tick([budget]);
    expect((await rowsOf(bench.db, ['alertmanager']))[0]?.lastError).toBe(
      `POST ${server.url}/api/v2/alerts: HTTP 400: {"code":400,"message":"bad alert"}`,
    );
    const queued = await metrics.registry.getSingleMetricAsString('podwarden_alertmanager_alerts_queued');
    expect(queued).toContain(`podwarden_alertmanager_alerts_queued{alertmanager="${server.url}",account="sim"} 1`);
    // Nothing is tried before the backoff ends: one minute, then two.
    await bench.clock.advanceBy(retryDelay(1) - 1000);
    await bench.tick([budget]);
    expect(server.requests).toHaveLength(1);
    await bench.clock.advanceBy(1000);
    await bench.tick([budget]);
    expect(server.requests).toHaveLength(2);
    await bench.clock.advanceBy(retryDelay(2));
    await bench.tick([budget]);
    expect(server.requests).toHaveLength(3);
    expect((await rowsOf(bench.db, ['alertmanager'])).map((row) => [row.attempts, row.lastError])).toEqual([[0, null]]);

    const exposition = await metrics.registry.metrics();
    expect(exposition).toContain(
      `podwarden_alertmanager_alerts_sent_total{alertmanager="${server.url}",account="sim"} 1`,
    );
    expect(exposition).toContain(
      `podwarden_alertmanager_alerts_failed_total{alertmanager="${server.url}",account="sim"} 2`,
    );
    expect(exposition).toContain(`podwarden_alertmanager_alerts_queued{alertmanager="${server.url}",account="sim"} 0`);
    expect(exposition).toContain(
      `podwarden_alertmanager_alerts_sent_total{alertmanager="${server.url}",account="all"} 0`,
    );
    if (hasPeer('promtool', 'prometheus')) {
      // Our families only: prom-client's default nodejs_ ones have lint findings of their own.
      const ours = exposition
        .split('\n')
        .filter((line) => line.includes('podwarden_alertmanager_'))
        .join('\n');
      const lint = spawnSync('promtool', ['check', 'metrics'], { input: `${ours}\n`, encoding: 'utf8' });
      expect(lint.stdout + lint.stderr).toBe('');
      expect(lint.status).toBe(0);
    }
    metrics.close();
  });

  it('an attempt in doubt (a crash while posting) is made again once its lease, timeout + 1m, ends', async () => {
    server = await startScriptedServer(text(200, ''));
    bench = benchWith({ alertmanager: { urls: [server.url], timeout: '10s', resendInterval: '1h' } });
    const budget = budgetFinding('monthly', 'actual', 80);
    await bench.tick([]);
    // What a crash leaves: the row written and claimed, the POST's outcome never recorded.
    await recordFindings(bench.db, [budget], bench.clock.now(), alertSettings(bench.config));
    await queueForAlertmanager(bench.db, bench.config, bench.clock.now());
    const [row] = await rowsOf(bench.db, ['alertmanager']);
    expect(await claimRow(bench.db, row?.id ?? 0, bench.clock.now(), bench.clock.now() + 70_000)).toBe(true);
    await bench.clock.advanceBy(MINUTE);
    await bench.tick([budget]);
    expect(server.requests).toHaveLength(0);
    await bench.clock.advanceBy(10_000);
    await bench.tick([budget]);
    expect(server.requests).toHaveLength(1);
    expect((await rowsOf(bench.db, ['alertmanager'])).map((r) => [r.attempts, r.lastDeliveredAt])).toEqual([
      [0, bench.clock.now()],
    ]);
  });

  it('gives up on an attempt after the timeout, and keeps the alert', async () => {
    server = await startScriptedServer(hang());
    bench = benchWith({ alertmanager: { urls: [server.url], timeout: '200ms' } });
    await bench.tick([budgetFinding('monthly', 'actual', 80)]);
    expect((await rowsOf(bench.db, ['alertmanager'])).map((row) => [row.attempts, row.lastError])).toEqual([
      [1, `POST ${server.url}/api/v2/alerts: no answer within 200 ms`],
    ]);
  });

  it('routes per rule: budgets by email only, idle Pods to Alertmanager only', async () => {
    server = await startScriptedServer(text(200, ''));
    smtp = await startSmtp();
    bench = benchWith(
      { groupWait: '1s', route: { budget: ['email'], idle: ['alertmanager'] }, alertmanager: { urls: [server.url] } },
      {
        email: {
          host: '127.0.0.1',
          port: smtp.port,
          secure: 'none',
          from: 'pw@example.com',
          to: ['finance@example.com'],
        },
      },
    );
    const idle = finding('idle:sim:pod-1', { rule: 'idle', labels: { rule: 'idle', account: 'sim', pod_id: 'pod-1' } });
    await bench.tick([budgetFinding('monthly', 'actual', 80), idle]);
    await bench.clock.advanceBy(MINUTE);
    await bench.tick([budgetFinding('monthly', 'actual', 80), idle]);
    const [mail] = await smtp.waitFor(1);
    expect(mail?.alertKeys).toEqual(['budget:sim:monthly:actual:80']);
    expect(await bench.outbox()).toHaveLength(1);
    expect(
      server.requests.flatMap((_, i) => posted(server as ScriptedServer, i).map((a) => a.labels.alertname)),
      // Posted, then resent a minute later (the default resend interval).
    ).toEqual(['PodwardenIdle', 'PodwardenIdle']);
  });
});
