import type { BucketSize } from './schema.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/**
 * The start of the billing bucket holding `t`, as the v2 API cuts buckets: UTC hours, days, ISO
 * weeks (from Monday), months and years. collectors/billing-windows.ts aligns requests with it.
 */
export function bucketFloor(t: number, size: BucketSize): number {
  // No Date for hours and days: every record of an answer is checked against its bucket.
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
