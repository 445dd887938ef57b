-- Hand-edited from drizzle-kit's output: WITHOUT ROWID (drizzle-kit cannot declare it), and the
-- backfill. A month's row is total(total_amount) and max(covered_through) of its billing_days in
-- day order (src/db/billing-months.ts sums it so again from here on).
CREATE TABLE `billing_months` (
	`account` text NOT NULL,
	`kind` text NOT NULL,
	`bucket_size` text NOT NULL,
	`month_start` integer NOT NULL,
	`resource_id` text NOT NULL,
	`total_amount` real NOT NULL,
	`covered_through` integer NOT NULL,
	PRIMARY KEY(`account`, `kind`, `bucket_size`, `month_start`, `resource_id`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `billing_months` (account, kind, bucket_size, month_start, resource_id, total_amount, covered_through)
SELECT account, kind, bucket_size, month_start, resource_id, total(total_amount), max(covered_through) FROM (
  SELECT account, kind, bucket_size, unixepoch(day_start / 1000, 'unixepoch', 'start of month') * 1000 AS month_start,
    resource_id, total_amount, covered_through, day_start
  FROM billing_days ORDER BY account, kind, bucket_size, resource_id, day_start
)
GROUP BY account, kind, bucket_size, month_start, resource_id;
