import {
  type BucketSize,
  type BucketWindow,
  bucketCeil,
  bucketFloor,
  bucketSizes,
  DAY_MS,
  nextBucketStart,
} from '../buckets.js';
import { toIso } from '../clock.js';
import { addMicros, aggregateAmounts, amountsOf, type Micros } from './billing.js';
import type { BillingKind } from './pricing.js';
import { QueryParams } from './rest-params.js';
import { badRequest, ok, type RestReply } from './rest-reply.js';
import { BILLING_KINDS, type World } from './world.js';

/** The six `/v2/billing` routes: what each reports and how it is filtered. */
export const BILLING_ROUTES: Record<string, { kind: BillingKind | 'all'; filter?: string; unique?: string }> = {
  '/v2/billing': { kind: 'all' },
  '/v2/billing/pods': { kind: 'pods', filter: 'podId', unique: 'uniquePodCount' },
  '/v2/billing/serverless': { kind: 'serverless', filter: 'serverlessId', unique: 'uniqueServerlessCount' },
  '/v2/billing/endpoints': { kind: 'endpoints' },
  '/v2/billing/network-volumes': {
    kind: 'network_volumes',
    filter: 'networkVolumeId',
    unique: 'uniqueNetworkVolumeCount',
  },
  '/v2/billing/clusters': { kind: 'clusters', filter: 'clusterId', unique: 'uniqueClusterCount' },
};

const DEFAULT_LOOKBACK_MS = 30 * DAY_MS;
/** The earliest time a JavaScript date (and so an RFC 3339 echo) can hold. */
const EARLIEST_MS = -8.64e15;

type BillingRoute = (typeof BILLING_ROUTES)[string];

/** One billing route's answer: any bucket size and filter, the records generated as objects. */
export function billingReply(world: World, route: BillingRoute, query: URLSearchParams, t: number): RestReply {
  const params = new QueryParams(query);
  const startTime = params.dateTime('startTime');
  const endTime = params.dateTime('endTime');
  const bucketSize = params.oneOf('bucketSize', bucketSizes) ?? 'day';
  const lastN = params.integer('lastN', 1);
  const id = route.filter === undefined ? undefined : params.string(route.filter);
  params.done();
  const window = resolveWindow(t, bucketSize, startTime, endTime, lastN);
  const echo: Record<string, unknown> = {
    startTime: toIso(window.startMs),
    endTime: toIso(window.endMs),
    bucketSize,
  };
  if (route.filter !== undefined) echo[route.filter] = id ?? null;
  if (route.kind === 'all') {
    const { records, totals } = accountRecords(world, t, window, bucketSize);
    return ok({ records, metadata: { query: echo, recordCount: records.length, totals } });
  }
  const kind = route.kind;
  const usage = world.usage(t, kind, window, bucketSize, id === undefined ? {} : { id });
  // By bucket, and within a bucket by resource id (the order RunPod lists them in): no row sort.
  const byBucket = new Map<number, Array<[string, Micros]>>();
  for (const resourceId of [...usage.keys()].sort()) {
    for (const [bucket, micros] of usage.get(resourceId) ?? []) {
      const rows = byBucket.get(bucket);
      if (rows) rows.push([resourceId, micros]);
      else byBucket.set(bucket, [[resourceId, micros]]);
    }
  }
  const total: Micros = {};
  const records: Array<Record<string, unknown>> = [];
  for (const bucket of [...byBucket.keys()].sort((a, b) => a - b)) {
    const startTime = toIso(bucket);
    const endTime = toIso(nextBucketStart(bucket, bucketSize));
    for (const [resourceId, micros] of byBucket.get(bucket) ?? []) {
      addMicros(total, micros);
      const record: Record<string, unknown> = { startTime, endTime };
      if (route.filter !== undefined) record[route.filter] = resourceId;
      records.push(Object.assign(record, amountsOf(kind, micros)));
    }
  }
  const metadata: Record<string, unknown> = { query: echo, recordCount: records.length };
  // Every resource in `usage` billed in some bucket.
  if (route.unique !== undefined) metadata[route.unique] = usage.size;
  metadata.totals = amountsOf(kind, total);
  return ok({ records, metadata });
}

/** `/v2/billing`: one record per bucket with usage, every route's money in its component. */
function accountRecords(world: World, t: number, window: BucketWindow, size: BucketSize) {
  const buckets = new Map<number, Partial<Record<BillingKind, Micros>>>();
  const totals: Partial<Record<BillingKind, Micros>> = {};
  for (const kind of BILLING_KINDS) {
    for (const perBucket of world.usage(t, kind, window, size, { perResource: false }).values()) {
      for (const [bucket, micros] of perBucket) {
        const byKind = buckets.get(bucket) ?? {};
        byKind[kind] = addMicros(byKind[kind] ?? {}, micros);
        buckets.set(bucket, byKind);
        totals[kind] = addMicros(totals[kind] ?? {}, micros);
      }
    }
  }
  // Every bucket here has usage: forEachHour reports only hours with money.
  const records = [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([bucket, byKind]) => ({
      startTime: toIso(bucket),
      endTime: toIso(nextBucketStart(bucket, size)),
      ...aggregateAmounts(byKind),
    }));
  return { records, totals: aggregateAmounts(totals) };
}

/**
 * The v2 window rules: defaults, snapping to buckets (startTime down, endTime up unless on a
 * boundary), lastN (the last n buckets, ending with the one in progress), and their conflicts.
 */
export function resolveWindow(
  t: number,
  size: BucketSize,
  startTime: number | undefined,
  endTime: number | undefined,
  lastN: number | undefined,
): BucketWindow {
  if (lastN !== undefined) {
    if (startTime !== undefined || endTime !== undefined) {
      throw badRequest('lastN is mutually exclusive with startTime/endTime: provide one or the other');
    }
    const current = bucketFloor(t, size);
    const date = new Date(current);
    const back = lastN - 1;
    const startMs =
      size === 'month'
        ? Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - back, 1)
        : size === 'year'
          ? Date.UTC(date.getUTCFullYear() - back, 0, 1)
          : current - back * (nextBucketStart(current, size) - current);
    const window = { startMs, endMs: nextBucketStart(current, size) };
    if (!(window.startMs >= EARLIEST_MS)) throw badRequest(`lastN=${lastN} reaches back further than dates go`);
    return window;
  }
  const start = startTime ?? t - DEFAULT_LOOKBACK_MS;
  const end = endTime ?? t;
  if (start >= end) throw badRequest(`startTime (${toIso(start)}) must be before endTime (${toIso(end)})`);
  return { startMs: bucketFloor(start, size), endMs: bucketCeil(end, size) };
}
