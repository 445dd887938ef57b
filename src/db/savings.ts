import { HOUR_MS } from '../buckets.js';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import type { PodInput } from './pod-list.js';
import type { SavingEndReason } from './schema.js';
import { perDatabase } from './statements.js';

/** One stop's saving as the ledger holds it (stop_savings). */
export interface SavingRecord {
  receiptId: number;
  account: string;
  podId: string;
  podName: string;
  rule: string;
  stoppedAt: number;
  savingPerHr: number;
  endedAt: number | null;
  endReason: SavingEndReason | null;
}

const SAVING_COLUMNS = `receipt_id AS receiptId, account, pod_id AS podId, pod_name AS podName, rule,
  stopped_at AS stoppedAt, saving_per_hr AS savingPerHr, ended_at AS endedAt, end_reason AS endReason`;

const statements = perDatabase(({ sqlite }) => ({
  // A stop sent (not a dry run) opens a saving; OR IGNORE: the Pod's open one stands (stop_savings_open_idx).
  open: sqlite.prepare<[string]>(
    `INSERT OR IGNORE INTO stop_savings (receipt_id, account, pod_id, pod_name, rule, stopped_at, saving_per_hr)
     SELECT id, account, pod_id, pod_name, rule, decided_at, saving_per_hr FROM action_receipts
     WHERE idempotency_key = ? AND decision = 'stopped' AND dry_run = 0`,
  ),
  openOf: sqlite.prepare<[string], { podId: string; stoppedAt: number; status: string | null }>(
    `SELECT s.pod_id AS podId, s.stopped_at AS stoppedAt, p.status AS status FROM stop_savings s
     LEFT JOIN pods p ON p.account = s.account AND p.pod_id = s.pod_id
     WHERE s.account = ? AND s.ended_at IS NULL`,
  ),
  close: sqlite.prepare<[number, SavingEndReason, string, string, number]>(
    `UPDATE stop_savings SET ended_at = ?, end_reason = ?
     WHERE account = ? AND pod_id = ? AND ended_at IS NULL AND stopped_at < ?`,
  ),
  // Every saving overlapping [from, to): stopped before `to`, not ended by `from`.
  overlapping: sqlite.prepare<[number, number], SavingRecord>(
    `SELECT ${SAVING_COLUMNS} FROM stop_savings
     WHERE stopped_at < ? AND (ended_at IS NULL OR ended_at > ?) ORDER BY stopped_at, receipt_id`,
  ),
}));

/**
 * Opens the saving of the stop recorded under `idempotencyKey`, if it is a stop sent: called by
 * recordReceiptSync in the receipt's transaction, so every kind of stop that writes a receipt counts.
 */
export function openSavingSync(database: Database, idempotencyKey: string): void {
  statements(database).open.run(idempotencyKey);
}

/**
 * Closes the savings of the account's stopped Pods that a poll at `now` lists RUNNING again, in
 * the poll's transaction, before the poll's rows are written: started again is RUNNING with a
 * start after the stop, or RUNNING where the stored row (the previous poll) was not. A Pod listed
 * RUNNING as before with its old start is a poll that has not seen the stop yet, not a restart.
 */
export function closeStartedSavingsSync(database: Database, account: string, items: readonly PodInput[], now: number) {
  const writes = statements(database);
  const open = writes.openOf.all(account);
  if (open.length === 0) return;
  const listed = new Map(items.map((item) => [item.podId, item]));
  for (const saving of open) {
    const item = listed.get(saving.podId);
    if (item?.status !== 'RUNNING') continue;
    const startedAfterStop = item.startedAt !== null && item.startedAt > saving.stoppedAt;
    if (startedAfterStop || saving.status !== 'RUNNING') writes.close.run(now, 'started', account, saving.podId, now);
  }
}

/** Closes the savings of Pods a poll at `now` marked gone: a Pod that no longer exists saves nothing more. */
export function closeGoneSavingsSync(database: Database, account: string, gone: readonly string[], now: number) {
  const writes = statements(database);
  for (const podId of gone) writes.close.run(now, 'gone', account, podId, now);
}

/** Every saving that overlaps [from, to), of every account, oldest stop first. */
export const savingsOverlapping = outsideTransaction(
  (database: Database, window: { from: number; to: number }): SavingRecord[] =>
    statements(database).overlapping.all(window.to, window.from),
);

/** USD a saving saved within [from, to): its rate over the part of its span in the window; an open one runs to `to`. */
export function savedWithin(saving: SavingRecord, window: { from: number; to: number }): number {
  const start = Math.max(saving.stoppedAt, window.from);
  const end = Math.min(saving.endedAt ?? window.to, window.to);
  return end > start ? (saving.savingPerHr * (end - start)) / HOUR_MS : 0;
}

/** An account's savings so far: what its stops saved, how many, and what the Pods still stopped save per hour. */
export interface SavingsSoFar {
  account: string;
  saved: number;
  stops: number;
  stillStopped: number;
  savingPerHrNow: number;
}

/** The ledger summed per account up to `now`, accounts in name order. */
export function savingsSoFar(savings: readonly SavingRecord[], now: number): SavingsSoFar[] {
  const byAccount = new Map<string, SavingsSoFar>();
  for (const saving of savings) {
    let sums = byAccount.get(saving.account);
    if (sums === undefined) {
      sums = { account: saving.account, saved: 0, stops: 0, stillStopped: 0, savingPerHrNow: 0 };
      byAccount.set(saving.account, sums);
    }
    sums.saved += savedWithin(saving, { from: saving.stoppedAt, to: now });
    sums.stops += 1;
    if (saving.endedAt === null) {
      sums.stillStopped += 1;
      sums.savingPerHrNow += saving.savingPerHr;
    }
  }
  return [...byAccount.values()].sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
}
