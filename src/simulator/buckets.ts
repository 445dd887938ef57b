/**
 * v2 billing buckets: UTC hours, days, weeks (starting on Monday: the document does not say,
 * ISO 8601 does), months and years. Every boundary is an hour boundary, which is what lets
 * billing round money per hour and still add up the same in any bucket size.
 */
export const BUCKET_SIZES = ['hour', 'day', 'week', 'month', 'year'] as const;
export type BucketSize = (typeof BUCKET_SIZES)[number];

export const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The start of the bucket that contains `t`. */
export function bucketStart(t: number, size: BucketSize): number {
  // The calendar (a Date) only for the sizes that need one: hours and days are called per
  // record of a large billing reply.
  switch (size) {
    case 'hour':
      return Math.floor(t / HOUR_MS) * HOUR_MS;
    case 'day':
      return Math.floor(t / DAY_MS) * DAY_MS;
    case 'week': {
      const day = Math.floor(t / DAY_MS) * DAY_MS;
      const sinceMonday = (new Date(t).getUTCDay() + 6) % 7;
      return day - sinceMonday * DAY_MS;
    }
    case 'month': {
      const date = new Date(t);
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    }
    case 'year':
      return Date.UTC(new Date(t).getUTCFullYear(), 0, 1);
  }
}

/** The start of the bucket after the one that starts at `start`. */
export function nextBucket(start: number, size: BucketSize): number {
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

export interface Window {
  startMs: number;
  endMs: number;
}

/** startTime snapped down to its bucket; endTime (exclusive) snapped up unless on a boundary. */
export function snapWindow(startMs: number, endMs: number, size: BucketSize): Window {
  const end = bucketStart(endMs, size);
  return { startMs: bucketStart(startMs, size), endMs: end === endMs ? end : nextBucket(end, size) };
}

/** The last `n` buckets, ending with the one in progress at `nowMs`. */
export function lastNWindow(nowMs: number, n: number, size: BucketSize): Window {
  const current = bucketStart(nowMs, size);
  const back = n - 1;
  const date = new Date(current);
  const startMs =
    size === 'month'
      ? Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - back, 1)
      : size === 'year'
        ? Date.UTC(date.getUTCFullYear() - back, 0, 1)
        : current - back * (nextBucket(current, size) - current);
  return { startMs, endMs: nextBucket(current, size) };
}
