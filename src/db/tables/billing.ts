import { integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { bucketSizes } from '../../buckets.js';
import { accountColumn, oneOf } from './columns.js';

/** The six v2 billing routes, by what they bill: `/billing` is `account`. */
export const billingKinds = ['account', 'pods', 'serverless', 'endpoints', 'network_volumes', 'clusters'] as const;
export type BillingKind = (typeof billingKinds)[number];

export { type BucketSize, bucketSizes } from '../../buckets.js';

/**
 * Billing records as the API reported them. The key is the bucket's identity, so re-reading an
 * overlapping window replaces a bucket's amounts (late or corrected) instead of adding to them.
 * Ordered by time before resource, and WITHOUT ROWID (migrations/0015, by hand: drizzle-kit
 * cannot declare it): the table is its own key's b-tree, a stored window (what every re-read and
 * budget reads) is one contiguous range of it, and a backfill writes each slice into one place
 * instead of scattering it over every resource's part of a second index.
 */
export const billingRecords = sqliteTable(
  'billing_records',
  {
    account: accountColumn(),
    kind: text('kind', { enum: billingKinds }).notNull(),
    /** podId, serverlessId, networkVolumeId or clusterId; '' for the routes without one. */
    resourceId: text('resource_id').notNull(),
    bucketSize: text('bucket_size', { enum: bucketSizes }).notNull(),
    startTime: integer('start_time').notNull(),
    endTime: integer('end_time').notNull(),
    totalAmount: real('total_amount').notNull(),
    /** Every amount field of the record, verbatim (gpuAmount, diskAmount…). */
    amounts: text('amounts', { mode: 'json' }).$type<Record<string, number>>().notNull(),
    fetchedAt: integer('fetched_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.account, t.kind, t.bucketSize, t.startTime, t.resourceId] }),
    oneOf('billing_records', 'kind', billingKinds),
    oneOf('billing_records', 'bucket_size', bucketSizes),
  ],
);

/**
 * Progress of the first backfill per route: it walks back from where it began, one window at a
 * time, so a crash resumes at the cursor instead of starting over.
 */
export const billingBackfill = sqliteTable(
  'billing_backfill',
  {
    account: accountColumn(),
    kind: text('kind', { enum: billingKinds }).notNull(),
    bucketSize: text('bucket_size', { enum: bucketSizes }).notNull(),
    /** Everything from here up to where the backfill began is stored. */
    cursorStartTime: integer('cursor_start_time').notNull(),
    targetStartTime: integer('target_start_time').notNull(),
    doneAt: integer('done_at'),
  },
  (t) => [
    primaryKey({ columns: [t.account, t.kind, t.bucketSize] }),
    oneOf('billing_backfill', 'kind', billingKinds),
    oneOf('billing_backfill', 'bucket_size', bucketSizes),
  ],
);

/**
 * Billing per UTC day, derived from billing_records by their only writer (src/db/billing.ts) in
 * the transaction that writes them, never written otherwise: a budget's month is a sum of about
 * 30 rows per resource instead of 720 hourly buckets. `coveredThrough` is the latest
 * max(min(end_time, fetched_at)) of the day's buckets.
 */
export const billingDays = sqliteTable(
  'billing_days',
  {
    account: accountColumn(),
    kind: text('kind', { enum: billingKinds }).notNull(),
    bucketSize: text('bucket_size', { enum: bucketSizes }).notNull(),
    /** UTC midnight of the buckets' start_time. */
    dayStart: integer('day_start').notNull(),
    resourceId: text('resource_id').notNull(),
    totalAmount: real('total_amount').notNull(),
    coveredThrough: integer('covered_through').notNull(),
    /**
     * The latest start_time and end_time of the day's buckets that billed compute (gpuAmount +
     * cpuAmount > 0); null when none did. The waste rules ask when a stopped Pod last ran.
     */
    computeStart: integer('compute_start'),
    computeEnd: integer('compute_end'),
  },
  (t) => [primaryKey({ columns: [t.account, t.kind, t.bucketSize, t.dayStart, t.resourceId] })],
);

/**
 * billing_days by UTC calendar month: per account, kind, bucket size, month and resource,
 * total(total_amount) and max(covered_through) of its days in day order, summed again from
 * billing_days by the billing writer in the transaction that changes a day of the month
 * (billing-months.ts). A budget period holding whole UTC months reads one row per resource for
 * them instead of one per day.
 */
export const billingMonths = sqliteTable(
  'billing_months',
  {
    account: accountColumn(),
    kind: text('kind', { enum: billingKinds }).notNull(),
    bucketSize: text('bucket_size', { enum: bucketSizes }).notNull(),
    /** UTC midnight of the first day of the month. */
    monthStart: integer('month_start').notNull(),
    resourceId: text('resource_id').notNull(),
    totalAmount: real('total_amount').notNull(),
    coveredThrough: integer('covered_through').notNull(),
  },
  (t) => [primaryKey({ columns: [t.account, t.kind, t.bucketSize, t.monthStart, t.resourceId] })],
);

/**
 * A digest of each stored bucket as its route last reported it (the text of all of its records,
 * in the order they came), written in the transaction that made the stored rows equal to that
 * report and dropped by any other write to the bucket. A re-read whose bucket has the same
 * digest is already stored and is skipped without parsing its records or reading its rows back:
 * a 15-minute re-read of `large` finds ~110,000 records, nearly all unchanged. A bucket without a
 * digest, or with another, is compared row by row (src/db/billing.ts). Migration 0017 dropped
 * the digests of decoded records that came before.
 */
export const billingDigests = sqliteTable(
  'billing_digests',
  {
    account: accountColumn(),
    kind: text('kind', { enum: billingKinds }).notNull(),
    bucketSize: text('bucket_size', { enum: bucketSizes }).notNull(),
    startTime: integer('start_time').notNull(),
    /** 53 bits of two 32-bit hashes of the bucket's records (src/db/billing-digest.ts). */
    digest: integer('digest').notNull(),
  },
  (t) => [primaryKey({ columns: [t.account, t.kind, t.bucketSize, t.startTime] })],
);
