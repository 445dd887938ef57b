import { bucketFloor, DAY_MS, HOUR_MS } from '../db/buckets.js';
import type { BucketSize } from '../db/schema.js';

/**
 * The API snaps a query's startTime down and its endTime up to bucket boundaries (db/buckets.ts),
 * so we send aligned times and know exactly which buckets a response covers.
 */

export { bucketFloor };

/** A half-open span [startMs, endMs) of whole buckets. */
export interface BucketWindow {
  startMs: number;
  endMs: number;
}

/** `t` itself when it is a boundary, else the end of its bucket. */
export function bucketCeil(t: number, size: BucketSize): number {
  const start = bucketFloor(t, size);
  return start === t ? t : nextBucketStart(start, size);
}

/** The start of the bucket after the one starting at `start`. */
export function nextBucketStart(start: number, size: BucketSize): number {
  const date = new Date(start);
  switch (size) {
    case 'hour':
      return start + HOUR_MS;
    case 'day':
      return start + DAY_MS;
    case 'week':
      return start + 7 * DAY_MS;
    case 'month':
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
    case 'year':
      return Date.UTC(date.getUTCFullYear() + 1, 0, 1);
  }
}

/**
 * [startMs, endMs) cut into aligned chunks, newest first, each reaching back about `spanMs` (at
 * least one bucket): one request's worth, so a large account's response stays bounded.
 */
export function chunksOf(window: BucketWindow, spanMs: number, size: BucketSize): BucketWindow[] {
  const chunks: BucketWindow[] = [];
  for (let endMs = window.endMs; endMs > window.startMs; ) {
    const startMs = Math.max(window.startMs, bucketFloor(endMs - Math.max(1, spanMs), size));
    chunks.push({ startMs, endMs });
    endMs = startMs;
  }
  return chunks;
}
