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
  billingRecords,
} from '../db/schema.js';
import { type PageStore, streamBillingPage } from './billing-routes.js';
import { storeBillingPage } from './billing-store.js';
import { type BucketWindow, bucketCeil, bucketFloor, chunksOf } from './billing-windows.js';
import type { CollectContext, Collector } from './collector.js';
import { fetchAll } from './fetch-all.js';
import { type Progress, startProgress } from './progress.js';

/** A backfill request covers at most a day (or one bucket, if larger): each is committed with its cursor. */
const CHUNK_MS = 24 * 3_600_000;

interface RoutePlan {
  key: BackfillKey;
  backfill: BackfillProgress;
  /** Re-read every run, because RunPod revises recent buckets. */
  reRead: BucketWindow;
}

/**
 * The six billing routes into `billing_records`. The first run backfills history a chunk at a
 * time, committing each chunk with its cursor so a crash resumes where it stopped; every run
 * then re-reads a trailing window and replaces what it covers, so late and corrected amounts
 * win and nothing is counted twice. Answers are stored while they arrive, a slice of whole
 * buckets per transaction (billing-slicer.ts, billing-store.ts), so no answer is held whole: the
 * backfill's cursor advances with each stored chunk, and a run that fails midway leaves every
 * bucket either as it was or as the API now reports it, and is re-read in full next run.
 */
export const billingCollector: Collector<'billing'> = {
  name: 'billing',
  feeds: [billingBackfill, billingDays, billingDigests, billingRecords],
  async collect(ctx) {
    const plans = await planRoutes(ctx);
    const backfilled = await backfill(ctx, plans);
    return { rows: backfilled + (await reRead(ctx, plans)) };
  },
};

async function planRoutes(ctx: CollectContext): Promise<RoutePlan[]> {
  const { backfillMs, trailingWindowMs, bucketSize } = ctx.config.collectors.billing;
  const lastOk = lastSuccessAt(ctx.db, ctx.account, 'billing');
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

async function backfill(ctx: CollectContext, plans: RoutePlan[]): Promise<number> {
  const size = ctx.config.collectors.billing.bucketSize;
  const cursors = new Map<RoutePlan, number>();
  for (const plan of plans) {
    const { key, backfill } = plan;
    if (backfill.doneAt !== null) continue;
    if (backfill.cursorStartTime > backfill.targetStartTime) cursors.set(plan, backfill.cursorStartTime);
    else await completeBackfill(ctx.db, key, ctx.now);
  }
  if (cursors.size === 0) return 0;
  const total = [...cursors].reduce((sum, [plan, cursor]) => sum + remainingChunks(plan, cursor, size), 0);
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
            backfillRoute(ctx, plan, cursor, { progress, ahead }, signal),
      ),
    );
    return stored.reduce((sum, count) => sum + count, 0);
  } finally {
    progress.finish();
  }
}

/**
 * One route's chunks, newest first, each stored while it arrives and its cursor moved once the
 * whole chunk is stored and its echo checked, so a crash mid-chunk resumes at the chunk with
 * nothing stored twice. The next chunk is asked for while this one is stored, so the API
 * prepares its answer meanwhile instead of the daemon waiting for it; the next chunk stores
 * nothing before this one is stored with its cursor (its turn), and nothing at all if this one
 * fails. Stores keep their order, chunk after chunk: a day's totals add up exactly as before.
 */
async function backfillRoute(
  ctx: CollectContext,
  plan: RoutePlan,
  cursor: number,
  shared: { progress: Progress; ahead: { count: number } },
  signal: AbortSignal,
): Promise<number> {
  const { progress, ahead } = shared;
  const size = ctx.config.collectors.billing.bucketSize;
  const { key, backfill } = plan;
  const chunks = chunksOf({ startMs: backfill.targetStartTime, endMs: cursor }, CHUNK_MS, size);
  const store = pageStore(ctx, signal);
  const fetchChunk = async (chunk: BucketWindow, turn: Promise<unknown>): Promise<number> => {
    const page = await streamBillingPage(ctx.api, key.kind, size, chunk, { signal }, store, false, turn);
    await turn;
    signal.throwIfAborted();
    await advanceBackfill(ctx.db, key, chunk.startMs, chunk.startMs <= backfill.targetStartTime ? ctx.now : undefined);
    return page.written + page.deleted;
  };
  let rows = 0;
  let next: Promise<number> | undefined;
  for (const [index, chunk] of chunks.entries()) {
    let current = next;
    if (current !== undefined) ahead.count--;
    else current = fetchChunk(chunk, Promise.resolve());
    const following = chunks[index + 1];
    next = undefined;
    if (following !== undefined && ahead.count < ctx.api.requestsAhead) {
      ahead.count++;
      next = fetchChunk(following, current);
      // If this chunk fails, the next fails with it (its turn) and is not awaited: handled here.
      next.catch(() => {});
    }
    rows += await current;
    progress.advance();
  }
  return rows;
}

function remainingChunks(plan: RoutePlan, cursor: number, size: BucketSize): number {
  return chunksOf({ startMs: plan.backfill.targetStartTime, endMs: cursor }, CHUNK_MS, size).length;
}

/**
 * The v2 billing routes take any window (api-notes §3.1), so the re-read asks for its whole
 * trailing window in one request per route. Only a catch-up after a long gap without a
 * successful run is cut, into chunks of twice the trailing window, so no answer grows past about
 * twice the usual one.
 */
export function reReadChunkMs(trailingWindowMs: number): number {
  return Math.max(CHUNK_MS, 2 * trailingWindowMs);
}

async function reRead(ctx: CollectContext, plans: RoutePlan[]): Promise<number> {
  const { bucketSize: size, trailingWindowMs } = ctx.config.collectors.billing;
  const span = reReadChunkMs(trailingWindowMs);
  const requests = plans.flatMap((plan) =>
    chunksOf(plan.reRead, span, size).map((chunk) => ({ kind: plan.key.kind, chunk })),
  );
  // Each page is stored while it arrives, so no route's answer is ever held whole.
  const stored = await fetchAll(
    ctx.signal,
    requests.map(
      ({ kind, chunk }) =>
        (signal) =>
          streamBillingPage(ctx.api, kind, size, chunk, { signal }, pageStore(ctx, signal), true),
    ),
  );
  const written = stored.reduce((sum, page) => sum + page.written, 0);
  const deleted = stored.reduce((sum, page) => sum + page.deleted, 0);
  ctx.log.debug({ pages: stored.length, written, deleted }, 'billing re-read stored');
  return written + deleted;
}

/** Stores a page or a slice of one, counted as in flight like a request (a virtual clock waits for it). */
function pageStore(ctx: CollectContext, signal: AbortSignal): PageStore {
  return (page, maxRows) =>
    ctx.api.hold(storeBillingPage(ctx.db, ctx.account, page, ctx.now, { signal, ...(maxRows ? { maxRows } : {}) }));
}
