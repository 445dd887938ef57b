import { sql } from 'drizzle-orm';
import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { accountColumn, oneOf } from './columns.js';

export const savingEndReasons = ['started', 'gone'] as const;
export type SavingEndReason = (typeof savingEndReasons)[number];

/**
 * What each stop saved: one row per stop sent (a receipt with decision `stopped`, never a dry
 * run), from the stop until a Pod poll saw the Pod running again (or gone), at the receipt's
 * saving per hour. Opened in the transaction that writes the receipt (receipts.ts), closed in the
 * Pod poll's (pods.ts): an open row saves until now. Derived from receipts and the Pod list, so
 * test/db/savings.test.ts compares it with a fresh derivation.
 */
export const stopSavings = sqliteTable(
  'stop_savings',
  {
    receiptId: integer('receipt_id').primaryKey(),
    account: accountColumn(),
    podId: text('pod_id').notNull(),
    podName: text('pod_name').notNull(),
    /** The control that stopped it (the receipt's rule): an idle rule, a deadline, a schedule, a cap. */
    rule: text('rule').notNull(),
    stoppedAt: integer('stopped_at').notNull(),
    savingPerHr: real('saving_per_hr').notNull(),
    endedAt: integer('ended_at'),
    endReason: text('end_reason', { enum: savingEndReasons }),
  },
  (t) => [
    // One open saving per Pod: a second stop of a Pod already stopped saves nothing more.
    uniqueIndex('stop_savings_open_idx').on(t.account, t.podId).where(sql`"ended_at" IS NULL`),
    index('stop_savings_stopped_idx').on(t.stoppedAt),
    oneOf('stop_savings', 'end_reason', savingEndReasons),
  ],
);
