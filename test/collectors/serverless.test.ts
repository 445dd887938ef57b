import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/index.js';
import { affordable, ENDPOINT_WORKERS, serverlessCollector } from '../../src/collectors/serverless.js';
import { lastFetched } from '../../src/db/freshness.js';
import { ACCOUNT, type Harness } from '../helpers/harness.js';
import { liveEndpoints, workerSamplesBetween } from '../helpers/store.js';
import { billHourly } from '../rules/fixtures.js';
import { emptyScenario, HOUR, MINUTE, pollAt, T0, useHarness } from './support.js';

const harness = useHarness();

function endpoints(count: number, min = 1) {
  return Array.from({ length: count }, (_, index) => {
    const id = `ep-${String(index + 1).padStart(2, '0')}`;
    return {
      id,
      name: `endpoint-${index + 1}`,
      gpu: { pools: ['ADA_24'], count: 1 },
      workers: { min, max: 4 },
      pricePerWorkerHour: 0.5,
      load: [{ at: '0s', running: index % 3, idle: 1 }],
    };
  });
}

async function samplesAt(h: Harness, at: number) {
  return new Map(
    (await workerSamplesBetween(h.db, ACCOUNT, T0 + at, T0 + at)).map((sample) => [sample.endpointId, sample]),
  );
}

/** Endpoint ids by when their workers were last fetched (ms since T0), never-fetched ones under -1. */
async function freshness(h: Harness, ids: readonly string[]): Promise<Record<number, string[]>> {
  const fetched = await lastFetched(h.db, ACCOUNT, ENDPOINT_WORKERS);
  const byTime: Record<number, string[]> = {};
  for (const id of ids) {
    const at = fetched.has(id) ? (fetched.get(id) as number) - T0 : -1;
    byTime[at] = [...(byTime[at] ?? []), id];
  }
  return byTime;
}

describe('serverless collector', () => {
  it('stores every endpoint and one workers summary each, as the simulator serves them', async () => {
    const h = await harness('small-team.yaml');
    const result = await pollAt(h, serverlessCollector, 13 * HOUR + MINUTE);

    const truth = h.sim.world.endpointsView(h.clock.now());
    const rows = await liveEndpoints(h.db, ACCOUNT);
    expect(rows.map((row) => row.endpointId)).toEqual(['ep-sdxl', 'ep-whisper']);
    for (const endpoint of truth) {
      expect(rows.find((row) => row.endpointId === endpoint.id)).toMatchObject({
        name: endpoint.name,
        type: endpoint.type,
        gpuPools: endpoint.gpu?.pools,
        gpuCount: endpoint.gpu?.count,
        workersMin: endpoint.workers.min,
        workersMax: endpoint.workers.max,
        idleTimeoutS: endpoint.workers.idleTimeout,
        createdAt: Date.parse(endpoint.createdAt),
      });
    }

    // ep-whisper scales to zero (workers.min 0): listed, but its workers are not read.
    const samples = await samplesAt(h, 13 * HOUR + MINUTE);
    expect([...samples.keys()]).toEqual(['ep-sdxl']);
    expect(samples.get('ep-sdxl')).toMatchObject({ running: 4, idle: 1, initializing: 0, throttled: 0, total: 5 });
    expect(samples.get('ep-sdxl')).toMatchObject(h.sim.world.workersView('ep-sdxl', h.clock.now())?.summary ?? {});
    expect(result.rows).toBe(3);
  });

  it('reads workers only for endpoints that keep minimum workers up', async () => {
    const list = [...endpoints(3, 1), ...endpoints(6, 0).slice(3)];
    const h = await harness(emptyScenario({ endpoints: list }));
    await pollAt(h, serverlessCollector, MINUTE);

    const paths = h.sim.requestLog.entries().map((entry) => entry.path);
    expect(paths.filter((path) => path.endsWith('/workers')).sort()).toEqual([
      '/v2/serverless/ep-01/workers',
      '/v2/serverless/ep-02/workers',
      '/v2/serverless/ep-03/workers',
    ]);
    expect([...(await samplesAt(h, MINUTE)).keys()].sort()).toEqual(['ep-01', 'ep-02', 'ep-03']);
    // Every endpoint is still listed and stored, whatever its minimum.
    expect((await liveEndpoints(h.db, ACCOUNT)).map((row) => [row.endpointId, row.workersMin])).toEqual([
      ['ep-01', 1],
      ['ep-02', 1],
      ['ep-03', 1],
      ['ep-04', 0],
      ['ep-05', 0],
      ['ep-06', 0],
    ]);
  });

  it('reads scale-to-zero endpoints that billing shows paying, within the reads a run made before', async () => {
    const list = [...endpoints(12, 1), ...endpoints(15, 0).slice(12)];
    const ids = list.map((endpoint) => endpoint.id);
    const h = await harness(emptyScenario({ endpoints: list }));
    // ep-13 and ep-14 billed over the last hour (workers up); ep-15 billed nothing for two hours.
    for (const id of ['ep-13', 'ep-14']) await billHourly(h.db, 'serverless', id, 0.5, T0 - HOUR, T0);
    await billHourly(h.db, 'serverless', 'ep-15', 0.5, T0 - 4 * HOUR, T0 - 3 * HOUR);
    const workersRead = () =>
      h.sim.requestLog
        .entries()
        .filter((entry) => entry.path.endsWith('/workers'))
        .map((entry) => entry.path.split('/')[3]);

    // 12 endpoints keep minimum workers: 12 reads a run, shared with the two paying, stalest first.
    await pollAt(h, serverlessCollector, 0);
    expect(workersRead().sort()).toEqual(ids.slice(0, 12));
    await pollAt(h, serverlessCollector, 5 * MINUTE);
    expect(workersRead()).toHaveLength(24);
    // Never read first, then the stalest; ep-15 is not paying and is never read.
    expect(await freshness(h, ids)).toEqual({
      0: ['ep-11', 'ep-12'],
      [5 * MINUTE]: [...ids.slice(0, 10), 'ep-13', 'ep-14'],
      [-1]: ['ep-15'],
    });
  });

  it('rotates fairly through the endpoints when the request budget is short, and never meets a 429', async () => {
    const list = endpoints(12);
    const ids = list.map((endpoint) => endpoint.id);
    const h = await harness(emptyScenario({ rateLimit: { minute: 8 }, endpoints: list }));

    // Each minute: 8 requests, 1 for the list, a reserve of 2, so 5 endpoints' workers.
    await pollAt(h, serverlessCollector, 0);
    expect(await freshness(h, ids)).toEqual({ 0: ids.slice(0, 5), [-1]: ids.slice(5) });
    expect([...(await samplesAt(h, 0)).keys()]).toEqual(ids.slice(0, 5));

    await pollAt(h, serverlessCollector, MINUTE);
    expect(await freshness(h, ids)).toEqual({ 0: ids.slice(0, 5), [MINUTE]: ids.slice(5, 10), [-1]: ids.slice(10) });

    // Never-fetched endpoints first, then the stalest.
    await pollAt(h, serverlessCollector, 2 * MINUTE);
    expect(await freshness(h, ids)).toEqual({
      0: ids.slice(3, 5),
      [MINUTE]: ids.slice(5, 10),
      [2 * MINUTE]: [...ids.slice(0, 3), ...ids.slice(10)],
    });

    await pollAt(h, serverlessCollector, 3 * MINUTE);
    expect(await freshness(h, ids)).toEqual({
      [MINUTE]: ids.slice(8, 10),
      [2 * MINUTE]: [...ids.slice(0, 3), ...ids.slice(10)],
      [3 * MINUTE]: ids.slice(3, 8),
    });
    expect(await liveEndpoints(h.db, ACCOUNT)).toHaveLength(12);

    const log = h.sim.requestLog.entries();
    expect(h.sim.requestLog.counts().status429).toBe(0);
    expect(log.every((entry) => entry.status === 200)).toBe(true);
    const perMinute: Record<number, number> = {};
    for (const entry of log) {
      const minute = Math.floor((entry.atMs - T0) / MINUTE);
      perMinute[minute] = (perMinute[minute] ?? 0) + 1;
    }
    expect(perMinute).toEqual({ 0: 6, 1: 6, 2: 6, 3: 6 });
  });

  it('fetches every endpoint each run when the budget allows it', async () => {
    const list = endpoints(12);
    const h = await harness(emptyScenario({ rateLimit: { minute: 100 }, endpoints: list }));
    await pollAt(h, serverlessCollector, 0);
    expect((await samplesAt(h, 0)).size).toBe(12);
    expect((await samplesAt(h, 0)).get('ep-03')).toMatchObject({ running: 2, idle: 1, total: 3 });
  });

  it('treats a 404 for one endpoint (deleted meanwhile) as no sample, not as a failed run', async () => {
    const h = await harness(
      emptyScenario({
        endpoints: endpoints(3),
        faults: [{ from: '0s', to: '1h', match: '/v2/serverless/ep-02/workers', kind: 'status', status: 404 }],
      }),
    );
    await pollAt(h, serverlessCollector, MINUTE);
    expect([...(await samplesAt(h, MINUTE)).keys()]).toEqual(['ep-01', 'ep-03']);
    expect(await liveEndpoints(h.db, ACCOUNT)).toHaveLength(3);
    expect([...(await lastFetched(h.db, ACCOUNT, ENDPOINT_WORKERS)).keys()].sort()).toEqual([
      'ep-01',
      'ep-02',
      'ep-03',
    ]);
  });

  it('fails the run when one workers request fails, leaving the previous rows in place', async () => {
    const h = await harness(
      emptyScenario({
        endpoints: endpoints(3),
        faults: [{ from: '2m', to: '1h', match: '/v2/serverless/ep-02/workers', kind: 'status', status: 500 }],
      }),
    );
    await pollAt(h, serverlessCollector, MINUTE);
    const before = h.db.sqlite.prepare('SELECT * FROM endpoints ORDER BY endpoint_id').all();

    const failed = pollAt(h, serverlessCollector, 5 * MINUTE);
    await expect(failed).rejects.toBeInstanceOf(ApiError);
    await expect(failed).rejects.toMatchObject({
      kind: 'transient',
      status: 500,
      message: expect.stringContaining('ep-02'),
    });
    expect(h.db.sqlite.prepare('SELECT * FROM endpoints ORDER BY endpoint_id').all()).toEqual(before);
    expect(await workerSamplesBetween(h.db, ACCOUNT, T0 + 2 * MINUTE, T0 + HOUR)).toEqual([]);
    expect(await freshness(h, ['ep-01', 'ep-02', 'ep-03'])).toEqual({ [MINUTE]: ['ep-01', 'ep-02', 'ep-03'] });
    // The other endpoints were read; the run still wrote nothing.
    const paths = h.sim.requestLog.entries().map((entry) => entry.path);
    expect(paths.filter((path) => path === '/v2/serverless/ep-03/workers')).toHaveLength(2);
  });
});

describe('affordable', () => {
  it('is what the tightest window has left less a fifth of its quota, unlimited without headers', () => {
    const window = (remaining: number | null, quota: number | null) => ({
      window: 'w',
      remaining,
      quota,
      windowSeconds: 60,
      resetsAt: T0,
    });
    expect(affordable([])).toBe(Number.POSITIVE_INFINITY);
    expect(affordable([window(7, 8)])).toBe(5);
    expect(affordable([window(7, 8), window(100, 1000)])).toBe(0);
    expect(affordable([window(null, 600)])).toBe(480);
    expect(affordable([window(1, 60)])).toBe(0);
    expect(affordable([window(null, null)])).toBe(Number.POSITIVE_INFINITY);
  });
});
