import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { type BucketWindow, nextBucketStart } from '../buckets.js';
import { type BillingRecordInput, type ReportedBucket, replaceBillingBuckets } from '../db/billing.js';
import { textDigest } from '../db/billing-digest.js';
import { byStartTime } from '../db/billing-writer.js';
import type { Database } from '../db/open.js';
import type { BillingPage } from './billing-routes.js';

/** Rows per transaction: a slice stores in a few tens of milliseconds, so other answers are read between slices. */
export const SLICE_ROWS = 5_000;

/** A part of a page's window, whole buckets, with the records that start in it. */
export interface PageSlice {
  window: BucketWindow;
  records: BillingRecordInput[];
}

/**
 * Cuts a page into slices of whole buckets, newest first, each of at least `maxRows` records
 * (the last one may be smaller) and covering together exactly the page's window less the buckets
 * it keeps, empty buckets included (a stored bucket there may have to be deleted).
 */
export function slicesOf(
  page: Pick<BillingPage, 'window' | 'records' | 'keep' | 'bucketSize'>,
  maxRows = SLICE_ROWS,
): PageSlice[] {
  const byStart = byStartTime(page.records);
  const slices: PageSlice[] = [];
  // A kept bucket is a boundary no slice crosses: [start, its end) is left out.
  const kept = [...page.keep].sort((a, b) => b - a);
  const starts = [...byStart.keys(), ...kept].sort((a, b) => b - a);
  let endMs = page.window.endMs;
  let records: BillingRecordInput[] = [];
  const close = (startMs: number) => {
    if (endMs > startMs) slices.push({ window: { startMs, endMs }, records });
    records = [];
  };
  const keptSet = new Set(kept);
  for (const start of new Set(starts)) {
    if (keptSet.has(start)) {
      close(nextBucketStart(start, page.bucketSize));
      endMs = start;
      continue;
    }
    for (const record of byStart.get(start) ?? []) records.push(record);
    if (records.length >= maxRows && start > page.window.startMs) {
      close(start);
      endMs = start;
    }
  }
  close(page.window.startMs);
  return slices;
}

export interface StoreOptions {
  signal: AbortSignal;
  /** Runs after each slice's transaction has committed. */
  onSliceStored?(window: BucketWindow): void;
  maxRows?: number;
}

/**
 * Makes the stored buckets of the page's window exactly its records, a slice at a time, newest
 * first, yielding to the event loop between slices so the other collectors' answers are read
 * meanwhile. Each slice is replaced in its own transaction, so a run that stops between two
 * slices leaves every bucket either as it was or as this page reports it: replacing is
 * idempotent, and the next run re-reads what was not stored (the backfill from its cursor, the
 * re-read from the last successful run). Nothing is lost and nothing is counted twice.
 */
export async function storeBillingPage(
  database: Database,
  account: string,
  page: BillingPage,
  fetchedAt: number,
  options: StoreOptions,
): Promise<{ written: number; deleted: number }> {
  let written = 0;
  let deleted = 0;
  const slices = slicesOf(page, options.maxRows);
  for (const [index, slice] of slices.entries()) {
    if (index > 0) {
      await yieldToEventLoop();
      options.signal.throwIfAborted();
    }
    const window = {
      account,
      kind: page.kind,
      bucketSize: page.bucketSize,
      from: slice.window.startMs,
      to: slice.window.endMs,
    };
    const result = await replaceBillingBuckets(database, window, bucketsOf(slice.records), fetchedAt);
    written += result.written;
    deleted += result.deleted;
    options.onSliceStored?.(slice.window);
  }
  return { written, deleted };
}

/**
 * A slice's records by bucket, each with the digest of what its rows would hold: a re-read mostly
 * reports what is stored, and a bucket whose digest is the stored one is left as it is without
 * reading its rows back (replaceBillingBuckets).
 */
function bucketsOf(records: readonly BillingRecordInput[]): ReportedBucket[] {
  return [...byStartTime(records)].map(([startTime, bucket]) => new CheckedBucket(startTime, bucket));
}

/** A bucket of checked records; a class, not an object with a closure, as a re-read makes thousands. */
class CheckedBucket implements ReportedBucket {
  readonly digest: number;
  constructor(
    readonly startTime: number,
    private readonly bucket: readonly BillingRecordInput[],
  ) {
    // Every column a row holds beside the bucket's own key: its resource, end and amounts.
    let text = '';
    for (const record of bucket) {
      text += `${record.resourceId}\u0000${record.endTime}\u0000${record.amountsText ?? JSON.stringify(record.amounts)}\n`;
    }
    this.digest = textDigest(text);
  }
  records(): readonly BillingRecordInput[] {
    return this.bucket;
  }
}
