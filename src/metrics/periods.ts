import type { BucketSize } from '../db/schema.js';

/** The spend periods metrics report: the current UTC day and the current UTC month, so far. */
export const SPEND_PERIODS = ['day', 'month'] as const;
export type SpendPeriod = (typeof SPEND_PERIODS)[number];

/** Where the current period began and where it ends, in UTC. */
export function periodBounds(period: SpendPeriod, now: number): { from: number; to: number } {
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  if (period === 'month') return { from: Date.UTC(year, month, 1), to: Date.UTC(year, month + 1, 1) };
  const day = date.getUTCDate();
  return { from: Date.UTC(year, month, day), to: Date.UTC(year, month, day + 1) };
}

/**
 * Which periods stored buckets of a size can add up to exactly: a week straddles days and
 * months, and a month or year bucket is larger than a day, so their sums would mislead.
 */
const EXACT: Readonly<Record<BucketSize, readonly SpendPeriod[]>> = {
  hour: ['day', 'month'],
  day: ['day', 'month'],
  week: [],
  month: ['month'],
  year: [],
};

export function periodsSummableFrom(bucketSize: BucketSize): readonly SpendPeriod[] {
  return EXACT[bucketSize];
}
