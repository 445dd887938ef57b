import { bucketFloor, DAY_MS } from '../buckets.js';
import type { Database } from './open.js';
import type { BillingKind, BucketSize } from './schema.js';
import { perDatabase } from './statements.js';

/** UTC midnight of the first day of the month holding `at`. */
export function monthFloor(at: number): number {
  return bucketFloor(at, 'month');
}

/** The start of the month after the one starting at `monthStart`. */
export function monthAfter(monthStart: number): number {
  return monthFloor(monthStart + 32 * DAY_MS);
}

/**
 * A month's rows summed again from its billing_days, as the migration (0027) built them: the same
 * aggregate over the same range as a budget's read of whole days, so a month's total is the one
 * its days add up to there. Removed first: a month whose days are all gone keeps no row.
 */
const statements = perDatabase(({ sqlite }) => ({
  drop: sqlite.prepare(
    `DELETE FROM billing_months
     WHERE account = @account AND kind = @kind AND bucket_size = @bucketSize AND month_start = @monthStart
       AND resource_id IN (SELECT value FROM json_each(@ids))`,
  ),
  sum: sqlite.prepare(
    `INSERT INTO billing_months (account, kind, bucket_size, month_start, resource_id, total_amount, covered_through)
     SELECT @account, @kind, @bucketSize, @monthStart, resource_id, total(total_amount), max(covered_through)
     FROM billing_days
     WHERE account = @account AND kind = @kind AND bucket_size = @bucketSize
       AND day_start >= @monthStart AND day_start < @monthEnd
       AND resource_id IN (SELECT value FROM json_each(@ids))
     GROUP BY resource_id`,
  ),
}));

/**
 * The months whose billing_days one transaction changed, by kind, size and month, with the
 * resources changed; `finish` sums their rows again, after the days are written.
 */
export class MonthRollup {
  private readonly months = new Map<string, Set<string>>();

  constructor(
    private readonly database: Database,
    private readonly account: string,
  ) {}

  /** The day starting at `dayStart` of `resourceId` changed (or went). */
  changed(kind: BillingKind, bucketSize: BucketSize, dayStart: number, resourceId: string): void {
    const key = `${kind}\u0000${bucketSize}\u0000${monthFloor(dayStart)}`;
    this.months.set(key, (this.months.get(key) ?? new Set()).add(resourceId));
  }

  finish(): void {
    const s = statements(this.database);
    for (const [key, ids] of this.months) {
      const [kind, bucketSize, monthText] = key.split('\u0000') as [string, string, string];
      const monthStart = Number(monthText);
      const month = {
        account: this.account,
        kind,
        bucketSize,
        monthStart,
        monthEnd: monthAfter(monthStart),
        ids: JSON.stringify([...ids]),
      };
      s.drop.run(month);
      s.sum.run(month);
    }
    this.months.clear();
  }
}
