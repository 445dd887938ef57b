import {
  advanceBackfill,
  type BackfillKey,
  type BackfillProgress,
  beginBackfill,
  completeBackfill,
  getBackfill,
} from '../db/billing.js';
import { lastSuccessAt } from '../db/collector-runs.js';
import { type BucketSize, billingKinds } from '../db/schema.js';
import { type PageStore, streamBillingPage } from './billing-routes.js';
import { storeBillingPage } from './billing-store.js';
import { type BucketWindow, bucketCeil, bucketFloor, chunkEndingAt, chunksOf } from './billing-windows.js';
import type { CollectContext, Collector } from './collector.js';
import { fetchAll } from './fetch-all.js';
import { startProgress } from './progress.js';

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
export const billingCollector: Collector = {
  name: 'billing',
  async collect(ctx) {
    const plans = planRoutes(ctx);
    const backfilled = await backfill(ctx, plans);
    return { rows: backfilled + (await reRead(ctx, plans)) };
  },
};

function planRoutes(ctx: CollectContext): RoutePlan[] {
  const { backfillMs, trailingWindowMs, bucketSize } = ctx.config.collectors.billing;
  const lastOk = lastSuccessAt(ctx.db, ctx.account, 'billing');
  const end = bucketCeil(ctx.now, bucketSize);
  return billingKinds.map((kind) => {
    const key = { account: ctx.account, kind, bucketSize };
    const existing = getBackfill(ctx.db, key);
    // The re-read reaches back to what no finished run has read, or may since have been revised:
    // the trailing window before the last successful run or, before any, where the backfill began
    // (a backfill begins at its first run's re-read start and reaches `backfill` further back).
    const unread =
      lastOk !== null ? lastOk - trailingWindowMs : existing ? existing.targetStartTime + backfillMs : ctx.now;
    const earliest = ctx.now - backfillMs - trailingWindowMs;
    const from = bucketFloor(Math.max(earliest, Math.min(ctx.now - trailingWindowMs, unread)), bucketSize);
    const backfill =
      existing ?? beginBackfill(ctx.db, key, { from, targetStartTime: bucketFloor(from - backfillMs, bucketSize) });
    return { key, backfill, reRead: { startMs: from, endMs: end } };
  });
}

async function backfill(ctx: CollectContext, plans: RoutePlan[]): Promise<number> {
  const size = ctx.config.collectors.billing.bucketSize;
  const cursors = new Map<RoutePlan, number>();
  for (const plan of plans) {
    const { key, backfill } = plan;
    if (backfill.doneAt !== null) continue;
    if (backfill.cursorStartTime > backfill.targetStartTime) cursors.set(plan, backfill.cursorStartTime);
    else completeBackfill(ctx.db, key, ctx.now);
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
  let rows = 0;
  try {
    while (cursors.size > 0) {
      ctx.signal.throwIfAborted();
      const steps = [...cursors].map(([plan, cursor]) => ({
        plan,
        chunk: chunkEndingAt(cursor, CHUNK_MS, size, plan.backfill.targetStartTime),
      }));
      // Each chunk is stored while it arrives; its cursor moves once the whole chunk is stored and
      // its echo checked, so a crash mid-chunk resumes at the chunk, with nothing stored twice.
      const stored = await fetchAll(
        ctx.signal,
        steps.map(({ plan, chunk }) => async (signal) => {
          const page = await streamBillingPage(ctx.api, plan.key.kind, size, chunk, { signal }, pageStore(ctx, signal));
          signal.throwIfAborted();
          ctx.db.transaction(() => {
            advanceBackfill(ctx.db, plan.key, chunk.startMs);
            if (chunk.startMs <= plan.backfill.targetStartTime) completeBackfill(ctx.db, plan.key, ctx.now);
          });
          return page.written + page.deleted;
        }),
      );
      rows += stored.reduce((sum, count) => sum + count, 0);
      for (const { plan, chunk } of steps) {
        if (chunk.startMs <= plan.backfill.targetStartTime) cursors.delete(plan);
        else cursors.set(plan, chunk.startMs);
      }
      progress.advance(steps.length);
    }
  } finally {
    progress.finish();
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
