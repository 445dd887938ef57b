import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { VirtualClock } from '../../src/clock.js';
import { fetchBillingPage } from '../../src/collectors/billing-routes.js';
import { SLICE_ROWS, slicesOf, storeBillingPage } from '../../src/collectors/billing-store.js';
import { type BillingRecordInput, upsertBillingRecords } from '../../src/db/billing.js';
import type { Database } from '../../src/db/open.js';
import { silentLogger } from '../../src/log.js';
import { DAY, HOUR, T0, useTempDatabases } from '../db/support.js';
import { billingRecordsIn } from '../helpers/billing-reads.js';
import { custom, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

const PODS = 300;
const WINDOW = { startMs: T0, endMs: T0 + DAY };
const OP = 'GET /billing/pods (2026-11-02T00:00:00Z..2026-11-03T00:00:00Z, hour)';

/** A day of hourly records for PODS Pods, as the API writes them, oldest first. */
function apiRecords(version = 0): Array<Record<string, unknown>> {
  const records: Array<Record<string, unknown>> = [];
  for (let hour = WINDOW.startMs; hour < WINDOW.endMs; hour += HOUR) {
    for (let i = 0; i < PODS; i++) {
      const gpu = ((i + hour / HOUR) % 8) / 4 + version;
      records.push({
        startTime: new Date(hour).toISOString(),
        endTime: new Date(hour + HOUR).toISOString(),
        podId: `pod-${String(i).padStart(3, '0')}`,
        totalAmount: gpu + 0.25,
        gpuAmount: gpu,
        cpuAmount: 0,
        diskAmount: 0.25,
      });
    }
  }
  return records;
}

function asInput(record: Record<string, unknown>): BillingRecordInput {
  const { startTime, endTime, podId, ...amounts } = record;
  return {
    kind: 'pods',
    resourceId: String(podId),
    bucketSize: 'hour',
    startTime: Date.parse(String(startTime)),
    endTime: Date.parse(String(endTime)),
    totalAmount: Number(amounts.totalAmount),
    amounts: amounts as Record<string, number>,
  };
}

function bodyOf(records: Array<Record<string, unknown>>): string {
  const query = { startTime: new Date(WINDOW.startMs).toISOString(), endTime: new Date(WINDOW.endMs).toISOString() };
  const metadata = { query: { ...query, bucketSize: 'hour', podId: null }, recordCount: records.length };
  return JSON.stringify({
    records,
    metadata: {
      ...metadata,
      totals: { totalAmount: 0, gpuAmount: 0, cpuAmount: 0, diskAmount: 0 },
      uniquePodCount: PODS,
    },
  });
}

const byKey = (a: BillingRecordInput, b: BillingRecordInput) =>
  a.startTime - b.startTime || a.resourceId.localeCompare(b.resourceId);

async function stored(database: Database): Promise<BillingRecordInput[]> {
  const rows = await billingRecordsIn(database, {
    account: 'main',
    kind: 'pods',
    bucketSize: 'hour',
    from: 0,
    to: T0 * 2,
  });
  return rows
    .map(({ kind, resourceId, bucketSize, startTime, endTime, totalAmount, amounts }) => ({
      kind,
      resourceId,
      bucketSize,
      startTime,
      endTime,
      totalAmount,
      amounts,
    }))
    .sort(byKey);
}

const databases = useTempDatabases();
const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** Reads WINDOW of /billing/pods from `server` and stores it in `database`, as the billing collector does. */
async function readPods(database: Database, server: ScriptedServer, retries = 0) {
  const api = createApiClient({
    restBaseUrl: `${server.url}/v2`,
    graphqlBaseUrl: `${server.url}/graphql`,
    apiKey: 'rpa_test_key_0000',
    graphqlAuth: 'header',
    clock: new VirtualClock(T0 + DAY),
    log: silentLogger(),
    timeouts: { connectMs: 5_000, headersMs: 10_000, bodyMs: 10_000 },
    retries: { max: retries, baseDelayMs: 0, maxDelayMs: 0 },
    concurrency: 2,
  });
  const signal = new AbortController().signal;
  try {
    const fetched = await fetchBillingPage(api, 'pods', 'hour', WINDOW, { signal });
    const result = await storeBillingPage(database, 'main', fetched.page, T0 + DAY, { signal });
    return { result, fetched };
  } finally {
    await api.close();
  }
}

/** Serves `bodies` in turn (the last one again after). */
async function serve(bodies: Array<string | ((response: ServerResponse) => void)>) {
  const server = await startScriptedServer();
  servers.push(server);
  let served = 0;
  server.setFallback(
    custom((request, response) => {
      if (request.path !== '/v2/billing/pods') throw new Error(`unscripted ${request.url}`);
      const body = bodies[Math.min(served++, bodies.length - 1)] as (typeof bodies)[number];
      if (typeof body === 'function') return body(response);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(body);
    }),
  );
  return server;
}

async function failure(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (error) {
    return error as Error;
  }
  throw new Error('no error');
}

describe('a billing answer read whole and stored a slice at a time', () => {
  it('stores a day of Pods exactly, in slices of whole buckets that cover the window', async () => {
    const records = apiRecords();
    const database = databases.open();
    const { result, fetched } = await readPods(database, await serve([bodyOf(records)]));

    expect(await stored(database)).toEqual(records.map(asInput).sort(byKey));
    expect(result).toEqual({ written: records.length, deleted: 0 });
    const slices = slicesOf(fetched.page);
    expect(slices.length).toBe(2);
    expect(slices[0]?.window.endMs).toBe(WINDOW.endMs);
    expect(slices[0]?.records.length).toBeGreaterThanOrEqual(SLICE_ROWS);
    expect(slices[1]?.window).toEqual({ startMs: WINDOW.startMs, endMs: slices[0]?.window.startMs });
  });

  it('stores an answer in any order just as well', async () => {
    const records = apiRecords();
    const shuffled = [...records.slice(2), ...records.slice(0, 2)].reverse();
    const database = databases.open();
    await readPods(database, await serve([bodyOf(shuffled)]));

    expect(await stored(database)).toEqual(records.map(asInput).sort(byKey));
  });

  it('rejects malformed JSON, naming the route; stored rows stay', async () => {
    const database = databases.open();
    const before = apiRecords(1).map(asInput);
    await upsertBillingRecords(database, 'main', before, T0);
    const body = bodyOf(apiRecords().slice(0, 10));
    const at = body.indexOf('{"startTime"', body.indexOf('{"startTime"') + 1);
    const broken = `${body.slice(0, at + 1)}#${body.slice(at + 1)}`;
    const error = await failure(readPods(database, await serve([broken])));

    expect(error.message).toContain(OP);
    expect(error.message).toContain('response body is not valid JSON');
    expect(await stored(database)).toEqual(before.sort(byKey));
  });

  it('rejects a body that ends in the middle of a record as not JSON', async () => {
    const body = bodyOf(apiRecords().slice(0, 10));
    const at = body.indexOf('{"startTime"', body.indexOf('{"startTime"') + 1);
    const database = databases.open();
    const error = await failure(readPods(database, await serve([body.slice(0, at + 40)])));

    expect(error.message).toContain(`${OP}: response body is not valid JSON`);
    expect(await stored(database)).toEqual([]);
  });

  it('a connection reset mid-body is retried: everything stored once', async () => {
    const records = apiRecords();
    const body = bodyOf(records);
    const reset = (response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      response.write(body.slice(0, Math.floor(body.length * 0.9)), () => response.socket?.destroy());
    };
    const server = await serve([reset, body]);
    const database = databases.open();
    const { result } = await readPods(database, server, 1);

    expect(server.requests).toHaveLength(2);
    expect(await stored(database)).toEqual(records.map(asInput).sort(byKey));
    expect(result.written).toBe(records.length);
  });

  it('rejects a record that fails the schema, naming its field; stores the other buckets and keeps its own', async () => {
    const database = databases.open();
    const before = apiRecords(1).map(asInput);
    await upsertBillingRecords(database, 'main', before, T0);
    const records = apiRecords();
    const bad = 5 * PODS + 7;
    records[bad] = { ...records[bad], gpuAmount: '1.5' };
    const { fetched } = await readPods(database, await serve([bodyOf(records)]));

    expect(fetched.op).toBe(OP);
    expect(fetched.rejected).toMatchObject([
      {
        index: bad,
        id: 'pod-007',
        reason: `response body records[${bad}].gpuAmount: expected number, received string`,
      },
    ]);
    const hour5 = (record: BillingRecordInput) => record.startTime === T0 + 5 * HOUR;
    expect(await stored(database)).toEqual(
      [...records.map(asInput).filter((record) => !hour5(record)), ...before.filter(hour5)].sort(byKey),
    );
  });
});

describe('a repeated key in a billing answer', () => {
  it('means what JSON.parse says, the last one, in records and metadata', async () => {
    const records = apiRecords().slice(0, 3 * PODS);
    const body = bodyOf(records);
    const record = JSON.stringify(records[4]);
    const repeated = body
      .replace(record, record.replace('"gpuAmount":', '"gpuAmount":"not a number","gpuAmount":'))
      .replace('"metadata":', '"metadata":{"recordCount":"wrong"},"metadata":');
    expect(repeated).not.toBe(body);
    const database = databases.open();
    const { fetched } = await readPods(database, await serve([repeated]));

    expect(fetched.rejected).toEqual([]);
    expect(await stored(database)).toEqual(records.map(asInput).sort(byKey));
  });

  it('stores a record whose startTime is written twice in the bucket of the last one', async () => {
    const records = apiRecords();
    const body = bodyOf(records);
    // The text says hour 0 first, JSON.parse keeps the last (hour 3).
    const moved = {
      ...records[1],
      startTime: records[3 * PODS]?.startTime,
      endTime: records[3 * PODS]?.endTime,
      podId: 'pod-moved',
    };
    const duplicated = body.replace(
      JSON.stringify(records[1]),
      `{"startTime":"${records[1]?.startTime}",${JSON.stringify(moved).slice(1)}`,
    );
    expect(duplicated).not.toBe(body);
    const database = databases.open();
    await readPods(database, await serve([duplicated]));

    const expected = records.map((record, n) => (n === 1 ? moved : record)) as Array<Record<string, unknown>>;
    expect(await stored(database)).toEqual(expected.map(asInput).sort(byKey));
  });
});
