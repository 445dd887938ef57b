import { sql } from 'drizzle-orm';
import { check, integer, sqliteTable } from 'drizzle-orm/sqlite-core';

/**
 * One row: how many changes were made to what the notification pipeline plans on (fired alerts'
 * identifying fields, the notification log, silences, flaps). Triggers (migration 0024) count
 * every such change, by any connection, in the transaction that makes it, so equal counts mean
 * equal planning inputs (db/plan-inputs.ts).
 */
export const planChanges = sqliteTable(
  'plan_changes',
  {
    id: integer('id').primaryKey(),
    n: integer('n').notNull(),
  },
  (t) => [check('plan_changes_one_row', sql`${t.id} = 1`)],
);
