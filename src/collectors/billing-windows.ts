import { bucketFloor } from '../db/buckets.js';
import type { BucketSize } from '../db/schema.js';

export { bucketFloor };

/**
 * Billing buckets as the v2 API cuts them: UTC hours, days, ISO weeks (from Monday), months and
 * years. The API snaps a query's startTime down and its endTime up to these boundaries, so we
 * send aligned times and know exactly which buckets a response covers.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

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
 * The aligned chunk that ends at `endMs` and reaches back about `spanMs` (at least one bucket,
 * never before `floorMs`): one request's worth, so a large account's response stays bounded.
 */
export function chunkEndingAt(endMs: number, spanMs: number, size: BucketSize, floorMs: number): BucketWindow {
  const startMs = Math.max(floorMs, bucketFloor(endMs - Math.max(1, spanMs), size));
  return { startMs, endMs };
}

/** [startMs, endMs) cut into aligned chunks, newest first. */
export function chunksOf(window: BucketWindow, spanMs: number, size: BucketSize): BucketWindow[] {
  const chunks: BucketWindow[] = [];
  for (let end = window.endMs; end > window.startMs; ) {
    const chunk = chunkEndingAt(end, spanMs, size, window.startMs);
    chunks.push(chunk);
    end = chunk.startMs;
  }
  return chunks;
}
