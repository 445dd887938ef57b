import { ApiError, type RateLimitWindow } from '../api/index.js';
import type { RejectedItem } from '../api/parse.js';
import type { Endpoint, WorkerSummary } from '../api/schemas.js';
import { bucketFloor, HOUR_MS } from '../buckets.js';
import { stalestFirst } from '../db/freshness.js';
import { endpointActivity, endpoints, endpointWorkerSamples, itemFreshness } from '../db/schema.js';
import { type EndpointInput, storeEndpointPoll, type WorkerSampleInput } from '../db/serverless.js';
import { spendSince } from '../db/spend.js';
import type { CollectContext, Collector } from './collector.js';
import { collectResult, type ListWords, unreadableOf } from './rejected-items.js';

/** An endpoint the schema rejects keeps its last stored row, and its workers are not read. */
const ENDPOINT_LIST = { key: 'endpoints', one: 'endpoint', many: 'endpoints', kept: 'kept as last read' };

/** The item_freshness kind under which each endpoint's last workers fetch is recorded. */
export const ENDPOINT_WORKERS = 'endpoint-workers';

/** Share of each rate-limit window left untouched for the collectors that run beside this one. */
export const BUDGET_RESERVE_SHARE = 0.2;

/** Workers fetches per connection per run: a run takes about this many round trips at most. */
const FETCHES_PER_CONNECTION = 100;

/**
 * `serverless`: every endpoint, then the workers summary of each that keeps minimum workers or,
 * meant to scale to zero, is still billed; the stalest first (item_freshness) when the reads of
 * one run (SCALE_TO_ZERO_READS) or the request budget cannot cover them all.
 */
export const serverlessCollector: Collector<'serverless'> = {
  name: 'serverless',
  feeds: [endpointActivity, endpoints, endpointWorkerSamples, itemFreshness],
  async collect(ctx) {
    const listed = await ctx.api.rest.listEndpoints({ signal: ctx.signal });
    // Only the endpoint waste checks read workers: of endpoints keeping minimum workers up, and of
    // those meant to scale to zero that billing shows still paying for workers.
    const keeping = listed.items.filter((endpoint) => endpoint.workers.min > 0).map((endpoint) => endpoint.id);
    const billing = await billingScaleToZero(ctx, listed.items);
    const ids = [...keeping, ...billing];
    const limit = Math.min(
      affordable(ctx.api.budget.remaining()),
      ctx.config.api.concurrency * FETCHES_PER_CONNECTION,
      // What a run read before scale-to-zero endpoints were watched: they share those reads.
      Math.max(keeping.length, SCALE_TO_ZERO_READS),
    );
    const chosen = (await stalestFirst(ctx.db, ctx.account, ENDPOINT_WORKERS, ids)).slice(0, limit);
    if (chosen.length < ids.length) {
      ctx.log.debug(
        { endpoints: ids.length, fetching: chosen.length },
        'request budget short: rotating workers fetches',
      );
    }
    const { summaries, rejected } = await fetchSummaries(ctx, chosen);
    const samples = [...summaries].map(([endpointId, summary]) => workerSample(endpointId, summary, ctx.now));
    const { upserted, gone, sampled } = await storeEndpointPoll(ctx.db, {
      account: ctx.account,
      endpoints: listed.items.map(endpointRow),
      unreadable: unreadableOf(listed.rejected),
      samples,
      // An endpoint that answered 404 counts as fetched too, so it cannot hold the head of the rotation.
      fetchedKind: ENDPOINT_WORKERS,
      fetched: chosen,
      now: ctx.now,
    });
    return collectResult(upserted + gone.length + sampled, [listed.rejected, ENDPOINT_LIST], ...rejected);
  },
};

/**
 * Workers reads a run makes at least, when few endpoints keep minimum workers: room for the
 * scale-to-zero endpoints that billing shows paying. Above it, the reads per run stay as many as
 * the endpoints keeping minimum workers (what a run read before), so a large account's cycle
 * sends no more requests than it did; every endpoint is read in turn, stalest first.
 */
const SCALE_TO_ZERO_READS = 10;

/** How far back billing must show an endpoint's workers for it to count as still paying. */
const BILLED_LATELY_MS = 2 * HOUR_MS;

/**
 * The endpoints with `workers.min` 0 whose workers billing shows paid for in the last two hours:
 * either busy or not scaling down, which only their workers summary tells apart (the waste rule
 * then judges it). None while the waste rule is off.
 */
async function billingScaleToZero(ctx: CollectContext, listed: readonly Endpoint[]): Promise<string[]> {
  if (!ctx.config.waste.enabled) return [];
  const scaleToZero = listed.filter((endpoint) => endpoint.workers.min === 0);
  if (scaleToZero.length === 0) return [];
  const { bucketSize } = ctx.config.collectors.billing;
  const windowStart = bucketFloor(ctx.now - BILLED_LATELY_MS, bucketSize);
  const spend = await spendSince(ctx.db, {
    account: ctx.account,
    kind: 'serverless',
    bucketSize,
    windowStart,
    now: ctx.now,
  });
  return scaleToZero
    .filter((endpoint) => (spend.get(endpoint.id)?.windowAmount ?? 0) > 0)
    .map((endpoint) => endpoint.id);
}

/**
 * How many more requests this run may send: what the tightest window has left, less a reserve of
 * its quota. A window that has reset since it was last reported is whole again; without
 * rate-limit headers there is no limit.
 */
export function affordable(windows: readonly RateLimitWindow[]): number {
  let allowed = Number.POSITIVE_INFINITY;
  for (const window of windows) {
    const left = window.remaining ?? window.quota;
    if (left === null) continue;
    const reserve = Math.ceil((window.quota ?? left) * BUDGET_RESERVE_SHARE);
    allowed = Math.min(allowed, left - reserve);
  }
  return Math.max(0, allowed);
}

/**
 * Every chosen endpoint's summary, or none for an endpoint deleted since the list (404), and the
 * workers the schema rejected, named per endpoint (the summary is the API's count either way).
 * Waits for every request before failing, so a failed run leaves nothing in flight behind it.
 */
async function fetchSummaries(
  ctx: CollectContext,
  ids: readonly string[],
): Promise<{ summaries: Map<string, WorkerSummary>; rejected: Array<[RejectedItem[], ListWords]> }> {
  const settled = await Promise.allSettled(
    ids.map(async (id) => {
      try {
        return { id, answer: await ctx.api.rest.listEndpointWorkers(id, { signal: ctx.signal }) };
      } catch (error) {
        if (!(error instanceof ApiError && error.kind === 'not_found')) throw error;
        ctx.log.debug({ endpointId: id }, 'endpoint gone before its workers were read');
        return { id, answer: null };
      }
    }),
  );
  const summaries = new Map<string, WorkerSummary>();
  const rejected: Array<[RejectedItem[], ListWords]> = [];
  for (const result of settled) {
    if (result.status === 'rejected') throw result.reason;
    const { id, answer } = result.value;
    if (!answer) continue;
    summaries.set(id, answer.summary);
    const kept = 'the summary stored as the API counted it';
    rejected.push([answer.workers.rejected, { key: `${id} workers`, one: 'worker', many: 'workers', kept }]);
  }
  return { summaries, rejected };
}

function endpointRow(endpoint: Endpoint): EndpointInput {
  return {
    endpointId: endpoint.id,
    name: endpoint.name,
    type: endpoint.type ?? null,
    gpuPools: endpoint.gpu ? [...endpoint.gpu.pools] : null,
    gpuCount: endpoint.gpu?.count ?? null,
    workersMin: endpoint.workers.min,
    workersMax: endpoint.workers.max,
    idleTimeoutS: endpoint.workers.idleTimeout ?? null,
    createdAt: Date.parse(endpoint.createdAt),
  };
}

function workerSample(endpointId: string, summary: WorkerSummary, observedAt: number): WorkerSampleInput {
  const { running, idle, initializing, throttled, unhealthy, total } = summary;
  return { endpointId, observedAt, running, idle, initializing, throttled, unhealthy, total };
}
