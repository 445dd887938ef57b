import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { VirtualClock } from '../../src/clock.js';
import { type PageStore, streamBillingPage } from '../../src/collectors/billing-routes.js';
import { SLICE_ROWS } from '../../src/collectors/billing-slicer.js';
import { storeBillingPage } from '../../src/collectors/billing-store.js';
import { type BillingRecordInput, billingRecordsIn, upsertBillingRecords } from '../../src/db/billing.js';
import type { Database } from '../../src/db/open.js';
import { silentLogger } from '../../src/log.js';
import { DAY, HOUR, T0, useTempDatabases } from '../db/support.js';
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

function stored(database: Database): BillingRecordInput[] {
  const rows = billingRecordsIn(database, { account: 'main', kind: 'pods', bucketSize: 'hour', from: 0, to: T0 * 2 });
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

/** Reads WINDOW of /billing/pods from `server` into `database`; the slices stored are listed in `slices`. */
async function streamPods(database: Database, server: ScriptedServer, retries = 0, asText = false) {
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
  const slices: Array<{ startMs: number; endMs: number; records: number }> = [];
  /** The buckets of text slices whose records were made (parsed and checked), by start. */
  const parsed: number[] = [];
  const signal = new AbortController().signal;
  const store: PageStore = (page, maxRows) => {
    if ('buckets' in page) {
      slices.push({ ...page.window, records: -1 });
      const buckets = page.buckets.map((bucket) => ({
        ...bucket,
        records: () => {
          parsed.push(bucket.startTime);
          return bucket.records();
        },
      }));
      return storeBillingPage(database, 'main', { ...page, buckets }, T0 + DAY, { signal });
    }
    slices.push({ ...page.window, records: page.records.length });
    return storeBillingPage(database, 'main', page, T0 + DAY, { signal, ...(maxRows ? { maxRows } : {}) });
  };
  try {
    const result = await streamBillingPage(api, 'pods', 'hour', WINDOW, { signal }, store, asText);
    return { result, slices, parsed };
  } finally {
    await api.close();
  }
}

/** Serves `bodies` in turn (the last one again after), each written in pieces as a socket would. */
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

describe('a billing answer stored while it streams', () => {
  it('stores slices of whole buckets before the answer has ended, and the whole answer exactly', async () => {
    const records = apiRecords();
    const body = bodyOf(records);
    // The answer stops at four fifths until the first slice is stored: only a streaming reader gets past it.
    let firstSliceStored: () => void = () => {};
    const stored1 = new Promise<void>((resolve) => {
      firstSliceStored = resolve;
    });
    const cut = body.indexOf(JSON.stringify(records[Math.floor(records.length * 0.8)]));
    const server = await serve([
      (response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write(body.slice(0, cut));
        void stored1.then(() => response.end(body.slice(cut)));
      },
    ]);
    const database = databases.open();
    const pending = streamPods(database, server);
    // The first slice lands while the server still holds the last third back.
    const { slices } = await Promise.race([
      pending,
      (async () => {
        for (;;) {
          await new Promise((resolve) => setImmediate(resolve));
          if (stored(database).length > 0) {
            firstSliceStored();
            return pending;
          }
        }
      })(),
    ]);

    expect(stored(database)).toEqual(records.map(asInput).sort(byKey));
    expect(slices.length).toBe(2);
    expect(slices[0]).toMatchObject({ startMs: WINDOW.startMs });
    expect(slices[0]?.records).toBeGreaterThanOrEqual(SLICE_ROWS);
    expect(slices[1]).toMatchObject({ startMs: slices[0]?.endMs, endMs: WINDOW.endMs });
  });

  it('stores an answer sent newest first just as well', async () => {
    const records = apiRecords().reverse();
    const database = databases.open();
    const { slices, result } = await streamPods(database, await serve([bodyOf(records)]));

    expect(stored(database)).toEqual(records.map(asInput).sort(byKey));
    expect(result.written).toBe(records.length);
    expect(slices.map((slice) => [slice.startMs, slice.endMs])).toEqual([
      [slices[0]?.startMs, WINDOW.endMs],
      [WINDOW.startMs, slices[0]?.startMs],
    ]);
  });

  it('reads an answer out of time order again and stores it whole, losing nothing', async () => {
    const records = apiRecords();
    // Two records of hour 0 come after hour 23's.
    const shuffled = [...records.slice(2), ...records.slice(0, 2)];
    const server = await serve([bodyOf(shuffled)]);
    const database = databases.open();
    await streamPods(database, server);

    expect(server.requests.filter((request) => request.path === '/v2/billing/pods')).toHaveLength(2);
    expect(stored(database)).toEqual(records.map(asInput).sort(byKey));
  });

  it('rejects malformed JSON in the middle of the array, naming the route, the record and the offset; stored rows stay', async () => {
    const database = databases.open();
    const before = apiRecords(1).map(asInput);
    upsertBillingRecords(database, 'main', before, T0);
    const body = bodyOf(apiRecords().slice(0, 10));
    const at = body.indexOf('{"startTime"', body.indexOf('{"startTime"') + 1);
    const broken = `${body.slice(0, at + 1)}#${body.slice(at + 1)}`;
    const error = await failure(streamPods(database, await serve([broken])));

    expect(error.message).toContain(OP);
    expect(error.message).toContain('response body is not valid JSON: records[1] is not valid JSON');
    expect(error.message).toContain(`(at offset ${at})`);
    expect(stored(database)).toEqual(before.sort(byKey));
  });

  it('rejects a record that fails the schema mid-stream, naming its field as the schema does', async () => {
    const records = apiRecords();
    const bad = records.length - 7;
    records[bad] = { ...records[bad], gpuAmount: '1.5' };
    const database = databases.open();
    const error = await failure(streamPods(database, await serve([bodyOf(records)])));

    expect(error.message).toBe(`${OP}: response body records[${bad}].gpuAmount: expected number, received string`);
    // What came before the bad record was stored in whole slices; the slice it was in was not.
    const kept = stored(database);
    expect(kept.length).toBeGreaterThanOrEqual(SLICE_ROWS);
    expect(kept).toEqual(records.slice(0, kept.length).map(asInput).sort(byKey));
  });

  it('rejects a body that ends in the middle of a record, naming the record', async () => {
    const body = bodyOf(apiRecords().slice(0, 10));
    const at = body.indexOf('{"startTime"', body.indexOf('{"startTime"') + 1);
    const database = databases.open();
    const error = await failure(streamPods(database, await serve([body.slice(0, at + 40)])));

    expect(error.message).toBe(
      `${OP}: response body is not valid JSON: the body ended inside records[1] (at offset ${at + 40})`,
    );
    expect(stored(database)).toEqual([]);
  });

  it('a connection reset mid-record is retried from the first record: everything stored once', async () => {
    const records = apiRecords();
    const body = bodyOf(records);
    const reset = (response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      response.write(body.slice(0, Math.floor(body.length * 0.9)), () => response.socket?.destroy());
    };
    const server = await serve([reset, body]);
    const database = databases.open();
    const { result } = await streamPods(database, server, 1);

    expect(server.requests).toHaveLength(2);
    expect(stored(database)).toEqual(records.map(asInput).sort(byKey));
    // Re-storing what the cut attempt had stored changes nothing, so nothing is counted twice either.
    expect(result.written).toBe(records.length);
  });
});

describe('a billing re-read read as text', () => {
  it('stores what the parsed read stores, then parses only the buckets whose text changed', async () => {
    const records = apiRecords();
    const changed = records.map((record, n) =>
      n === 5 * PODS + 7 ? { ...record, gpuAmount: 9, totalAmount: 9.25 } : record,
    );
    const server = await serve([bodyOf(records), bodyOf(records), bodyOf(changed)]);
    const database = databases.open();
    const first = await streamPods(database, server, 0, true);
    expect(stored(database)).toEqual(records.map(asInput).sort(byKey));
    expect(first.result).toEqual({ written: records.length, deleted: 0 });
    expect(first.parsed).toHaveLength(24);

    const again = await streamPods(database, server, 0, true);
    expect(again.result).toEqual({ written: 0, deleted: 0 });
    expect(again.parsed).toEqual([]);

    const corrected = await streamPods(database, server, 0, true);
    expect(corrected.result).toEqual({ written: 1, deleted: 0 });
    expect(corrected.parsed).toEqual([T0 + 5 * HOUR]);
    expect(stored(database)).toEqual(changed.map(asInput).sort(byKey));
  });

  it('reads the page again whole when the text of a record misleads about its bucket, and stores what its parse says', async () => {
    const records = apiRecords();
    const body = bodyOf(records);
    // A duplicate key: the text says hour 0 first, JSON.parse keeps the last (hour 3).
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
    const server = await serve([duplicated]);
    const database = databases.open();
    await streamPods(database, server, 0, true);

    expect(server.requests.filter((request) => request.path === '/v2/billing/pods')).toHaveLength(2);
    const expected = records.map((record, n) => (n === 1 ? moved : record)) as Array<Record<string, unknown>>;
    expect(stored(database)).toEqual(expected.map(asInput).sort(byKey));
  });

  it('reads spaced JSON as text too: one request, stored exactly, and nothing parsed when read again', async () => {
    const records = apiRecords().slice(0, 3 * PODS);
    const spaced = JSON.stringify(JSON.parse(bodyOf(records)), null, 2);
    const server = await serve([spaced]);
    const database = databases.open();
    const first = await streamPods(database, server, 0, true);
    expect(stored(database)).toEqual(records.map(asInput).sort(byKey));
    expect(first.parsed).toEqual([T0, T0 + HOUR, T0 + 2 * HOUR]);
    const again = await streamPods(database, server, 0, true);
    expect(again.result).toEqual({ written: 0, deleted: 0 });
    expect(again.parsed).toEqual([]);
    expect(server.requests.filter((request) => request.path === '/v2/billing/pods')).toHaveLength(2);
  });

  it('reads an answer out of time order again and stores it whole, as the parsed read does', async () => {
    const records = apiRecords();
    const server = await serve([bodyOf([...records.slice(2), ...records.slice(0, 2)])]);
    const database = databases.open();
    await streamPods(database, server, 0, true);

    expect(server.requests.filter((request) => request.path === '/v2/billing/pods')).toHaveLength(2);
    expect(stored(database)).toEqual(records.map(asInput).sort(byKey));
  });

  it('rejects a changed bucket whose record is not valid JSON, naming the record', async () => {
    const records = apiRecords().slice(0, 10);
    const body = bodyOf(records);
    const at = body.indexOf('"gpuAmount":', body.indexOf(JSON.stringify(records[4])));
    const broken = `${body.slice(0, at)}"gpuAmount":01,${body.slice(at)}`;
    const database = databases.open();
    const error = await failure(streamPods(database, await serve([broken]), 0, true));

    expect(error.message).toContain(OP);
    expect(error.message).toContain('response body is not valid JSON: records[4] is not valid JSON');
    expect(stored(database)).toEqual([]);
  });
});
