import { type BucketSize, type BucketWindow, bucketFloor } from '../buckets.js';

/**
 * [startMs, endMs) cut into aligned chunks, newest first, each reaching back about `spanMs` (at
 * least one bucket): one request's worth, so a large account's response stays bounded. The API
 * snaps a query's startTime down and its endTime up to bucket boundaries (buckets.ts), so we send
 * aligned times and know exactly which buckets a response covers.
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
