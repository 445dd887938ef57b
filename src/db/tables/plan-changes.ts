import { sql } from 'drizzle-orm';
import { check, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * One row: how many changes were made to what the notification pipeline plans on (fired alerts'
 * identifying fields, the notification log, silences, flaps), and the last plan that decided
 * nothing. Triggers (migration 0024) count every such change, by any connection, in the
 * transaction that makes it, so equal counts mean equal planning inputs (db/plan-inputs.ts).
 */
export const planChanges = sqliteTable(
  'plan_changes',
  {
    id: integer('id').primaryKey(),
    n: integer('n').notNull(),
    /**
     * A plan that decided nothing (alerts/quiet.ts): the count `n` it planned on (NULL: none
     * kept), its settings' fingerprint, and the times between which the same inputs and settings
     * keep deciding nothing ([from, until); `until` NULL: no time turns it).
     */
    quietN: integer('quiet_n'),
    quietSettings: text('quiet_settings'),
    quietFrom: integer('quiet_from'),
    quietUntil: integer('quiet_until'),
  },
  (t) => [check('plan_changes_one_row', sql`${t.id} = 1`)],
);
