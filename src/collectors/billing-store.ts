import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { type BillingRecordInput, replaceBillingBuckets, replaceBillingWindow } from '../db/billing.js';
import type { Database } from '../db/open.js';
import type { BillingPage, BucketPage } from './billing-routes.js';
import { SLICE_ROWS } from './billing-slicer.js';
import type { BucketWindow } from './billing-windows.js';

/** A part of a page's window, whole buckets, with the records that start in it. */
export interface PageSlice {
  window: BucketWindow;
  records: BillingRecordInput[];
}

/**
 * Cuts a page into slices of whole buckets, newest first, each of at least `maxRows` records
 * (the last one may be smaller) and covering together exactly the page's window, empty buckets
 * included (a stored bucket there may have to be deleted).
 */
export function slicesOf(page: BillingPage, maxRows = SLICE_ROWS): PageSlice[] {
  const byStart = new Map<number, BillingRecordInput[]>();
  for (const record of page.records) {
    const bucket = byStart.get(record.startTime);
    if (bucket) bucket.push(record);
    else byStart.set(record.startTime, [record]);
  }
  const slices: PageSlice[] = [];
  let endMs = page.window.endMs;
  let records: BillingRecordInput[] = [];
  for (const start of [...byStart.keys()].sort((a, b) => b - a)) {
    for (const record of byStart.get(start) ?? []) records.push(record);
    if (records.length >= maxRows && start > page.window.startMs) {
      slices.push({ window: { startMs: start, endMs }, records });
      endMs = start;
      records = [];
    }
  }
  if (endMs > page.window.startMs) slices.push({ window: { startMs: page.window.startMs, endMs }, records });
  return slices;
}

export interface StoreOptions {
  signal: AbortSignal;
  /** Runs inside each slice's transaction: bookkeeping (a backfill cursor) that commits with its rows. */
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
  page: BillingPage | BucketPage,
  fetchedAt: number,
  options: StoreOptions,
): Promise<{ written: number; deleted: number }> {
  // A slice read as text was cut to size as it arrived (billing-slicer.ts): one transaction.
  // The bookkeeping runs inside the write's own transaction, not around it: see replaceBillingBuckets.
  if ('buckets' in page) {
    const { onSliceStored } = options;
    const inside = onSliceStored && (() => onSliceStored(page.window));
    return replaceBillingBuckets(database, storedWindow(account, page, page.window), page.buckets, fetchedAt, inside);
  }
  let written = 0;
  let deleted = 0;
  const slices = slicesOf(page, options.maxRows);
  for (const [index, slice] of slices.entries()) {
    if (index > 0) {
      await yieldToEventLoop();
      options.signal.throwIfAborted();
    }
    const { onSliceStored } = options;
    const inside = onSliceStored && (() => onSliceStored(slice.window));
    const result = replaceBillingWindow(
      database,
      storedWindow(account, page, slice.window),
      slice.records,
      fetchedAt,
      inside,
    );
    written += result.written;
    deleted += result.deleted;
  }
  return { written, deleted };
}

/**
 * The same as storeBillingPage for a few small pages, in one synchronous transaction (tests and
 * tools that build pages by hand).
 */
export function replaceBillingPages(
  database: Database,
  account: string,
  pages: readonly BillingPage[],
  fetchedAt: number,
): { written: number; deleted: number } {
  let written = 0;
  let deleted = 0;
  database.transaction(() => {
    for (const page of pages) {
      const result = replaceBillingWindow(database, storedWindow(account, page, page.window), page.records, fetchedAt);
      written += result.written;
      deleted += result.deleted;
    }
  });
  return { written, deleted };
}

/** The stored window a page (or one slice of it) replaces: its account, route and time span. */
function storedWindow(account: string, page: BillingPage | BucketPage, span: { startMs: number; endMs: number }) {
  return { account, kind: page.kind, bucketSize: page.bucketSize, from: span.startMs, to: span.endMs };
}
