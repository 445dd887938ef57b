import type BetterSqlite3 from 'better-sqlite3';

/** Distinct statement texts kept prepared; queries with `IN (…)` lists make new texts, so the cache is bounded. */
const CAPACITY = 500;

/**
 * What drizzle needs of a better-sqlite3 connection, with `prepare` remembered by SQL text: drizzle
 * builds the text again on every call and asks for a fresh statement each time, and preparing costs
 * more than running most of our queries.
 *
 * Only drizzle's queries go through here (`sqlite.prepare` stays uncached), and drizzle uses a
 * statement synchronously, right after preparing it, and never iterates it, so one statement per
 * text is never used twice at once. drizzle switches a statement to raw rows when it wants arrays
 * and never switches it back, so a statement handed out again starts in object mode, as new.
 */
export function cachingClient(sqlite: BetterSqlite3.Database): Pick<BetterSqlite3.Database, 'prepare' | 'transaction'> {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(source: string) {
      let statement = statements.get(source);
      if (statement === undefined) {
        statement = sqlite.prepare(source);
        if (statements.size >= CAPACITY) statements.delete(statements.keys().next().value as string);
        statements.set(source, statement);
      } else if (statement.reader) {
        statement.raw(false);
      }
      return statement;
    },
    transaction: (fn) => sqlite.transaction(fn),
  } as Pick<BetterSqlite3.Database, 'prepare' | 'transaction'>;
}
