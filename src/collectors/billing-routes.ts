import { type ApiClient, ApiError, type BillingQuery, type CallOptions } from '../api/index.js';
import { toIso } from '../clock.js';
import type { BillingRecordInput } from '../db/billing.js';
import type { BillingKind, BucketSize } from '../db/schema.js';
import { type BucketWindow, bucketFloor } from './billing-windows.js';

/** What every v2 billing response has in common, whichever route answered. */
interface BillingResponse {
  records: ReadonlyArray<{ startTime: string; endTime: string; totalAmount: number; [field: string]: unknown }>;
  metadata: { query: { startTime: string; endTime: string; bucketSize: string } };
}

interface BillingRoute {
  op: string;
  /** The record field naming the billed resource; the routes without one store ''. */
  idField?: string;
  fetch(api: ApiClient, query: BillingQuery, call: CallOptions): Promise<BillingResponse>;
}

/** The six v2 billing routes by what they bill (`/billing/endpoints` is Public Endpoints). */
export const BILLING_ROUTES: Readonly<Record<BillingKind, BillingRoute>> = {
  account: { op: 'GET /billing', fetch: (api, query, call) => api.rest.billing(query, call) },
  pods: { op: 'GET /billing/pods', idField: 'podId', fetch: (api, query, call) => api.rest.billingPods(query, call) },
  serverless: {
    op: 'GET /billing/serverless',
    idField: 'serverlessId',
    fetch: (api, query, call) => api.rest.billingServerless(query, call),
  },
  endpoints: { op: 'GET /billing/endpoints', fetch: (api, query, call) => api.rest.billingEndpoints(query, call) },
  network_volumes: {
    op: 'GET /billing/network-volumes',
    idField: 'networkVolumeId',
    fetch: (api, query, call) => api.rest.billingNetworkVolumes(query, call),
  },
  clusters: {
    op: 'GET /billing/clusters',
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
  const covered = { startMs: Date.parse(echo.startTime), endMs: Date.parse(echo.endTime) };
  if (echo.bucketSize !== bucketSize) contract(op, `answered bucketSize ${echo.bucketSize}`);
  // A narrower echo would leave buckets we think we read unread, and their stale rows in place.
  if (covered.startMs > window.startMs || covered.endMs < window.endMs) {
    contract(op, `answered for ${echo.startTime}..${echo.endTime} only`);
  }
  const records = response.records.map((record, index) => {
    const input = toRecordInput(kind, route.idField, bucketSize, record);
    const inside = input.startTime >= covered.startMs && input.startTime < covered.endMs;
    if (!inside || bucketFloor(input.startTime, bucketSize) !== input.startTime) {
      contract(op, `records[${index}] starts at ${record.startTime}, not on a ${bucketSize} bucket of the window`);
    }
    return input;
  });
  return { kind, bucketSize, window: covered, records };
}

function toRecordInput(
  kind: BillingKind,
  idField: string | undefined,
  bucketSize: BucketSize,
  record: BillingResponse['records'][number],
): BillingRecordInput {
  // Every *Amount field is kept, those the API adds later too, so nothing it reports is lost.
  const amounts: Record<string, number> = {};
  for (const [field, value] of Object.entries(record)) {
    if (field.endsWith('Amount') && typeof value === 'number') amounts[field] = value;
  }
  return {
    kind,
    resourceId: idField === undefined ? '' : String(record[idField]),
    bucketSize,
    startTime: Date.parse(record.startTime),
    endTime: Date.parse(record.endTime),
    totalAmount: record.totalAmount,
    amounts,
  };
}

function contract(op: string, detail: string): never {
  throw new ApiError({ kind: 'contract', op, message: detail });
}
