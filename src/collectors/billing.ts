import { type BucketWindow, bucketCeil, bucketFloor, DAY_MS, HOUR_MS } from '../buckets.js';
import {
  advanceBackfill,
  type BackfillKey,
  type BackfillProgress,
  beginBackfill,
  completeBackfill,
  getBackfill,
} from '../db/billing.js';
import { lastSuccessAt } from '../db/collector-runs.js';
import {
  type BucketSize,
  billingBackfill,
  billingDays,
  billingDigests,
  billingKinds,
  billingMonths,
  billingRecords,
} from '../db/schema.js';
import { type FetchedPage, fetchBillingPage } from './billing-routes.js';
import { storeBillingPage } from './billing-store.js';
import { chunksOf } from './billing-windows.js';
import type { CollectContext, Collector } from './collector.js';
import { fetchAll } from './fetch-all.js';
import { type Progress, startProgress } from './progress.js';
import { rejectedError } from './rejected-items.js';

/**
 * A backfill request covers at most this much (or one bucket, if larger), so that no answer is
 * large: twelve hours of a `large` account's Pods is about 18,000 records, 2.9 MB of JSON. Each is
 * committed with its cursor.
 */
export const CHUNK_MS = 12 * HOUR_MS;

interface RoutePlan {
  key: BackfillKey;
  backfill: BackfillProgress;
  /** Re-read every run, because RunPod revises recent buckets. */
  reRead: BucketWindow;
}

/**
 * The six billing routes into `billing_records`. Every run re-reads a trailing window and
 * replaces what it covers, so late and corrected amounts win and nothing is counted twice; then
 * the backfill walks history back a chunk at a time, committing each chunk with its cursor so a
 * crash resumes where it stopped. Re-read first, what is stored reaches unbroken from the cursor
 * up to now, so rules that read billing during a backfill see recent money whole. A record the
 * schema rejects leaves its bucket as stored and fails the run, naming it, once everything else
 * is stored: the cursor stays before its chunk, and the next re-read reaches back to it.
 */
export const billingCollector: Collector<'billing'> = {
  name: 'billing',
  feeds: [billingBackfill, billingDays, billingDigests, billingMonths, billingRecords],
  async collect(ctx) {
    const plans = await planRoutes(ctx);
    const rejected: FetchedPage[] = [];
    const reread = await reRead(ctx, plans, rejected);
    const backfilled = await backfill(ctx, plans, rejected);
    const rows = reread + backfilled;
    if (rejected.length > 0) throw rejectedError(ctx.log, rejected);
    return { rows };
  },
};

async function planRoutes(ctx: CollectContext): Promise<RoutePlan[]> {
  const { backfillMs, trailingWindowMs, bucketSize } = ctx.config.collectors.billing;
  const lastOk = await lastSuccessAt(ctx.db, ctx.account, 'billing');
  const end = bucketCeil(ctx.now, bucketSize);
  const plans: RoutePlan[] = [];
  for (const kind of billingKinds) {
    const key = { account: ctx.account, kind, bucketSize };
    const existing = await getBackfill(ctx.db, key);
    // The re-read reaches back to what no finished run has read, or may since have been revised:
    // the trailing window before the last successful run or, before any, where the backfill began
    // (a backfill begins at its first run's re-read start and reaches `backfill` further back).
    const unread =
      lastOk !== null ? lastOk - trailingWindowMs : existing ? existing.targetStartTime + backfillMs : ctx.now;
    const earliest = ctx.now - backfillMs - trailingWindowMs;
    const from = bucketFloor(Math.max(earliest, Math.min(ctx.now - trailingWindowMs, unread)), bucketSize);
    const backfill =
      existing ??
      (await beginBackfill(ctx.db, key, { from, targetStartTime: bucketFloor(from - backfillMs, bucketSize) }));
    plans.push({ key, backfill, reRead: { startMs: from, endMs: end } });
  }
  return plans;
}

async function backfill(ctx: CollectContext, plans: RoutePlan[], rejected: FetchedPage[]): Promise<number> {
  const size = ctx.config.collectors.billing.bucketSize;
  const cursors = new Map<RoutePlan, number>();
  for (const plan of plans) {
    const { key, backfill } = plan;
    if (backfill.doneAt !== null) continue;
    if (backfill.cursorStartTime > backfill.targetStartTime) cursors.set(plan, backfill.cursorStartTime);
    else await completeBackfill(ctx.db, key, ctx.now);
  }
  if (cursors.size === 0) return 0;
  const total = [...cursors].reduce((sum, [plan, cursor]) => sum + chunksFrom(plan, cursor, size).length, 0);
  const progress = startProgress({
    label: 'billing backfill',
    total,
    unit: 'chunks',
    log: ctx.log,
    stream: ctx.progressStream,
  });
  // Requests asked ahead of their turn, across routes: never more than the client allows.
  const ahead = { count: 0 };
  try {
    // The routes walk back side by side, each at its own pace: they share no rows.
    const stored = await fetchAll(
      ctx.signal,
      [...cursors].map(
        ([plan, cursor]) =>
          (signal) =>
            backfillRoute(ctx, plan, cursor, { progress, ahead, rejected }, signal),
      ),
    );
    return stored.reduce((sum, count) => sum + count, 0);
  } finally {
    progress.finish();
  }
}

/**
 * One route's chunks, newest first, each stored and then its cursor moved, so a crash mid-chunk
 * resumes at the chunk with nothing stored twice. The next chunk is asked for while this one is
 * stored, so the API prepares its answer meanwhile. A chunk with a rejected record stores its
 * other buckets but moves no cursor, and ends the route's backfill for this run: the next run
 * starts again at that chunk.
 */
async function backfillRoute(
  ctx: CollectContext,
  plan: RoutePlan,
  cursor: number,
  shared: { progress: Progress; ahead: { count: number }; rejected: FetchedPage[] },
  signal: AbortSignal,
): Promise<number> {
  const { progress, ahead } = shared;
  const size = ctx.config.collectors.billing.bucketSize;
  const { key, backfill } = plan;
  const chunks = chunksFrom(plan, cursor, size);
  const fetchChunk = (chunk: BucketWindow) => fetchBillingPage(ctx.api, key.kind, size, chunk, { signal });
  let rows = 0;
  let next: Promise<FetchedPage> | undefined;
  try {
    for (const [index, chunk] of chunks.entries()) {
      let current = next;
      if (current !== undefined) ahead.count--;
      else current = fetchChunk(chunk);
      const following = chunks[index + 1];
      next = undefined;
      if (following !== undefined && ahead.count < ctx.api.requestsAhead) {
        ahead.count++;
        next = fetchChunk(following);
        // Observed from the start: it may fail while this chunk is still read or stored, or after
        // the route has stopped, and an unobserved rejection would end the process. Its failure
        // still reaches the run through the `await` when its turn comes.
        next.catch(() => {});
      }
      const fetched = await current;
      rows += await storePage(ctx, fetched, signal);
      if (fetched.rejected.length > 0) {
        shared.rejected.push(fetched);
        break;
      }
      const doneAt = chunk.startMs <= backfill.targetStartTime ? ctx.now : undefined;
      await advanceBackfill(ctx.db, key, chunk.startMs, doneAt);
      progress.advance();
    }
  } finally {
    // A chunk asked for ahead whose turn never came: its answer is not stored.
    if (next !== undefined) ahead.count--;
  }
  return rows;
}

/** The chunks a route's backfill has still to read, newest first. */
function chunksFrom(plan: RoutePlan, cursor: number, size: BucketSize): BucketWindow[] {
  return chunksOf({ startMs: plan.backfill.targetStartTime, endMs: cursor }, CHUNK_MS, size);
}

/**
 * The v2 billing routes take any window (api-notes §3.1), so the re-read asks for its whole
 * trailing window in one request per route. Only a catch-up after a long gap without a
 * successful run is cut, into chunks of twice the trailing window, so no answer grows past about
 * twice the usual one.
 */
export function reReadChunkMs(trailingWindowMs: number): number {
  return Math.max(DAY_MS, 2 * trailingWindowMs);
}

async function reRead(ctx: CollectContext, plans: RoutePlan[], rejected: FetchedPage[]): Promise<number> {
  const { bucketSize: size, trailingWindowMs } = ctx.config.collectors.billing;
  const span = reReadChunkMs(trailingWindowMs);
  const requests = plans.flatMap((plan) =>
    chunksOf(plan.reRead, span, size).map((chunk) => ({ kind: plan.key.kind, chunk })),
  );
  const stored = await fetchAll(
    ctx.signal,
    requests.map(({ kind, chunk }) => async (signal) => {
      const fetched = await fetchBillingPage(ctx.api, kind, size, chunk, { signal });
      if (fetched.rejected.length > 0) rejected.push(fetched);
      return storePage(ctx, fetched, signal);
    }),
  );
  return stored.reduce((sum, rows) => sum + rows, 0);
}

/** Stores a page, counted as in flight like a request (a virtual clock waits for it): rows written and deleted. */
async function storePage(ctx: CollectContext, fetched: FetchedPage, signal: AbortSignal): Promise<number> {
  const stored = await ctx.api.hold(storeBillingPage(ctx.db, ctx.account, fetched.page, ctx.now, { signal }));
  return stored.written + stored.deleted;
}
