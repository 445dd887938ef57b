import { type SQL, sql } from 'drizzle-orm';
import { check, integer, text } from 'drizzle-orm/sqlite-core';

// Column builders are created per table (drizzle binds a builder to the table that uses it).

/** The configured account name, carried on every row so several accounts share one database. */
export const accountColumn = () => text('account').notNull();

/** When an item was first and last returned by the API. */
export const seenColumns = () => ({
  firstSeenAt: integer('first_seen_at').notNull(),
  lastSeenAt: integer('last_seen_at').notNull(),
});

/** For resources that can vanish: they are marked gone, never deleted, so history keeps its subject. */
export const trackedColumns = () => ({
  ...seenColumns(),
  goneAt: integer('gone_at'),
});

/** A CHECK that a text column holds one of the given values (NULL passes, as SQL CHECKs do). */
export function oneOf(table: string, column: string, values: readonly string[]) {
  const list = values.map((value) => `'${value}'`).join(', ');
  const condition: SQL = sql.raw(`"${column}" IN (${list})`);
  return check(`${table}_${column}_check`, condition);
}
