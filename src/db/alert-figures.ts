import type { Database } from './open.js';
import type { alerts } from './schema.js';
import { perDatabase } from './statements.js';

/**
 * An open alert's latest wording and figures. refreshOpenAlert writes them to the alert's row in
 * the tick's transaction, so the row and every reader agree; nothing is held beside the row.
 */
export interface LiveFigures {
  /** The alert's key. */
  key: string;
  summary: string;
  /** The row's details column, as drizzle decodes it. */
  details: (typeof alerts.$inferSelect)['details'];
  lastSeenAt: number;
}

const figuresStatement = perDatabase(({ sqlite }) =>
  sqlite.prepare<[string, string, number, number, number]>(
    'UPDATE alerts SET summary = ?, details = ?, last_seen_at = ? WHERE id = ? AND last_seen_at < ?',
  ),
);

/** Writes an alert's figures to its row (JSON as drizzle encodes it), unless the row has newer ones. */
export function writeAlertFigures(database: Database, id: number, figures: LiveFigures): void {
  figuresStatement(database).run(
    figures.summary,
    JSON.stringify(figures.details),
    figures.lastSeenAt,
    id,
    figures.lastSeenAt,
  );
}

/** Always false: the figures are in the row. Kept for alerts/state.ts until it stops asking. */
export function hasLiveFigures(_database: Database, _id: number): boolean {
  return false;
}

/** Nothing to write: the figures are in the row. Kept for alerts/state.ts until it stops calling. */
export function writeLiveFigures(_database: Database, _id: number): void {}

/** Nothing to apply: the figures are in the row. Kept for alerts/state.ts until it stops calling. */
export function applyLiveFigures(
  _database: Database,
  _keep: ReadonlyArray<readonly [number, LiveFigures]>,
  _written: readonly number[],
): void {}
