import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { accountColumn, oneOf } from './columns.js';

export const accounts = sqliteTable('accounts', {
  name: text('name').primaryKey(),
  firstSeenAt: integer('first_seen_at').notNull(),
});

/**
 * `aborted`: interrupted by shutdown, the run timeout, or the death of its daemon (a kill -9: the
 * next daemon to start marks it, `ended_at` left NULL as its end is unknown); neither a failure of
 * RunPod nor data.
 */
export const collectorOutcomes = ['ok', 'error', 'no_data', 'skipped', 'aborted'] as const;
export type CollectorOutcome = (typeof collectorOutcomes)[number];

/** One row per collector run; `outcome` stays NULL while the run is in flight. */
export const collectorRuns = sqliteTable(
  'collector_runs',
  {
    id: integer('id').primaryKey(),
    account: accountColumn(),
    collector: text('collector').notNull(),
    startedAt: integer('started_at').notNull(),
    endedAt: integer('ended_at'),
    outcome: text('outcome', { enum: collectorOutcomes }),
    rows: integer('rows').notNull().default(0),
    error: text('error'),
    /** What a successful run could not use, e.g. list items the schema rejected; NULL when nothing. */
    detail: text('detail'),
  },
  (t) => [
    // "When did collector X last succeed for account A" is a seek to the end of one index range.
    index('collector_runs_last_outcome_idx').on(t.account, t.collector, t.outcome, t.endedAt),
    index('collector_runs_started_at_idx').on(t.startedAt),
    oneOf('collector_runs', 'outcome', collectorOutcomes),
  ],
);

/** A single row: which schema this database has and which podwarden last migrated it. */
export const podwardenMeta = sqliteTable(
  'podwarden_meta',
  {
    id: integer('id').primaryKey(),
    schemaVersion: integer('schema_version').notNull(),
    podwardenVersion: text('podwarden_version').notNull(),
  },
  () => [check('podwarden_meta_single_row', sql`"id" = 1`)],
);

/**
 * A single row: how far the clock of the daemon last started in real time is from the system
 * time. `podwarden demo` and `run --clock-start` run on a scenario's day at real speed, so
 * `snooze` and `silence`, run beside them, add this offset to the system time and act on the
 * daemon's time, not the wall clock's.
 */
export const daemonClock = sqliteTable(
  'daemon_clock',
  {
    id: integer('id').primaryKey(),
    /** The daemon's time minus the system time, ms (0 for a daemon on the system clock). */
    offsetMs: integer('offset_ms').notNull(),
    /** When the daemon started, on its own clock. */
    startedAt: integer('started_at').notNull(),
  },
  () => [check('daemon_clock_single_row', sql`"id" = 1`)],
);
