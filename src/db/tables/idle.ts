import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { accountColumn, oneOf } from './columns.js';
import { ENFORCE_KINDS, type EnforceEvidence } from './enforce.js';

/**
 * One idle episode per Pod: from the evaluation that first found it idle to the one that found
 * it active, unknown, excluded, snoozed or gone. Where the ladder stands is derived from the
 * timestamps (notified, warned, stop due = warned + lead); only outcomes are stored.
 */
export const idleEpisodes = sqliteTable(
  'idle_episodes',
  {
    account: accountColumn(),
    podId: text('pod_id').notNull(),
    startedAt: integer('started_at').notNull(),
    /** The idle rule (config `idle.rules[].name`) that owns the episode. */
    rule: text('rule').notNull(),
    notifiedAt: integer('notified_at'),
    warnedAt: integer('warned_at'),
    /** When the stop was decided (sent, dry run, or given up after failures). */
    decidedAt: integer('decided_at'),
    stopFailures: integer('stop_failures').notNull().default(0),
    endedAt: integer('ended_at'),
    /** Why the episode ended: active, unknown, excluded, snoozed, gone, not_running... */
    endReason: text('end_reason'),
  },
  (t) => [
    primaryKey({ columns: [t.account, t.podId, t.startedAt] }),
    // At most one open episode per Pod: a re-run tick cannot open a second one.
    uniqueIndex('idle_episodes_open_idx').on(t.account, t.podId).where(sql`"ended_at" IS NULL`),
  ],
);

/** `extended`: Keep running moved an enforcement stop later (the receipt's plannedStopAt is the new time). */
export const receiptDecisions = [
  'notified',
  'warned',
  'stopped',
  'dry_run',
  'blocked',
  'failed',
  'cancelled',
  'extended',
] as const;
export type ReceiptDecision = (typeof receiptDecisions)[number];

/** Why a receipt's ladder ran: the idle ladder's, or one of the enforcement controls'. */
export const receiptKinds = ['idle', ...ENFORCE_KINDS] as const;
export type ReceiptKind = (typeof receiptKinds)[number];

/** One guard's verdict, as recorded with a stop decision. */
export interface GuardResult {
  guard: string;
  passed: boolean;
  detail: string;
}

/** The evidence a decision was made on: the window's samples and the thresholds applied. */
export interface ReceiptEvidence {
  windowFrom: number;
  windowTo: number;
  thresholds: {
    utilThreshold: number;
    coverage: number;
    minSamples: number;
    windowMs: number;
    graceMs: number;
    memoryThreshold: number;
  };
  coverage: number;
  idleSamples: number;
  held: boolean;
  /** Every sample of the window: time, IDLE/ACTIVE/UNKNOWN, busiest GPU's util and memory use. */
  samples: Array<{ at: number; state: string; gpuUtil: number | null; gpuMemoryUtil: number | null }>;
}

/** What a receipt's decision rests on: the idle window's samples, or the enforcement control's figures. */
export type AnyReceiptEvidence = ReceiptEvidence | EnforceEvidence;

/**
 * Every decision of the idle and enforcement ladders, with its evidence: written in the transaction that moves the
 * episode, under a key unique per Pod, episode and step, so a tick re-run after a crash adds nothing.
 */
export const actionReceipts = sqliteTable(
  'action_receipts',
  {
    id: integer('id').primaryKey(),
    idempotencyKey: text('idempotency_key').notNull().unique(),
    account: accountColumn(),
    podId: text('pod_id').notNull(),
    podName: text('pod_name').notNull(),
    /** The idle rule, or the enforcement control (deadline, schedule, budget), by its config name. */
    rule: text('rule').notNull(),
    kind: text('kind', { enum: receiptKinds }).notNull().default('idle'),
    episodeStartedAt: integer('episode_started_at').notNull(),
    decidedAt: integer('decided_at').notNull(),
    decision: text('decision', { enum: receiptDecisions }).notNull(),
    /** The guard that blocked, the error of a failed stop, why an episode was cancelled. */
    reason: text('reason'),
    dryRun: integer('dry_run', { mode: 'boolean' }).notNull(),
    /** When the warning said the stop would come. */
    plannedStopAt: integer('planned_stop_at'),
    costPerHr: real('cost_per_hr').notNull(),
    /** What stopping saves per hour: the cost minus what the volume still costs while stopped. */
    savingPerHr: real('saving_per_hr').notNull(),
    evidence: text('evidence', { mode: 'json' }).$type<AnyReceiptEvidence>().notNull(),
    guards: text('guards', { mode: 'json' }).$type<GuardResult[]>().notNull(),
  },
  (t) => [
    index('action_receipts_pod_idx').on(t.account, t.podId, t.decidedAt),
    index('action_receipts_decided_idx').on(t.decidedAt),
    // The hourly stop cap counts a rule's stops every tick a stop is due: only stops are indexed,
    // so the count follows the stops of the hour, not the account's history of receipts.
    index('action_receipts_stops_idx')
      .on(t.account, t.rule, t.decidedAt)
      .where(sql`decision IN ('stopped', 'dry_run')`),
    oneOf('action_receipts', 'decision', receiptDecisions),
    oneOf('action_receipts', 'kind', receiptKinds),
  ],
);

/** Where a snooze or silence was made: told apart in `why`, /api/status and the digest. */
export const decisionSources = ['command', 'email link', 'status page'] as const;
export type DecisionSource = (typeof decisionSources)[number];

/** `podwarden snooze POD DURATION` (or a keep-running link): no ladder step runs for the Pod before `until`. */
export const podSnoozes = sqliteTable(
  'pod_snoozes',
  {
    account: accountColumn(),
    podId: text('pod_id').notNull(),
    until: integer('until').notNull(),
    createdAt: integer('created_at').notNull(),
    source: text('source', { enum: decisionSources }).notNull().default('command'),
    /** Who: the recipient(s) of the emailed link; null for the command line. */
    createdBy: text('created_by'),
  },
  (t) => [primaryKey({ columns: [t.account, t.podId] })],
);
