import type { Database } from './open.js';
import type { alerts } from './schema.js';
import { perDatabase } from './statements.js';

/**
 * An open alert's latest wording and figures, as the last tick that saw it reported them, kept in
 * memory instead of written: findings carry figures that move every tick (when they were
 * evaluated, paid so far, how long idle), so storing them was an UPDATE and a JSON.stringify of
 * the details per open alert per tick (at `large`, about a thousand of each every virtual minute).
 *
 * The row keeps what identifies the alert and drives its state (severity, labels, recipients,
 * timestamps), written whenever it changes, and the figures of its last write: its last_seen_at
 * says as of when. Every read of this process goes through alert-rows.ts, which lays these over
 * the row, so the daemon's own readers (pipeline, emails, digests, flap evidence, /api/status,
 * the status page, the Alertmanager payload) see exactly what a write per tick gave them.
 *
 * The figures are written (flushed) as soon as a tick does not see the alert (absent, unjudged,
 * resolving) and when the daemon closes, so a row differs from what a write per tick left only
 * while its alert is seen tick after tick, and only to another process (the `sqlite3` shell) or
 * after a crash: then the row's figures are those of its last write, as its last_seen_at says.
 */
export interface LiveFigures {
  /** The alert's key, checked on read: a figure never lands on another row. */
  key: string;
  summary: string;
  /** The row's details column, as drizzle decodes it (typed from the table, not alert-rows.ts, which reads these). */
  details: (typeof alerts.$inferSelect)['details'];
  lastSeenAt: number;
}

const liveOf = perDatabase(() => new Map<number, LiveFigures>());

/** This process's unwritten figures of an alert whose row says it was last seen at `storedLastSeenAt`. */
export function liveFiguresOf(database: Database, id: number, key: string, storedLastSeenAt: number) {
  const live = liveOf(database).get(id);
  // Newer than the row only: a row written since (by a flush, or another process) wins.
  return live !== undefined && live.key === key && live.lastSeenAt > storedLastSeenAt ? live : undefined;
}

/** Whether this process holds figures of the alert that its row does not have yet. */
export function hasLiveFigures(database: Database, id: number): boolean {
  return liveOf(database).has(id);
}

const flushStatement = perDatabase(({ sqlite }) =>
  sqlite.prepare<[string, string, number, number, number]>(
    'UPDATE alerts SET summary = ?, details = ?, last_seen_at = ? WHERE id = ? AND last_seen_at < ?',
  ),
);

/** Writes an alert's figures to its row (JSON as drizzle encodes it), unless the row has newer ones. */
export function writeAlertFigures(database: Database, id: number, figures: LiveFigures): void {
  flushStatement(database).run(
    figures.summary,
    JSON.stringify(figures.details),
    figures.lastSeenAt,
    id,
    figures.lastSeenAt,
  );
}

/**
 * Writes the figures held for `id` to its row, as the write per tick did. The entry stays until
 * the caller's transaction has committed: see applyLiveFigures.
 */
export function writeLiveFigures(database: Database, id: number): void {
  const live = liveOf(database).get(id);
  if (live !== undefined) writeAlertFigures(database, id, live);
}

/**
 * After the transaction that decided them has committed (a rolled-back tick leaves the map as its
 * rows are): `keep` holds figures not written, `written` the ids whose rows now have theirs.
 */
export function applyLiveFigures(
  database: Database,
  keep: ReadonlyArray<readonly [number, LiveFigures]>,
  written: readonly number[],
): void {
  const live = liveOf(database);
  for (const id of written) live.delete(id);
  for (const [id, figures] of keep) live.set(id, figures);
}

/** Writes every figure held, in one transaction (the daemon's close; a restart then reads them). */
export function flushLiveFigures(database: Database): number {
  const live = liveOf(database);
  if (live.size === 0) return 0;
  const ids = [...live.keys()];
  database.transaction(() => {
    for (const id of ids) writeLiveFigures(database, id);
  });
  applyLiveFigures(database, [], ids);
  return ids.length;
}
