import { and, eq, sql } from 'drizzle-orm';
import { billingRecordsIn, upsertBillingRecords } from '../db/billing.js';
import type { Database } from '../db/open.js';
import { billingRecords } from '../db/schema.js';
import { perDatabase } from '../db/statements.js';
import type { BillingPage } from './billing-routes.js';

const deleteBucket = perDatabase((database) =>
  database.db
    .delete(billingRecords)
    .where(
      and(
        eq(billingRecords.account, sql.placeholder('account')),
        eq(billingRecords.kind, sql.placeholder('kind')),
        eq(billingRecords.resourceId, sql.placeholder('resourceId')),
        eq(billingRecords.bucketSize, sql.placeholder('bucketSize')),
        eq(billingRecords.startTime, sql.placeholder('startTime')),
      ),
    )
    .prepare(),
);

/**
 * Makes the stored buckets of each page's window exactly the page's records: upserts what the
 * API reported and deletes stored buckets it no longer reports (billing is sparse, so a bucket
 * whose money was withdrawn simply stops appearing; keeping its old amount would count money
 * that is not owed). Synchronous and transactional; call it inside the caller's transaction
 * when other bookkeeping (a backfill cursor) must commit with it.
 */
export function replaceBillingPages(
  database: Database,
  account: string,
  pages: readonly BillingPage[],
  fetchedAt: number,
): { written: number; deleted: number } {
  const remove = deleteBucket(database);
  let written = 0;
  let deleted = 0;
  database.transaction(() => {
    for (const page of pages) {
      const reported = new Set(page.records.map((record) => keyOf(record.resourceId, record.startTime)));
      const window = {
        account,
        kind: page.kind,
        bucketSize: page.bucketSize,
        from: page.window.startMs,
        to: page.window.endMs,
      };
      for (const stored of billingRecordsIn(database, window)) {
        if (reported.has(keyOf(stored.resourceId, stored.startTime))) continue;
        deleted += remove.run(stored).changes;
      }
      written += upsertBillingRecords(database, account, page.records, fetchedAt).written;
    }
  });
  return { written, deleted };
}

function keyOf(resourceId: string, startTime: number): string {
  return `${startTime}\u0000${resourceId}`;
}
