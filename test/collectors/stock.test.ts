import { afterEach, describe, expect, it } from 'vitest';
import { GRAPHQL_RETIREMENT_EARLIEST } from '../../src/api/graphql.js';
import { createApiClient, NoDataError } from '../../src/api/index.js';
import { billingCollector } from '../../src/collectors/billing.js';
import { catalogCollector } from '../../src/collectors/catalog.js';
import { runCollector } from '../../src/collectors/run.js';
import { stockCollector } from '../../src/collectors/stock.js';
import { recentRuns } from '../../src/db/collector-runs.js';
import { latestGpuStock } from '../../src/db/stock.js';
import { ACCOUNT, type Harness } from '../helpers/harness.js';
import { json, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { gpuStockHistory } from '../helpers/store.js';
import { calmSmallTeam, HOUR, runAt, smallTeam, useTunedHarness } from './billing-support.js';

const harness = useTunedHarness();
const H200 = 'NVIDIA H200';
const H100 = 'NVIDIA H100 80GB HBM3';

async function stockHistory(h: Harness, gpuTypeId: string, cloud: 'SECURE' | 'COMMUNITY') {
  return (await gpuStockHistory(h.db, { account: ACCOUNT, gpuTypeId, cloud })).map((row) => ({
    stockStatus: row.stockStatus,
    availableGpuCounts: row.availableGpuCounts,
    since: (row.sinceAt - h.scenario.startMs) / HOUR,
    lastSeen: (row.lastSeenAt - h.scenario.startMs) / HOUR,
  }));
}

/** Runs `work` under the harness clock and hands back what it threw. */
async function rejection(h: Harness, work: Promise<unknown>): Promise<unknown> {
  return h.drive(
    work.then(
      () => undefined,
      (error: unknown) => error,
    ),
  );
}

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** Runs the stock collector once per answer, each served as `{ data: { gpuTypes } }` by a scripted server. */
async function runOnAnswers(h: Harness, answers: unknown[][]) {
  const server = await startScriptedServer();
  servers.push(server);
  for (const gpuTypes of answers) server.enqueue(json(200, { data: { gpuTypes } }));
  const api = createApiClient({
    restBaseUrl: `${server.url}/v2`,
    graphqlBaseUrl: `${server.url}/graphql`,
    apiKey: 'rpa_test_key_0000',
    graphqlAuth: 'header',
    clock: h.clock,
    log: h.context().log,
    timeouts: { connectMs: 2_000, headersMs: 5_000, bodyMs: 5_000 },
    retries: { max: 0, baseDelayMs: 1_000, maxDelayMs: 1_000 },
    concurrency: 1,
  });
  const reports = [];
  for (const [index] of answers.entries()) {
    await h.clock.advanceTo(h.scenario.startMs + index * HOUR);
    reports.push(await h.drive(runCollector(stockCollector, { ...h.context(), api, timeoutMs: 60_000 })));
  }
  await api.close();
  return reports;
}

describe('stock collector', () => {
  it('stores stock status and available GPU counts per GPU type and cloud, a row per change', async () => {
    const h = await harness(calmSmallTeam());
    // small-team: H200 has no stock until 9h, then LOW until 15h.
    for (const at of [0, 4 * HOUR, 9 * HOUR, 10 * HOUR])
      expect((await runAt(h, stockCollector, at)).outcome).toBe('ok');

    expect(await stockHistory(h, H200, 'SECURE')).toEqual([
      { stockStatus: 'None', availableGpuCounts: [], since: 0, lastSeen: 4 },
      { stockStatus: 'Low', availableGpuCounts: [1, 2, 4, 8], since: 9, lastSeen: 10 },
    ]);
    const latest = await latestGpuStock(h.db, ACCOUNT);
    expect(latest.find((row) => row.gpuTypeId === H100 && row.cloud === 'COMMUNITY')).toMatchObject({
      stockStatus: 'Medium',
      uninterruptablePrice: 2.69,
    });
    expect(new Set(latest.map((row) => row.cloud))).toEqual(new Set(['SECURE', 'COMMUNITY']));
    expect(latest.length).toBe(2 * h.scenario.catalog.gpus.length);
    // Both clouds come from one GraphQL request per run.
    const graphql = h.sim.requestLog.entries().filter((entry) => entry.path === '/graphql');
    expect(graphql.map((entry) => entry.status)).toEqual([200, 200, 200, 200]);
  });

  it('a GPU type the schema rejects keeps its stock as last read, the others are stored, and the run names it', async () => {
    const h = await harness(calmSmallTeam());
    const gpu = (id: string, stockStatus: unknown) => ({ id, secure: { stockStatus }, community: null });
    const [first, second] = await runOnAnswers(h, [
      [gpu('GPU A', 'High'), gpu('GPU B', 'High')],
      [gpu('GPU A', 'Low'), gpu('GPU B', 5)],
    ]);

    expect(first?.outcome).toBe('ok');
    expect(second?.outcome).toBe('ok');
    expect(second?.detail).toBe(
      '1 GPU type rejected by the schema, its stock kept as last read: gpuTypes[1] (GPU B): ' +
        'response body data.gpuTypes[1].secure.stockStatus: expected string, received number',
    );
    const [run] = await recentRuns(h.db, { collector: 'stock', limit: 1 });
    expect(run).toMatchObject({ outcome: 'ok', detail: second?.detail });
    const secure = (await latestGpuStock(h.db, ACCOUNT)).filter((row) => row.cloud === 'SECURE');
    expect(secure.map((row) => [row.gpuTypeId, row.stockStatus])).toEqual([
      ['GPU A', 'Low'],
      ['GPU B', 'High'],
    ]);
  });

  it('with GraphQL retired (410) reports no data, while catalog and billing go on', async () => {
    const h = await harness(
      smallTeam((scenario) => {
        scenario.faults = [{ from: '0s', to: '30d', match: '/graphql', kind: 'status', status: 410 }];
      }),
    );
    const error = await rejection(h, stockCollector.collect(h.context()));
    expect(error).toBeInstanceOf(NoDataError);
    expect((error as Error).message).toContain('410');

    const reports = [];
    for (const collector of [stockCollector, catalogCollector, billingCollector])
      reports.push(await runAt(h, collector, HOUR));
    expect(reports.map((report) => [report.collector, report.outcome])).toEqual([
      ['stock', 'no_data'],
      ['catalog', 'ok'],
      ['billing', 'ok'],
    ]);
    expect((await recentRuns(h.db, { collector: 'stock', limit: 5 })).map((run) => run.outcome)).toEqual(['no_data']);
    expect(h.db.sqlite.prepare('SELECT count(*) AS n FROM gpu_stock').get()).toEqual({ n: 0 });
    expect(
      (h.db.sqlite.prepare('SELECT count(*) AS n FROM gpu_availability').get() as { n: number }).n,
    ).toBeGreaterThan(0);
  });

  it('with a 404 from GraphQL before its retirement date fails the run instead of reporting no data', async () => {
    const h = await harness(
      smallTeam((scenario) => {
        scenario.faults = [{ from: '0s', to: '30d', match: '/graphql', kind: 'status', status: 404 }];
      }),
    );
    expect(h.scenario.startMs + HOUR).toBeLessThan(GRAPHQL_RETIREMENT_EARLIEST);
    const report = await runAt(h, stockCollector, HOUR);
    expect(report.outcome).toBe('error');
    expect(report.error).toContain('404');
    expect(report.error).toContain('check api.graphqlBaseUrl');
    expect((await recentRuns(h.db, { collector: 'stock', limit: 5 })).map((run) => run.outcome)).toEqual(['error']);
  });

  it('reports no data without asking when GraphQL is disabled in the config', async () => {
    const h = await harness(calmSmallTeam(), (config) => {
      config.api.graphql.enabled = false;
    });
    const error = await rejection(h, stockCollector.collect(h.context()));

    expect(error).toBeInstanceOf(NoDataError);
    expect((error as Error).message).toContain('api.graphql.enabled');
    expect(h.sim.requestLog.counts().total).toBe(0);
  });
});
