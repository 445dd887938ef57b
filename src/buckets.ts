/**
 * v2 billing buckets, as the API cuts them: UTC hours, days, ISO weeks (from Monday), months and
 * years. Every boundary is an hour boundary. One arithmetic for the daemon (its requests and the
 * buckets it stores) and the simulator (the buckets it answers with).
 */
export const bucketSizes = ['hour', 'day', 'week', 'month', 'year'] as const;
export type BucketSize = (typeof bucketSizes)[number];

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** A half-open span [startMs, endMs) of whole buckets. */
export interface BucketWindow {
  startMs: number;
  endMs: number;
}

/** The start of the bucket holding `t`. */
export function bucketFloor(t: number, size: BucketSize): number {
  // No Date for hours and days: they are asked per record of a large billing answer.
  switch (size) {
    case 'hour':
      return Math.floor(t / HOUR_MS) * HOUR_MS;
    case 'day':
      return Math.floor(t / DAY_MS) * DAY_MS;
    case 'week':
      return Math.floor(t / DAY_MS) * DAY_MS - ((new Date(t).getUTCDay() + 6) % 7) * DAY_MS;
    case 'month': {
      const date = new Date(t);
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    }
    case 'year':
      return Date.UTC(new Date(t).getUTCFullYear(), 0, 1);
  }
}

/** The start of the bucket after the one starting at `start`. */
export function nextBucketStart(start: number, size: BucketSize): number {
  switch (size) {
    case 'hour':
      return start + HOUR_MS;
    case 'day':
      return start + DAY_MS;
    case 'week':
      return start + 7 * DAY_MS;
    case 'month': {
      const date = new Date(start);
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
    }
    case 'year':
      return Date.UTC(new Date(start).getUTCFullYear() + 1, 0, 1);
  }
}

/** `t` itself when it is a boundary, else the end of its bucket. */
export function bucketCeil(t: number, size: BucketSize): number {
  const start = bucketFloor(t, size);
  return start === t ? t : nextBucketStart(start, size);
}
