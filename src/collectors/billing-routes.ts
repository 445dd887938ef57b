import {
  type ApiClient,
  ApiError,
  type BillingList,
  type BillingSchema,
  type CallOptions,
  type RestClient,
} from '../api/index.js';
import type { RejectedItem } from '../api/parse.js';
import { type BucketWindow, bucketFloor } from '../buckets.js';
import { toIso } from '../clock.js';
import type { BillingRecordInput } from '../db/billing.js';
import type { BillingKind, BucketSize } from '../db/schema.js';
import { amountsOf } from './billing-amounts.js';
import { chunksOf } from './billing-windows.js';

/** What every v2 billing record has in common, whichever route answered. */
interface BillingRecord {
  startTime: string;
  endTime: string;
  totalAmount: number;
  [field: string]: unknown;
}

/** What every v2 billing answer has in common, whichever route answered. */
type BillingAnswer = BillingList<BillingSchema> & {
  records: { items: BillingRecord[] };
  metadata: { query: { startTime: string; endTime: string; bucketSize: string } };
};

interface BillingRoute {
  op: string;
  /** The record field naming the billed resource; the routes without one store ''. */
  idField?: string;
  /** The RestClient method that reads the route. */
  method: Extract<keyof RestClient, `billing${string}`>;
}

/** The six v2 billing routes by what they bill (`/billing/endpoints` is Public Endpoints). */
export const BILLING_ROUTES: Readonly<Record<BillingKind, BillingRoute>> = {
  account: { op: 'GET /billing', method: 'billing' },
  pods: { op: 'GET /billing/pods', idField: 'podId', method: 'billingPods' },
  serverless: { op: 'GET /billing/serverless', idField: 'serverlessId', method: 'billingServerless' },
  endpoints: { op: 'GET /billing/endpoints', method: 'billingEndpoints' },
  network_volumes: { op: 'GET /billing/network-volumes', idField: 'networkVolumeId', method: 'billingNetworkVolumes' },
  clusters: { op: 'GET /billing/clusters', idField: 'clusterId', method: 'billingClusters' },
};

/**
 * One route's answer for one window, as it can be stored: `window` is the span the API says it
 * covered (the echo), `records` its readable records, and `keep` the starts of the buckets that
 * must stay as stored because a record of theirs was rejected (storing the rest of such a bucket
 * would undercount it).
 */
export interface BillingPage {
  kind: BillingKind;
  bucketSize: BucketSize;
  window: BucketWindow;
  records: BillingRecordInput[];
  keep: number[];
}

/** A page as read, with the records the schema (or the window) rejected, named by `op`. */
export interface FetchedPage {
  op: string;
  page: BillingPage;
  rejected: RejectedItem[];
}

/**
 * Reads one aligned window of one route, whole, and checks that the answer covers exactly what
 * we asked and that every record lies on a bucket of it. A record that fails either check is
 * rejected, and its bucket is kept as stored; when its bucket cannot be told, no bucket of the
 * page is stored (the whole window is kept).
 */
export async function fetchBillingPage(
  api: ApiClient,
  kind: BillingKind,
  bucketSize: BucketSize,
  window: BucketWindow,
  call: CallOptions,
): Promise<FetchedPage> {
  const route = BILLING_ROUTES[kind];
  const query = { startTime: toIso(window.startMs), endTime: toIso(window.endMs), bucketSize };
  const answer: BillingAnswer = await api.rest[route.method](query, call);
  const op = `${route.op} (${query.startTime}..${query.endTime}, ${bucketSize})`;
  const echo = answer.metadata.query;
  checkEcho(op, bucketSize, window, echo);
  // The page is the window the API answered for, at least the one asked for.
  const covered = { startMs: Date.parse(echo.startTime), endMs: Date.parse(echo.endTime) };
  const rejected = [...answer.records.rejected];
  const skipped = new Set(rejected.map((item) => item.index));
  const records: BillingRecordInput[] = [];
  // An answer's records share a few dozen bucket bounds: each is read once.
  const times = new Map<string, number>();
  const time = (text: string) => {
    const known = times.get(text);
    if (known !== undefined) return known;
    const ms = Date.parse(text);
    times.set(text, ms);
    return ms;
  };
  let index = 0;
  for (const record of answer.records.items) {
    while (skipped.has(index)) index++;
    const input = toRecordInput(kind, route.idField, bucketSize, record, time);
    if (onBucketOf(input.startTime, bucketSize, covered)) records.push(input);
    else {
      const reason = `response body records[${index}].startTime: ${record.startTime} is not on a ${bucketSize} bucket of the window`;
      rejected.push({ index, id: input.resourceId || null, reason, raw: record });
    }
    index++;
  }
  rejected.sort((a, b) => a.index - b.index);
  const keep = bucketsOf(rejected, bucketSize, covered);
  const kept = new Set(keep);
  const page = { kind, bucketSize, window: covered, records: records.filter((r) => !kept.has(r.startTime)), keep };
  return { op, page, rejected };
}

/** The buckets of the rejected records, oldest first: every bucket of the window when one could lie in any. */
function bucketsOf(rejected: readonly RejectedItem[], size: BucketSize, window: BucketWindow): number[] {
  const starts = new Set<number>();
  for (const item of rejected) {
    const startTime = (item.raw as { startTime?: unknown } | null)?.startTime;
    const at = typeof startTime === 'string' ? Date.parse(startTime) : Number.NaN;
    if (!(at >= window.startMs && at < window.endMs)) return chunksOf(window, 1, size).map((bucket) => bucket.startMs);
    starts.add(bucketFloor(at, size));
  }
  return [...starts].sort((a, b) => a - b);
}

function onBucketOf(startTime: number, size: BucketSize, window: BucketWindow): boolean {
  return startTime >= window.startMs && startTime < window.endMs && bucketFloor(startTime, size) === startTime;
}

function checkEcho(op: string, bucketSize: BucketSize, window: BucketWindow, echo: BillingAnswer['metadata']['query']) {
  if (echo.bucketSize !== bucketSize) contract(op, `answered bucketSize ${echo.bucketSize}`);
  // A narrower echo would leave buckets we think we read unread, and their stale rows in place.
  if (Date.parse(echo.startTime) > window.startMs || Date.parse(echo.endTime) < window.endMs) {
    contract(op, `answered for ${echo.startTime}..${echo.endTime} only`);
  }
}

function toRecordInput(
  kind: BillingKind,
  idField: string | undefined,
  bucketSize: BucketSize,
  record: BillingRecord,
  time: (text: string) => number,
): BillingRecordInput {
  // Every *Amount field is kept, those the API adds later too, so nothing it reports is lost.
  const { amounts, text } = amountsOf(record);
  return {
    kind,
    resourceId: idField === undefined ? '' : String(record[idField]),
    bucketSize,
    startTime: time(record.startTime),
    endTime: time(record.endTime),
    totalAmount: record.totalAmount,
    amounts,
    amountsText: text,
  };
}

function contract(op: string, detail: string): never {
  throw new ApiError({ kind: 'contract', op, message: detail });
}
