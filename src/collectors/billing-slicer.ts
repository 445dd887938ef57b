import type { BillingRecordInput } from '../db/billing.js';
import type { BucketWindow } from './billing-windows.js';

/**
 * Rows per transaction. A page of `large` holds ~90,000 buckets; stored in one transaction it
 * held the event loop for over a second while the other collectors' answers waited. A slice of
 * this size takes a few tens of milliseconds.
 */
export const SLICE_ROWS = 5_000;

/** Stores one slice: makes the stored buckets of `window` exactly `records`. */
export type SliceStore<R = BillingRecordInput> = (window: BucketWindow, records: R[]) => Promise<void>;

/**
 * The records of an answer did not come in time order: a bucket already stored got more records.
 * The page must be read again and stored whole (billing-routes.ts does).
 */
export class OutOfOrderError extends Error {
  constructor(readonly startTime: number) {
    super(`billing records not in time order: a record for ${new Date(startTime).toISOString()} came late`);
    this.name = 'OutOfOrderError';
  }
}

/**
 * Cuts the records of one answer, as they arrive, into slices of whole buckets that together
 * cover its window exactly (empty buckets included: a stored bucket there may have to go), and
 * stores each slice once it holds `maxRows` records, so memory holds a slice, not an answer.
 *
 * A bucket is known to be whole only when the next bucket's first record arrives, which holds
 * when the API sends its records in time order (it does, oldest first; newest first works too).
 * A record that breaks the order would land in a bucket already stored with only part of its
 * records: that is an OutOfOrderError, and the caller reads the page again whole. Until it does,
 * the buckets stored so far hold what the API reported for them, which a failed run re-reads.
 */
export class BillingSlicer<R extends { startTime: number } = BillingRecordInput> {
  /** +1 oldest first, -1 newest first, 0 while only one bucket has been seen. */
  private direction = 0;
  private openStart: number | undefined;
  private open: R[] = [];
  private pending: R[] = [];
  /** Where the part of the window not yet stored begins (oldest first) or ends (newest first). */
  private boundary = 0;

  constructor(
    private readonly window: BucketWindow,
    private readonly store: SliceStore<R>,
    private readonly maxRows = SLICE_ROWS,
  ) {}

  /** Takes the next records in the order the API sent them; resolves once any slice they filled is stored. */
  async add(records: readonly R[]): Promise<void> {
    for (const record of records) {
      const start = record.startTime;
      if (start === this.openStart) {
        this.open.push(record);
        continue;
      }
      if (this.openStart === undefined) {
        this.openStart = start;
        this.open.push(record);
        continue;
      }
      const direction = start > this.openStart ? 1 : -1;
      if (this.direction === 0) {
        this.direction = direction;
        this.boundary = direction > 0 ? this.window.startMs : this.window.endMs;
      } else if (direction !== this.direction) {
        throw new OutOfOrderError(start);
      }
      // The open bucket is whole: the API has moved on to the next one.
      const closed = this.openStart;
      for (const kept of this.open) this.pending.push(kept);
      this.open = [record];
      this.openStart = start;
      if (this.pending.length >= this.maxRows) {
        // Oldest first, the slice reaches up to the new bucket; newest first, down to the closed one.
        const slice =
          direction > 0 ? { startMs: this.boundary, endMs: start } : { startMs: closed, endMs: this.boundary };
        await this.flush(slice);
        this.boundary = direction > 0 ? start : closed;
      }
    }
  }

  /** The answer is complete: stores the rest of the window, however few records it holds. */
  async finish(): Promise<void> {
    for (const kept of this.open) this.pending.push(kept);
    this.open = [];
    const { startMs, endMs } = this.window;
    const rest =
      this.direction > 0
        ? { startMs: this.boundary, endMs }
        : this.direction < 0
          ? { startMs, endMs: this.boundary }
          : { startMs, endMs };
    if (rest.endMs > rest.startMs) await this.flush(rest);
  }

  private async flush(slice: BucketWindow): Promise<void> {
    const records = this.pending;
    this.pending = [];
    await this.store(slice, records);
  }
}
