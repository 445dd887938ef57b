import { sql } from 'drizzle-orm';
import { integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { accountColumn, oneOf } from './columns.js';

/** The reasons other than idleness for which a Pod is stopped (the idle ladder keeps its own episodes). */
export const ENFORCE_KINDS = ['deadline', 'schedule', 'budget_cap'] as const;
export type EnforceKind = (typeof ENFORCE_KINDS)[number];

/**
 * One enforcement episode per Pod, kind and occurrence (the Pod's run for a deadline, the
 * window's start for a schedule, the budget's period for a cap): opened when its warning is due,
 * ended when the Pod no longer is a candidate (stopped, gone, no longer selected). The stop is due
 * at the candidate's `stopAt` plus what Keep running added (`extendedMs`); where the ladder stands
 * is derived from the timestamps, only outcomes are stored.
 */
export const enforceEpisodes = sqliteTable(
  'enforce_episodes',
  {
    account: accountColumn(),
    podId: text('pod_id').notNull(),
    kind: text('kind', { enum: ENFORCE_KINDS }).notNull(),
    /** What makes this spell unique for its kind, as epoch ms: a Pod's start, a window's start, a budget period's start. */
    occurrence: integer('occurrence').notNull(),
    /** The control (config name) that produced the candidate. */
    control: text('control').notNull(),
    openedAt: integer('opened_at').notNull(),
    /** The control's dry run when the episode opened (its receipts say so even once the control is gone). */
    dryRun: integer('dry_run', { mode: 'boolean' }).notNull(),
    /** Added to the candidate's stop time by Keep running (links), in ms. */
    extendedMs: integer('extended_ms').notNull().default(0),
    warnedAt: integer('warned_at'),
    /** When the stop was decided (sent, dry run, or given up after failures). */
    decidedAt: integer('decided_at'),
    stopFailures: integer('stop_failures').notNull().default(0),
    endedAt: integer('ended_at'),
    /** Why the episode ended: not_running, gone, not_selected. */
    endReason: text('end_reason'),
  },
  (t) => [
    primaryKey({ columns: [t.account, t.podId, t.kind, t.occurrence] }),
    // At most one open episode per Pod and kind: a re-run tick cannot open a second one.
    uniqueIndex('enforce_episodes_open_idx').on(t.account, t.podId, t.kind).where(sql`"ended_at" IS NULL`),
    oneOf('enforce_episodes', 'kind', ENFORCE_KINDS),
  ],
);

/** The evidence of an enforcement receipt: which control, why, and the times it worked from. */
export interface EnforceEvidence {
  kind: EnforceKind;
  control: string;
  /** The control's one-line why ("ran 12h, max runtime 12h", "off-hours window nights from 20:00 Europe/Paris"). */
  why: string;
  occurrence: number;
  /** The candidate's own stop time, before any Keep running extension (null: no candidate any more). */
  stopAt: number | null;
  extendedMs: number;
  warnLeadMs: number | null;
}
