import type BetterSqlite3 from 'better-sqlite3';
import { DatabaseCorruptError } from './errors.js';
import { outsideTransaction } from './outside-transaction.js';

/**
 * SQLite's own check of a database file: `quick` (PRAGMA quick_check: pages and records, in about
 * the time of reading the file once; run at every open) or `full` (PRAGMA integrity_check: also
 * every index against its table; `podwarden db check`). Returns what is wrong, one line per
 * problem (at most `limit`), or an empty list for "ok".
 */
export const integrityProblems = outsideTransaction(problemsOf);

function problemsOf(
  // Structural, not open.ts's Database: open.ts runs the quick check (assertIntact) while opening.
  { sqlite }: { sqlite: BetterSqlite3.Database },
  depth: 'quick' | 'full',
  limit = 100,
): string[] {
  const pragma = depth === 'quick' ? 'quick_check' : 'integrity_check';
  let rows: Array<Record<string, string>>;
  try {
    rows = sqlite.pragma(`${pragma}(${Math.max(1, Math.floor(limit))})`, { simple: false }) as typeof rows;
  } catch (error) {
    // Damage bad enough stops the check itself: that is its finding.
    if (isCorruption(error)) return [(error as Error).message];
    throw error;
  }
  const lines = rows.map((row) => String(Object.values(row)[0]));
  return lines.length === 1 && lines[0] === 'ok' ? [] : lines;
}

/** Refuses a damaged database with what is wrong and what to do (see DatabaseCorruptError). */
export function assertIntact(sqlite: BetterSqlite3.Database, path: string): void {
  const problems = problemsOf({ sqlite }, 'quick', 5);
  if (problems.length > 0) throw new DatabaseCorruptError(path, problems);
}

/** SQLite's codes for a damaged database (a file that is no database at all is another matter). */
export function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_CORRUPT');
}
