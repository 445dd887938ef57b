import { describe, expect, it } from 'vitest';
import { apiClientFor } from '../../src/api/from-config.js';
import { catalogCollector } from '../../src/collectors/catalog.js';
import { clustersCollector } from '../../src/collectors/clusters.js';
import type { Collector } from '../../src/collectors/collector.js';
import { serverlessCollector } from '../../src/collectors/serverless.js';
import { volumesCollector } from '../../src/collectors/volumes.js';
import { ACCOUNT } from '../helpers/harness.js';
import { useRewritingProxy } from '../helpers/rewriting-proxy.js';
import { calmSmallTeam, HOUR, runAt, useTunedHarness } from './billing-support.js';

const harness = useTunedHarness();
const startRewritingProxy = useRewritingProxy();

interface ListCase {
  collector: Collector;
  path: string;
  key: string;
  table: string;
  idColumn: string;
  /** Makes the first item of the list something its schema rejects. */
  spoil(item: Record<string, unknown>): void;
}

const lists: ListCase[] = [
  {
    collector: volumesCollector,
    path: '/v2/network-volumes',
    key: 'networkVolumes',
    table: 'network_volumes',
    idColumn: 'network_volume_id',
    spoil: (item) => {
      item.size = 'big';
    },
  },
  {
    collector: clustersCollector,
    path: '/v2/clusters',
    key: 'clusters',
    table: 'clusters',
    idColumn: 'cluster_id',
    spoil: (item) => {
      item.compute = 'none';
    },
  },
  {
    collector: serverlessCollector,
    path: '/v2/serverless',
    key: 'endpoints',
    table: 'endpoints',
    idColumn: 'endpoint_id',
    spoil: (item) => {
      item.workers = 'some';
    },
  },
];

describe('a list with one record its schema rejects', () => {
  for (const list of lists) {
    it(`${list.key}: keeps the others, keeps the bad one as last stored, and names it`, async () => {
      const h = await harness(calmSmallTeam());
      expect((await runAt(h, list.collector, HOUR)).outcome).toBe('ok');
      const stored = () =>
        h.db.sqlite
          .prepare(
            `SELECT ${list.idColumn} AS id, last_seen_at AS lastSeenAt, gone_at AS goneAt FROM ${list.table} WHERE account = ? ORDER BY 1`,
          )
          .all(ACCOUNT) as Array<{ id: string; lastSeenAt: number; goneAt: number | null }>;
      const before = stored();
      expect(before.length).toBeGreaterThan(0);

      let spoiled = '';
      const proxy = await startRewritingProxy(h.sim.restBaseUrl, list.path, (answer) => {
        const items = (answer as Record<string, Array<Record<string, unknown>>>)[list.key] ?? [];
        const first = items[0];
        if (!first) throw new Error(`no ${list.key} to spoil`);
        spoiled = String(first.id);
        list.spoil(first);
        return answer;
      });
      const account = { ...h.config.accounts[0], restBaseUrl: `${proxy.url}/v2` } as (typeof h.config.accounts)[0];
      const api = apiClientFor(h.config, account, { clock: h.clock, log: h.context().log, inflight: h.inflight });
      try {
        const report = await runAt(h, list.collector, 2 * HOUR, { api });
        expect(report.error).toBeUndefined();
        expect(report.outcome).toBe('ok');
        expect(report.detail).toContain(`${list.key}[0] (${spoiled}): response body ${list.key}[0].`);
      } finally {
        await api.close();
      }
      const after = stored();
      expect(after.map((row) => row.id)).toEqual(before.map((row) => row.id));
      for (const row of after) {
        expect(row.goneAt, row.id).toBeNull();
        // The bad one keeps what was last read of it; the others are seen again.
        expect(row.lastSeenAt, row.id).toBe(
          row.id === spoiled ? h.scenario.startMs + HOUR : h.scenario.startMs + 2 * HOUR,
        );
      }
    });
  }

  it('endpoint workers: a worker its schema rejects is named, and the summary the API counted is stored', async () => {
    const h = await harness(calmSmallTeam());
    expect((await runAt(h, serverlessCollector, HOUR)).outcome).toBe('ok');
    const workersPath = h.sim.requestLog
      .entries()
      .map((entry) => entry.path)
      .find((path) => /^\/v2\/serverless\/[^/]+\/workers$/.test(path));
    if (!workersPath) throw new Error('the scenario has no endpoint whose workers are read');
    const endpointId = workersPath.split('/')[3] as string;
    let spoiled = '';
    let summary: unknown;
    const proxy = await startRewritingProxy(h.sim.restBaseUrl, workersPath, (answer) => {
      const body = answer as { workers: Array<Record<string, unknown>>; summary: unknown };
      const first = body.workers[0];
      if (!first) throw new Error(`endpoint ${endpointId} has no worker to spoil`);
      spoiled = String(first.id);
      first.gpuCount = 'two';
      summary = body.summary;
      return answer;
    });
    const account = { ...h.config.accounts[0], restBaseUrl: `${proxy.url}/v2` } as (typeof h.config.accounts)[0];
    const api = apiClientFor(h.config, account, { clock: h.clock, log: h.context().log, inflight: h.inflight });
    try {
      const report = await runAt(h, serverlessCollector, 2 * HOUR, { api });
      expect(report.error).toBeUndefined();
      expect(report.outcome).toBe('ok');
      expect(report.detail).toContain(
        `1 worker rejected by the schema, the summary stored as the API counted it: ${endpointId} workers[0] (${spoiled}): response body workers[0].gpuCount`,
      );
    } finally {
      await api.close();
    }
    const stored = h.db.sqlite
      .prepare(
        'SELECT running, idle, initializing, throttled, unhealthy, total FROM endpoint_worker_samples WHERE account = ? AND endpoint_id = ? AND observed_at = ?',
      )
      .get(ACCOUNT, endpointId, h.scenario.startMs + 2 * HOUR);
    expect(stored).toEqual(summary);
  });

  it('catalog: keeps the other GPU types, leaves the bad one as last stored, and names it with its list', async () => {
    const h = await harness(calmSmallTeam());
    expect((await runAt(h, catalogCollector, HOUR)).outcome).toBe('ok');
    let spoiled = '';
    const proxy = await startRewritingProxy(h.sim.restBaseUrl, '/v2/catalog/gpus', (answer) => {
      const first = (answer as { gpus: Array<Record<string, unknown>> }).gpus[0];
      if (!first) throw new Error('no GPU type to spoil');
      spoiled = String(first.id);
      first.memory = 'lots';
      return answer;
    });
    const account = { ...h.config.accounts[0], restBaseUrl: `${proxy.url}/v2` } as (typeof h.config.accounts)[0];
    const api = apiClientFor(h.config, account, { clock: h.clock, log: h.context().log, inflight: h.inflight });
    try {
      const report = await runAt(h, catalogCollector, 2 * HOUR, { api });
      expect(report.error).toBeUndefined();
      expect(report.detail).toContain(
        '1 GPU type of the POD list rejected by the schema, kept as last read: gpus[0] (',
      );
      expect(report.detail).toContain(`gpus[0] (${spoiled}): response body gpus[0].memory`);
    } finally {
      await api.close();
    }
    const rows = h.db.sqlite
      .prepare('SELECT gpu_type_id AS id, last_seen_at AS lastSeenAt FROM gpu_types WHERE account = ?')
      .all(ACCOUNT) as Array<{ id: string; lastSeenAt: number }>;
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) {
      expect(row.lastSeenAt, row.id).toBe(h.scenario.startMs + (row.id === spoiled ? HOUR : 2 * HOUR));
    }
  });
});
