import { describe, expect, it } from 'vitest';
import { packagePath } from '../../src/package-root.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import { type AccruedFilter, World } from '../../src/simulator/world.js';
import { body, DAY, get, H100, HOUR, iso, MINUTE, START_MS, worldOf } from './world-fixtures.js';

const ROUTES: Array<{ path: string; kind: AccruedFilter['kind'] }> = [
  { path: '/v2/billing', kind: 'all' },
  { path: '/v2/billing/pods', kind: 'pods' },
  { path: '/v2/billing/serverless', kind: 'serverless' },
  { path: '/v2/billing/network-volumes', kind: 'network_volumes' },
  { path: '/v2/billing/clusters', kind: 'clusters' },
  { path: '/v2/billing/endpoints', kind: 'endpoints' },
];

const smallTeam = () => new World(loadScenario(packagePath('config/scenarios/small-team.yaml')));

/** The totals of a billing reply must be the ground truth over the window the reply resolved. */
function expectTotalsMatchGroundTruth(world: World, url: string, kind: AccruedFilter['kind'], now: number) {
  const reply = body(get(world, url, now));
  const { startTime, endTime } = reply.metadata.query;
  const truth = world.accrued(now, { kind, fromMs: Date.parse(startTime), toMs: Date.parse(endTime) });
  expect(reply.metadata.totals, url).toEqual(truth);
  return reply;
}

describe('billing routes: totals are the money the world accrued', () => {
  const nows = [START_MS, START_MS + 7 * HOUR + 23 * MINUTE, START_MS + 16 * HOUR + 5 * MINUTE + 7_000];
  for (const { path, kind } of ROUTES) {
    for (const bucketSize of ['hour', 'day', 'week', 'month', 'year']) {
      it(`${path} by ${bucketSize}, default window, at several times`, () => {
        const world = smallTeam();
        for (const now of nows) expectTotalsMatchGroundTruth(world, `${path}?bucketSize=${bucketSize}`, kind, now);
      });
    }
  }

  it('over arbitrary windows, snapped', () => {
    const world = smallTeam();
    const now = START_MS + 23 * HOUR;
    const windows = [
      ['2026-11-02T03:17:00Z', '2026-11-02T09:41:13Z'],
      ['2026-10-01T00:00:00Z', '2026-11-05T00:00:00Z'],
      ['2026-11-01T22:30:00+02:00', '2026-11-02T11:00:00Z'],
    ];
    for (const [start, end] of windows) {
      for (const { path, kind } of ROUTES) {
        for (const bucketSize of ['hour', 'day', 'week']) {
          const url = `${path}?bucketSize=${bucketSize}&startTime=${encodeURIComponent(start as string)}&endTime=${encodeURIComponent(end as string)}`;
          expectTotalsMatchGroundTruth(world, url, kind, now);
        }
      }
    }
  });

  it('bucketSize never changes a total (a window that holds all the money in every bucket size)', () => {
    const world = smallTeam();
    const now = START_MS + 20 * HOUR;
    for (const { path } of ROUTES) {
      const totals = ['hour', 'day', 'week', 'month', 'year'].map(
        (size) =>
          body(
            get(world, `${path}?bucketSize=${size}&startTime=2026-01-01T00:00:00Z&endTime=2027-01-01T00:00:00Z`, now),
          ).metadata.totals,
      );
      for (const total of totals) expect(total, path).toEqual(totals[0]);
    }
  });

  it('totals are the sums of the records, to the micro-dollar', () => {
    const reply = body(get(smallTeam(), '/v2/billing/pods?bucketSize=hour', START_MS + 20 * HOUR));
    const micros = (value: number) => Math.round(value * 1e6);
    for (const field of ['totalAmount', 'gpuAmount', 'cpuAmount', 'diskAmount']) {
      const sum = reply.records.reduce(
        (acc: number, record: Record<string, number>) => acc + micros(record[field] ?? 0),
        0,
      );
      expect(micros(reply.metadata.totals[field])).toBe(sum);
    }
    for (const record of reply.records) {
      expect(micros(record.totalAmount)).toBe(
        micros(record.gpuAmount) + micros(record.cpuAmount) + micros(record.diskAmount),
      );
    }
  });
});

describe('billing routes: the window', () => {
  const world = () => worldOf({ pods: [{ id: 'p', name: 'p', gpu: { id: H100 }, cost: 1, startedAt: '-40d' }] });
  const query = (url: string, now = START_MS + 15 * HOUR) => body(get(world(), url, now)).metadata.query;

  it('defaults: bucketSize day, from 30 days ago (snapped down) to now (snapped up)', () => {
    expect(query('/v2/billing/pods')).toEqual({
      startTime: '2026-10-03T00:00:00Z',
      endTime: '2026-11-03T00:00:00Z',
      bucketSize: 'day',
      podId: null,
    });
  });

  it('snaps startTime down and endTime up to the bucket, leaving boundaries alone', () => {
    const window = (size: string, start: string, end: string) => {
      const echo = query(`/v2/billing?bucketSize=${size}&startTime=${start}&endTime=${end}`);
      return [echo.startTime, echo.endTime];
    };
    expect(window('hour', '2026-11-02T10:30:00Z', '2026-11-02T12:00:00Z')).toEqual([
      '2026-11-02T10:00:00Z',
      '2026-11-02T12:00:00Z',
    ]);
    expect(window('day', '2026-11-02T10:30:00Z', '2026-11-02T10:30:01Z')).toEqual([
      '2026-11-02T00:00:00Z',
      '2026-11-03T00:00:00Z',
    ]);
    // 2026-11-04 is a Wednesday; weeks start on Monday (UTC).
    expect(window('week', '2026-11-04T10:00:00Z', '2026-11-09T00:00:00Z')).toEqual([
      '2026-11-02T00:00:00Z',
      '2026-11-09T00:00:00Z',
    ]);
    expect(window('month', '2026-02-15T00:00:00Z', '2026-03-01T00:00:01Z')).toEqual([
      '2026-02-01T00:00:00Z',
      '2026-04-01T00:00:00Z',
    ]);
    expect(window('year', '2025-06-01T00:00:00Z', '2026-11-02T00:00:00Z')).toEqual([
      '2025-01-01T00:00:00Z',
      '2027-01-01T00:00:00Z',
    ]);
  });

  it('lastN is the last N buckets, ending with the one in progress', () => {
    expect(query('/v2/billing?bucketSize=day&lastN=3')).toMatchObject({
      startTime: '2026-10-31T00:00:00Z',
      endTime: '2026-11-03T00:00:00Z',
    });
    expect(query('/v2/billing?bucketSize=hour&lastN=1')).toMatchObject({
      startTime: '2026-11-02T15:00:00Z',
      endTime: '2026-11-02T16:00:00Z',
    });
    expect(query('/v2/billing?bucketSize=month&lastN=12')).toMatchObject({
      startTime: '2025-12-01T00:00:00Z',
      endTime: '2026-12-01T00:00:00Z',
    });
  });

  it('refuses lastN with startTime or endTime, and a window that ends before it starts (400)', () => {
    for (const url of [
      '/v2/billing?lastN=3&startTime=2026-11-01T00:00:00Z',
      '/v2/billing/pods?lastN=3&endTime=2026-11-01T00:00:00Z',
      '/v2/billing?startTime=2026-11-02T00:00:00Z&endTime=2026-11-01T00:00:00Z',
    ]) {
      const reply = get(world(), url, START_MS);
      expect(reply.status, url).toBe(400);
      expect(reply.headers?.['content-type']).toBe('application/problem+json');
    }
  });

  it('refuses values outside the declared schema (422, listing each)', () => {
    const reply = get(world(), '/v2/billing?bucketSize=fortnight&lastN=0&startTime=yesterday', START_MS);
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      title: 'Unprocessable Entity',
      status: 422,
      detail: 'Request validation failed.',
      errors: [
        'query.startTime: expected an RFC 3339 date-time, got "yesterday"',
        "query.bucketSize: value must be one of 'hour', 'day', 'week', 'month', 'year'",
        'query.lastN: expected number >= 1, got 0',
      ],
    });
  });
});

describe('billing routes: records', () => {
  it('one record per resource per bucket with usage, and nothing for buckets without', () => {
    const world = worldOf({
      pods: [
        { id: 'a', name: 'a', gpu: { id: H100 }, cost: 1, containerDiskGb: 1, events: [{ at: '2h', action: 'stop' }] },
        { id: 'b', name: 'b', gpu: { id: H100 }, cost: 2, containerDiskGb: 1, startedAt: '-1h' },
      ],
    });
    const reply = body(
      get(
        world,
        `/v2/billing/pods?bucketSize=hour&startTime=${iso(START_MS - 3 * HOUR)}&endTime=${iso(START_MS + 6 * HOUR)}`,
        START_MS + 4 * HOUR + MINUTE,
      ),
    );
    const rows = reply.records.map((record: Record<string, unknown>) => `${record.podId}@${record.startTime}`);
    expect(rows).toEqual([
      'b@2026-11-01T23:00:00Z',
      'a@2026-11-02T00:00:00Z',
      'b@2026-11-02T00:00:00Z',
      'a@2026-11-02T01:00:00Z',
      'b@2026-11-02T01:00:00Z',
      'b@2026-11-02T02:00:00Z',
      'b@2026-11-02T03:00:00Z',
      'b@2026-11-02T04:00:00Z', // the bucket in progress
    ]);
    expect(reply.records[0]).toEqual({
      startTime: '2026-11-01T23:00:00Z',
      endTime: '2026-11-02T00:00:00Z',
      podId: 'b',
      totalAmount: 2.000137,
      gpuAmount: 2,
      cpuAmount: 0,
      diskAmount: 0.000137,
    });
    expect(reply.records.at(-1).gpuAmount).toBe(0.033333); // one minute at $2/h
    expect(reply.metadata).toMatchObject({ recordCount: 8, uniquePodCount: 2 });
  });

  it('filters by id, echoes the filter, and an unknown id is simply no records', () => {
    const world = new World(loadScenario(packagePath('config/scenarios/small-team.yaml')));
    const now = START_MS + 12 * HOUR;
    const cases: Array<[string, string, string]> = [
      ['/v2/billing/pods', 'podId', 'nb-alice'],
      ['/v2/billing/serverless', 'serverlessId', 'ep-sdxl'],
      ['/v2/billing/network-volumes', 'networkVolumeId', 'vol-ckpt'],
      ['/v2/billing/clusters', 'clusterId', 'cl-pretrain'],
    ];
    for (const [path, filter, id] of cases) {
      const reply = body(get(world, `${path}?${filter}=${id}`, now));
      expect(reply.metadata.query[filter]).toBe(id);
      expect(reply.records.length).toBeGreaterThan(0);
      expect(new Set(reply.records.map((record: Record<string, string>) => record[filter]))).toEqual(new Set([id]));
      const none = body(get(world, `${path}?${filter}=nope`, now));
      expect(none.records).toEqual([]);
      expect(none.metadata.recordCount).toBe(0);
    }
  });

  it("a terminated Pod's past spend stays in billing", () => {
    const world = new World(loadScenario(packagePath('config/scenarios/small-team.yaml')));
    const now = START_MS + 20 * HOUR;
    expect(world.podView('dev-box', now)).toBeUndefined();
    const reply = body(get(world, '/v2/billing/pods?podId=dev-box&bucketSize=hour&lastN=48', now));
    expect(reply.records.map((record: { startTime: string }) => record.startTime).at(-1)).toBe('2026-11-02T10:00:00Z');
    expect(reply.metadata.totals.gpuAmount).toBe(14 * 0.69);
  });

  it('the account route sums every kind per bucket, and its total is the sum of its components', () => {
    const world = new World(loadScenario(packagePath('config/scenarios/small-team.yaml')));
    const now = START_MS + 18 * HOUR;
    const account = body(get(world, '/v2/billing?bucketSize=day&lastN=7', now));
    const micros = (value: number) => Math.round(value * 1e6);
    for (const record of account.records) {
      const { startTime, endTime, totalAmount, ...components } = record;
      expect(micros(totalAmount)).toBe(
        Object.values(components as Record<string, number>).reduce((sum, value) => sum + micros(value), 0),
      );
    }
    const pods = body(get(world, '/v2/billing/pods?bucketSize=day&lastN=7', now)).metadata.totals;
    const clusters = body(get(world, '/v2/billing/clusters?bucketSize=day&lastN=7', now)).metadata.totals;
    expect(account.metadata.totals).toMatchObject({
      podGpuAmount: pods.gpuAmount,
      podCpuAmount: pods.cpuAmount,
      clusterGpuAmount: clusters.gpuAmount,
    });
  });

  it('past buckets do not change as time goes on; the current one grows', () => {
    const world = worldOf({ pods: [{ id: 'p', name: 'p', gpu: { id: H100 }, cost: 1.5, startedAt: '-3d' }] });
    const url = '/v2/billing/pods?bucketSize=day&startTime=2026-10-30T00:00:00Z&endTime=2026-11-03T00:00:00Z';
    const early = body(get(world, url, START_MS + 6 * HOUR)).records;
    const late = body(get(world, url, START_MS + 18 * HOUR)).records;
    expect(late.slice(0, -1)).toEqual(early.slice(0, -1));
    expect(early.at(-1).gpuAmount).toBe(9);
    expect(late.at(-1).gpuAmount).toBe(27);
    expect(body(get(world, url, START_MS + DAY)).records).toHaveLength(4);
  });
});

describe('billing routes read at one instant', () => {
  it('answer every route as a world reading only that route would, Pod actions between them included', () => {
    // Each kind's lines are kept for the instant (World.keptLinesOf): `/v2/billing` and the
    // kind's own route read the same open hour, and a Pod's action in between must show.
    const now = START_MS + 9 * HOUR + 17 * MINUTE;
    const window = `startTime=${iso(START_MS + 8 * HOUR)}&endTime=${iso(START_MS + 11 * HOUR)}&bucketSize=hour`;
    const reads = (world: World, only?: string) => {
      const texts: string[] = [];
      for (const { path } of ROUTES) {
        if (only === undefined || only === path) texts.push(JSON.stringify(get(world, `${path}?${window}`, now).body));
      }
      return texts;
    };
    const world = smallTeam();
    const first = reads(world);
    for (const [index, { path }] of ROUTES.entries()) expect(first[index], path).toBe(reads(smallTeam(), path)[0]);
    const stopped = body(get(world, '/v2/pods', now)).pods.find((pod: { status: string }) => pod.status === 'RUNNING');
    expect(world.podAction(stopped.id, 'stop', now).ok).toBe(true);
    const after = reads(world);
    const fresh = smallTeam();
    expect(fresh.podAction(stopped.id, 'stop', now).ok).toBe(true);
    for (const [index, { path }] of ROUTES.entries()) expect(after[index], path).toBe(reads(fresh, path)[0]);
    // Later, the stopped Pod's compute is gone from the open hour: the kept lines were not reused.
    const later = now + 20 * MINUTE;
    expect(JSON.stringify(get(world, `/v2/billing/pods?${window}`, later).body)).toBe(
      JSON.stringify(get(fresh, `/v2/billing/pods?${window}`, later).body),
    );
  });
});
