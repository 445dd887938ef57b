import type { z } from 'zod';
import { checkBillingRecord } from '../api/billing-parse.js';
import { type ApiClient, ApiError, type BillingQuery, type BillingRoutePath, type CallOptions } from '../api/index.js';
import {
  ListBillingResponse,
  ListClusterBillingResponse,
  ListEndpointBillingResponse,
  ListNetworkVolumeBillingResponse,
  ListPodBillingResponse,
  ListServerlessBillingResponse,
} from '../api/schemas.js';
import { toIso } from '../clock.js';
import type { BillingRecordInput, ReportedBucket } from '../db/billing.js';
import type { BillingKind, BucketSize } from '../db/schema.js';
import { amountsOf } from './billing-amounts.js';
import { BillingSlicer, OutOfOrderError } from './billing-slicer.js';
import { bucketsOfTexts, parseTime, type RecordText, startOf, UnreadableTextError } from './billing-text.js';
import { type BucketWindow, bucketFloor } from './billing-windows.js';

/** What every v2 billing response has in common, whichever route answered. */
interface BillingResponse {
  records: ReadonlyArray<{ startTime: string; endTime: string; totalAmount: number; [field: string]: unknown }>;
  metadata: { query: { startTime: string; endTime: string; bucketSize: string } };
}

interface BillingRoute {
  op: string;
  path: BillingRoutePath;
  schema: z.ZodType;
  /** The record field naming the billed resource; the routes without one store ''. */
  idField?: string;
  fetch(api: ApiClient, query: BillingQuery, call: CallOptions): Promise<BillingResponse>;
}

/** The six v2 billing routes by what they bill (`/billing/endpoints` is Public Endpoints). */
export const BILLING_ROUTES: Readonly<Record<BillingKind, BillingRoute>> = {
  account: {
    op: 'GET /billing',
    path: '/billing',
    schema: ListBillingResponse,
    fetch: (api, query, call) => api.rest.billing(query, call),
  },
  pods: {
    op: 'GET /billing/pods',
    path: '/billing/pods',
    schema: ListPodBillingResponse,
    idField: 'podId',
    fetch: (api, query, call) => api.rest.billingPods(query, call),
  },
  serverless: {
    op: 'GET /billing/serverless',
    path: '/billing/serverless',
    schema: ListServerlessBillingResponse,
    idField: 'serverlessId',
    fetch: (api, query, call) => api.rest.billingServerless(query, call),
  },
  endpoints: {
    op: 'GET /billing/endpoints',
    path: '/billing/endpoints',
    schema: ListEndpointBillingResponse,
    fetch: (api, query, call) => api.rest.billingEndpoints(query, call),
  },
  network_volumes: {
    op: 'GET /billing/network-volumes',
    path: '/billing/network-volumes',
    schema: ListNetworkVolumeBillingResponse,
    idField: 'networkVolumeId',
    fetch: (api, query, call) => api.rest.billingNetworkVolumes(query, call),
  },
  clusters: {
    op: 'GET /billing/clusters',
    path: '/billing/clusters',
    schema: ListClusterBillingResponse,
    idField: 'clusterId',
    fetch: (api, query, call) => api.rest.billingClusters(query, call),
  },
};

/** One route's answer for one window: `window` is the span the API says it covered (the echo). */
export interface BillingPage {
  kind: BillingKind;
  bucketSize: BucketSize;
  window: BucketWindow;
  records: BillingRecordInput[];
}

/** Reads one aligned window of one route and checks that the answer covers exactly what we asked. */
export async function fetchBillingPage(
  api: ApiClient,
  kind: BillingKind,
  bucketSize: BucketSize,
  window: BucketWindow,
  call: CallOptions,
): Promise<BillingPage> {
  const route = BILLING_ROUTES[kind];
  const query = { startTime: toIso(window.startMs), endTime: toIso(window.endMs), bucketSize };
  const response = await route.fetch(api, query, call);
  const op = `${route.op} (${query.startTime}..${query.endTime}, ${bucketSize})`;
  const echo = response.metadata.query;
  checkEcho(op, bucketSize, window, echo);
  // The page is the window the API answered for, at least the one asked for.
  const covered = { startMs: Date.parse(echo.startTime), endMs: Date.parse(echo.endTime) };
  const records = response.records.map((record, index) =>
    checkedInput(op, kind, route.idField, bucketSize, covered, record, index),
  );
  return { kind, bucketSize, window: covered, records };
}

/** A slice of an answer read as text: its buckets, each parsed only if its digest says it changed. */
export interface BucketPage {
  kind: BillingKind;
  bucketSize: BucketSize;
  window: BucketWindow;
  buckets: ReportedBucket[];
}

/** Stores a page (or a slice of one, as a page of its own window); `maxRows` as storeBillingPage's. */
export type PageStore = (
  page: BillingPage | BucketPage,
  maxRows?: number,
) => Promise<{ written: number; deleted: number }>;

/**
 * Reads one aligned window of one route and stores it while it arrives, a slice of whole buckets
 * at a time (billing-slicer.ts), so neither the answer's text nor its records are ever held
 * whole. Checks as fetchBillingPage does: every record on a bucket of the window asked for, and
 * the echo covering that window; the echo comes after the records, so the last slice is stored
 * only once it has been checked. Answers out of time order are read again and stored whole.
 *
 * `asText` (the re-reads, which mostly find what is stored) keeps each record as its text, cut
 * into buckets by the startTime read from it (billing-text.ts); the store parses and checks only
 * the buckets whose text differs from what it stored. A record whose text does not say its
 * bucket plainly has the page read again and stored whole, as for an answer out of order.
 *
 * `turn`: nothing is stored before it resolves, and nothing at all if it rejects. A backfill
 * asks for its next chunk while the current one is stored, so that the API prepares the answer
 * meanwhile; the turn (the chunk before, stored with its cursor) keeps the stores in order.
 */
export async function streamBillingPage(
  api: ApiClient,
  kind: BillingKind,
  bucketSize: BucketSize,
  window: BucketWindow,
  call: CallOptions,
  store: PageStore,
  asText = false,
  turn?: Promise<unknown>,
): Promise<{ written: number; deleted: number }> {
  const route = BILLING_ROUTES[kind];
  const query = { startTime: toIso(window.startMs), endTime: toIso(window.endMs), bucketSize };
  const op = `${route.op} (${query.startTime}..${query.endTime}, ${bucketSize})`;
  const totals = { written: 0, deleted: 0 };
  const storeSlice = async (slice: BucketWindow, records: BillingRecordInput[]) => {
    // One transaction per slice: the slicer already cut it to size.
    const stored = await store({ kind, bucketSize, window: slice, records }, Number.POSITIVE_INFINITY);
    totals.written += stored.written;
    totals.deleted += stored.deleted;
  };
  const check = (record: unknown, index: number) =>
    checkedInput(
      op,
      kind,
      route.idField,
      bucketSize,
      window,
      checkBillingRecord(route.schema, record, index, op),
      index,
    );
  const storeTexts = async (slice: BucketWindow, items: RecordText[]) => {
    const buckets = bucketsOfTexts(op, items, check);
    const stored = await store({ kind, bucketSize, window: slice, buckets });
    totals.written += stored.written;
    totals.deleted += stored.deleted;
  };
  let slicer = new BillingSlicer(window, storeSlice);
  let textSlicer = new BillingSlicer<RecordText>(window, storeTexts);
  try {
    const metadata = (await api.rest.streamBilling(
      route.path,
      query,
      route.schema,
      () => {
        slicer = new BillingSlicer(window, storeSlice);
        textSlicer = new BillingSlicer<RecordText>(window, storeTexts);
        const texts = (texts: string[], first: number) =>
          textSlicer.add(texts.map((text, k) => ({ startTime: startOf(text, first + k), text, index: first + k })));
        const records = (records: unknown[], first: number) =>
          slicer.add(
            (records as BillingResponse['records']).map((record, index) =>
              checkedInput(op, kind, route.idField, bucketSize, window, record, first + index),
            ),
          );
        const gate = turn;
        if (gate === undefined) return { records, ...(asText ? { texts } : {}) };
        // Waiting here, before a record is taken, holds no more than the piece of text decoded
        // last: the rest of the answer waits on the wire (body-stream.ts reads ahead a little).
        const after =
          <T>(take: (items: T[], first: number) => Promise<void>) =>
          async (items: T[], first: number) => {
            await gate;
            await take(items, first);
          };
        return { records: after(records), ...(asText ? { texts: after(texts) } : {}) };
      },
      call,
    )) as BillingResponse['metadata'];
    checkEcho(op, bucketSize, window, metadata.query);
  } catch (error) {
    if (!(error instanceof OutOfOrderError || error instanceof UnreadableTextError)) throw error;
    const page = await fetchBillingPage(api, kind, bucketSize, window, call);
    await turn;
    const stored = await store(page);
    return { written: totals.written + stored.written, deleted: totals.deleted + stored.deleted };
  }
  // A run stopped meanwhile stores nothing more: what is left is read again next run.
  call.signal?.throwIfAborted();
  // An answer without records stores its (empty) window here: after the turn, as any other.
  await turn;
  await api.hold(asText ? textSlicer.finish() : slicer.finish());
  return totals;
}

function checkEcho(
  op: string,
  bucketSize: BucketSize,
  window: BucketWindow,
  echo: BillingResponse['metadata']['query'],
) {
  if (echo.bucketSize !== bucketSize) contract(op, `answered bucketSize ${echo.bucketSize}`);
  // A narrower echo would leave buckets we think we read unread, and their stale rows in place.
  if (Date.parse(echo.startTime) > window.startMs || Date.parse(echo.endTime) < window.endMs) {
    contract(op, `answered for ${echo.startTime}..${echo.endTime} only`);
  }
}

function checkedInput(
  op: string,
  kind: BillingKind,
  idField: string | undefined,
  bucketSize: BucketSize,
  window: BucketWindow,
  record: BillingResponse['records'][number],
  index: number,
): BillingRecordInput {
  const input = toRecordInput(kind, idField, bucketSize, record);
  const inside = input.startTime >= window.startMs && input.startTime < window.endMs;
  if (!inside || bucketFloor(input.startTime, bucketSize) !== input.startTime) {
    contract(op, `records[${index}] starts at ${record.startTime}, not on a ${bucketSize} bucket of the window`);
  }
  return input;
}

function toRecordInput(
  kind: BillingKind,
  idField: string | undefined,
  bucketSize: BucketSize,
  record: BillingResponse['records'][number],
): BillingRecordInput {
  // Every *Amount field is kept, those the API adds later too, so nothing it reports is lost.
  const { amounts, text } = amountsOf(record);
  return {
    kind,
    resourceId: idField === undefined ? '' : String(record[idField]),
    bucketSize,
    startTime: parseTime(record.startTime),
    endTime: parseTime(record.endTime),
    totalAmount: record.totalAmount,
    amounts,
    amountsText: text,
  };
}

function contract(op: string, detail: string): never {
  throw new ApiError({ kind: 'contract', op, message: detail });
}
