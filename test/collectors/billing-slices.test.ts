import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { VirtualClock } from '../../src/clock.js';
import { billingCollector, CHUNK_MS } from '../../src/collectors/billing.js';
import { SLICE_ROWS, slicesOf, storeBillingPage } from '../../src/collectors/billing-store.js';
import { runCollector } from '../../src/collectors/run.js';
import { defaultConfig } from '../../src/config/load.js';
import { type BillingRecordInput, getBackfill } from '../../src/db/billing.js';
import type { Database } from '../../src/db/open.js';
import { silentLogger } from '../../src/log.js';
import { DAY, HOUR, T0, useTempDatabases } from '../db/support.js';
import { billingRecordsIn } from '../helpers/billing-reads.js';
import { custom, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

/** Pods billed every hour: a day of them is two slices, so a page is stored in more than one transaction. */
const PODS = 300;
const podId = (index: number) => `pod-${String(index).padStart(3, '0')}`;
/** Exact in binary, so sums compare without rounding; `version` stands for a later correction. */
const gpuAmount = (index: number, hourStart: number, version = 0) => ((index + hourStart / HOUR) % 8) / 4 + version;

function podRecord(index: number, hourStart: number, version = 0): BillingRecordInput {
  const gpu = gpuAmount(index, hourStart, version);
  return {
    kind: 'pods',
    resourceId: podId(index),
    bucketSize: 'hour',
    startTime: hourStart,
    endTime: hourStart + HOUR,
    totalAmount: gpu + 0.25,
    amounts: { totalAmount: gpu + 0.25, gpuAmount: gpu, cpuAmount: 0, diskAmount: 0.25 },
  };
}

function podRecords(from: number, to: number, version = 0): BillingRecordInput[] {
  const records: BillingRecordInput[] = [];
  for (let hour = from; hour < to; hour += HOUR)
    for (let i = 0; i < PODS; i++) records.push(podRecord(i, hour, version));
  return records;
}

async function stored(database: Database, from: number, to: number) {
  return (await billingRecordsIn(database, { account: 'main', kind: 'pods', bucketSize: 'hour', from, to })).map(
    (row) => ({
      kind: row.kind,
      resourceId: row.resourceId,
      bucketSize: row.bucketSize,
      startTime: row.startTime,
      endTime: row.endTime,
      totalAmount: row.totalAmount,
      amounts: row.amounts,
    }),
  );
}

const byKey = (a: BillingRecordInput, b: BillingRecordInput) =>
  a.startTime - b.startTime || a.resourceId.localeCompare(b.resourceId);

/** The amount fields each v2 billing route reports, and the id field of its records. */
const ROUTES: Record<string, { fields: string[]; id?: string; unique?: string }> = {
  '/v2/billing': {
    fields: [
      'totalAmount',
      'podGpuAmount',
      'podCpuAmount',
      'podDiskAmount',
      'serverlessGpuAmount',
      'serverlessCpuAmount',
      'serverlessDiskAmount',
      'serverlessFeeAmount',
      'storageStandardAmount',
      'storageHighPerformanceAmount',
      'endpointAmount',
      'clusterGpuAmount',
      'clusterDiskAmount',
      'clusterNetworkingAmount',
    ],
  },
  '/v2/billing/pods': {
    fields: ['totalAmount', 'gpuAmount', 'cpuAmount', 'diskAmount'],
    id: 'podId',
    unique: 'uniquePodCount',
  },
  '/v2/billing/serverless': {
    fields: ['totalAmount', 'gpuAmount', 'cpuAmount', 'diskAmount', 'feeAmount'],
    id: 'serverlessId',
    unique: 'uniqueServerlessCount',
  },
  '/v2/billing/endpoints': { fields: ['totalAmount'] },
  '/v2/billing/network-volumes': {
    fields: ['totalAmount', 'standardAmount', 'highPerformanceAmount'],
    id: 'networkVolumeId',
    unique: 'uniqueNetworkVolumeCount',
  },
  '/v2/billing/clusters': {
    fields: ['totalAmount', 'gpuAmount', 'diskAmount', 'networkingAmount'],
    id: 'clusterId',
    unique: 'uniqueClusterCount',
  },
};

/**
 * A billing API of its own over real HTTP: only Pods are billed, PODS of them every hour. The
 * `cutPodsRequest`-th request to /billing/pods gets its headers and half its body, then a reset.
 * With `holdBefore`, the answer to the request before it waits until that cut is done and the
 * client has had a moment to hear it: a chunk asked ahead then fails while the one before it is
 * awaited.
 */
function billingApi(server: ScriptedServer, cutPodsRequest: number | null, holdBefore = false) {
  let podsRequests = 0;
  let cutDone = () => {};
  const cut = new Promise<void>((resolve) => {
    cutDone = resolve;
  });
  server.setFallback(
    custom(async (request, response: ServerResponse) => {
      const route = ROUTES[request.path];
      const startTime = request.query.get('startTime') ?? '';
      const endTime = request.query.get('endTime') ?? '';
      if (!route) throw new Error(`unscripted ${request.url}`);
      const isPods = request.path === '/v2/billing/pods';
      const records = isPods
        ? podRecords(Date.parse(startTime), Date.parse(endTime)).map((record) => ({
            startTime: new Date(record.startTime).toISOString(),
            endTime: new Date(record.endTime).toISOString(),
            podId: record.resourceId,
            ...record.amounts,
          }))
        : [];
      const totals = Object.fromEntries(
        route.fields.map((field) => [
          field,
          records.reduce((sum, r) => sum + Number((r as Record<string, unknown>)[field] ?? 0), 0),
        ]),
      );
      const body = JSON.stringify({
        records,
        metadata: {
          query: { startTime, endTime, bucketSize: 'hour', ...(route.id ? { [route.id]: null } : {}) },
          recordCount: records.length,
          totals,
          ...(route.unique ? { [route.unique]: isPods ? PODS : 0 } : {}),
        },
      });
      const nth = isPods ? ++podsRequests : 0;
      if (nth === cutPodsRequest) {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
        response.write(body.slice(0, body.length / 2), () => {
          response.socket?.destroy();
          setTimeout(cutDone, 200);
        });
        return;
      }
      if (holdBefore && cutPodsRequest !== null && nth === cutPodsRequest - 1) await cut;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(body);
    }),
  );
}

const databases = useTempDatabases();
const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** One billing run against `server` at `now`, backfilling three days before a one-hour re-read. */
async function runBilling(database: Database, server: ScriptedServer, now: number) {
  const config = defaultConfig([{ name: 'main', apiKey: 'rpa_test_key_0000' }]);
  config.collectors.billing.backfillMs = 3 * DAY;
  config.collectors.billing.trailingWindowMs = HOUR;
  const clock = new VirtualClock(now);
  const log = silentLogger();
  const api = createApiClient({
    restBaseUrl: `${server.url}/v2`,
    graphqlBaseUrl: `${server.url}/graphql`,
    apiKey: 'rpa_test_key_0000',
    graphqlAuth: 'header',
    clock,
    log,
    timeouts: { connectMs: 5_000, headersMs: 10_000, bodyMs: 10_000 },
    // A cut answer is not tried again here, so it fails the run as a lasting fault would.
    retries: { max: 0, baseDelayMs: 1_000, maxDelayMs: 1_000 },
    concurrency: 4,
  });
  const signal = new AbortController().signal;
  const base = { account: 'main', api, db: database, config, clock, log, signal, timeoutMs: 120_000 };
  const report = await runCollector(billingCollector, base);
  await api.close();
  return report;
}

describe('billing stored a slice at a time', () => {
  it('cuts a day of Pods into slices of whole buckets that cover the window exactly', () => {
    const records = podRecords(T0, T0 + DAY);
    const slices = slicesOf({ bucketSize: 'hour', window: { startMs: T0, endMs: T0 + DAY }, records, keep: [] });

    expect(slices.length).toBeGreaterThan(1);
    expect(slices[0]?.window.endMs).toBe(T0 + DAY);
    expect(slices.at(-1)?.window.startMs).toBe(T0);
    for (const [index, slice] of slices.entries()) {
      if (index > 0) expect(slice.window.endMs).toBe(slices[index - 1]?.window.startMs);
      expect(slice.window.startMs % HOUR).toBe(0);
      if (index < slices.length - 1) expect(slice.records.length).toBeGreaterThanOrEqual(SLICE_ROWS);
      for (const record of slice.records) {
        expect(record.startTime).toBeGreaterThanOrEqual(slice.window.startMs);
        expect(record.startTime).toBeLessThan(slice.window.endMs);
      }
    }
    expect(slices.flatMap((slice) => slice.records).sort(byKey)).toEqual([...records].sort(byKey));
  });

  it('leaves out the buckets a page keeps as stored, and covers the rest of the window exactly', () => {
    const keep = [T0 + 3 * HOUR, T0 + 4 * HOUR, T0 + 20 * HOUR];
    const records = podRecords(T0, T0 + DAY).filter((record) => !keep.includes(record.startTime));
    const slices = slicesOf({ bucketSize: 'hour', window: { startMs: T0, endMs: T0 + DAY }, records, keep }, 1_000);

    const hours = slices.flatMap((slice) => {
      const covered: number[] = [];
      for (let at = slice.window.startMs; at < slice.window.endMs; at += HOUR) covered.push(at);
      return covered;
    });
    const expected = Array.from({ length: 24 }, (_, hour) => T0 + hour * HOUR).filter((at) => !keep.includes(at));
    expect(hours.sort((a, b) => a - b)).toEqual(expected);
    expect(slices.flatMap((slice) => slice.records).sort(byKey)).toEqual([...records].sort(byKey));
  });

  it('stopped between two slices, leaves each bucket as it was or as reported; storing again loses and repeats nothing', async () => {
    const database = databases.open();
    const window = { startMs: T0, endMs: T0 + DAY };
    const before = podRecords(T0, T0 + DAY);
    // Corrected amounts, and one bucket withdrawn in the newest and one in the oldest hour.
    const withdrawn = new Set([`${T0 + 23 * HOUR}/${podId(7)}`, `${T0}/${podId(9)}`]);
    const after = podRecords(T0, T0 + DAY, 1).filter((r) => !withdrawn.has(`${r.startTime}/${r.resourceId}`));
    const page = { kind: 'pods' as const, bucketSize: 'hour' as const, window, records: after, keep: [] };
    await storeBillingPage(database, 'main', { ...page, records: before }, T0 + DAY, {
      signal: new AbortController().signal,
    });

    const crash = new AbortController();
    const storedSlices: Array<{ startMs: number; endMs: number }> = [];
    const stopped = storeBillingPage(database, 'main', page, T0 + DAY + HOUR, {
      signal: crash.signal,
      onSliceStored: (slice) => {
        storedSlices.push(slice);
        crash.abort(new Error('killed between slices'));
      },
    });

    await expect(stopped).rejects.toThrow('killed between slices');
    const [first] = storedSlices;
    if (!first) throw new Error('no slice stored');
    expect(storedSlices).toHaveLength(1);
    expect(first.startMs).toBeGreaterThan(T0);
    const newer = after.filter((r) => r.startTime >= first.startMs).sort(byKey);
    const older = before.filter((r) => r.startTime < first.startMs).sort(byKey);
    expect(await stored(database, first.startMs, T0 + DAY)).toEqual(newer);
    expect(await stored(database, T0, first.startMs)).toEqual(older);

    await storeBillingPage(database, 'main', page, T0 + DAY + 2 * HOUR, { signal: new AbortController().signal });
    expect(await stored(database, T0, T0 + DAY)).toEqual([...after].sort(byKey));
  });

  /**
   * After the re-read (the first /billing/pods request), the backfill's second chunk is asked
   * ahead while its first is read and stored; its answer is cut. However the two interleave, the
   * run fails naming the route and the process hears no unhandled rejection (which would end the
   * daemon; vitest counts one as an error of the file).
   */
  async function cutMidBodyThenResume(holdBefore: boolean) {
    const database = databases.open();
    const now = T0 + 10 * DAY;
    const reReadStart = now - HOUR;
    const server = await startScriptedServer();
    servers.push(server);
    billingApi(server, 3, holdBefore);

    const crashed = await runBilling(database, server, now);

    expect(crashed.outcome).toBe('error');
    expect(crashed.error).toContain('GET /billing/pods');
    const key = { account: 'main', kind: 'pods' as const, bucketSize: 'hour' as const };
    expect(await getBackfill(database, key)).toMatchObject({ cursorStartTime: reReadStart - CHUNK_MS, doneAt: null });
    expect(await stored(database, 0, now + DAY)).toEqual(podRecords(reReadStart - CHUNK_MS, now));

    const seen = server.requests.length;
    billingApi(server, null);
    const resumed = await runBilling(database, server, now);

    expect(resumed.error).toBeUndefined();
    expect(resumed.outcome).toBe('ok');
    const podsStarts = server.requests
      .slice(seen)
      .filter((request) => request.path === '/v2/billing/pods')
      .map((request) => request.query.get('startTime'));
    expect(podsStarts).not.toContain(new Date(reReadStart - CHUNK_MS).toISOString());
    expect((await getBackfill(database, key))?.doneAt).not.toBeNull();
    expect(await stored(database, 0, now + DAY)).toEqual(podRecords(reReadStart - 3 * DAY, now).sort(byKey));
  }

  it('a backfill whose answer is cut mid-body resumes at its cursor: every bucket stored once, none lost', () =>
    cutMidBodyThenResume(false));

  it('a chunk asked ahead, cut while the chunk before it is still read, fails the run and is heard', () =>
    cutMidBodyThenResume(true));
});
