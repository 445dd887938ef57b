-- Hand-edited from drizzle-kit's output.
-- 1. billing_days is no longer kept by triggers: src/db/billing.ts, billing_records' only writer,
--    keeps it in the same transaction with one write per day and resource instead of one
--    trigger run per bucket (about a fifth of the store's time).
-- 2. billing_records becomes WITHOUT ROWID (drizzle-kit cannot declare it), keyed time before
--    resource: one b-tree instead of a rowid table, its key's index and the window index; a
--    window is one range of it, and a backfill slice lands in one place. Every row is copied.
-- 3. billing_days learns when each resource last billed compute on the day (the waste rules' question).
DROP TRIGGER IF EXISTS `billing_days_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `billing_days_update`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `billing_days_delete`;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_billing_records` (
	`account` text NOT NULL,
	`kind` text NOT NULL,
	`resource_id` text NOT NULL,
	`bucket_size` text NOT NULL,
	`start_time` integer NOT NULL,
	`end_time` integer NOT NULL,
	`total_amount` real NOT NULL,
	`amounts` text NOT NULL,
	`fetched_at` integer NOT NULL,
	PRIMARY KEY(`account`, `kind`, `bucket_size`, `start_time`, `resource_id`),
	CONSTRAINT "billing_records_kind_check" CHECK("kind" IN ('account', 'pods', 'serverless', 'endpoints', 'network_volumes', 'clusters')),
	CONSTRAINT "billing_records_bucket_size_check" CHECK("bucket_size" IN ('hour', 'day', 'week', 'month', 'year'))
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_billing_records`("account", "kind", "resource_id", "bucket_size", "start_time", "end_time", "total_amount", "amounts", "fetched_at")
SELECT "account", "kind", "resource_id", "bucket_size", "start_time", "end_time", "total_amount", "amounts", "fetched_at"
FROM `billing_records` ORDER BY "account", "kind", "bucket_size", "start_time", "resource_id";--> statement-breakpoint
DROP TABLE `billing_records`;--> statement-breakpoint
ALTER TABLE `__new_billing_records` RENAME TO `billing_records`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
ALTER TABLE `billing_days` ADD `compute_start` integer;--> statement-breakpoint
ALTER TABLE `billing_days` ADD `compute_end` integer;--> statement-breakpoint
-- Hand-written: the compute columns of the days already stored (their totals stay as they are).
UPDATE `billing_days` SET `compute_start` = c.s, `compute_end` = c.e
FROM (
  SELECT `account` AS a, `kind` AS k, `bucket_size` AS b, `start_time` - `start_time` % 86400000 AS d, `resource_id` AS r,
    max(`start_time`) AS s, max(`end_time`) AS e
  FROM `billing_records`
  WHERE coalesce(json_extract(`amounts`, '$.gpuAmount'), 0) + coalesce(json_extract(`amounts`, '$.cpuAmount'), 0) > 0
  GROUP BY a, k, b, d, r
) AS c
WHERE `billing_days`.`account` = c.a AND `billing_days`.`kind` = c.k AND `billing_days`.`bucket_size` = c.b
  AND `billing_days`.`day_start` = c.d AND `billing_days`.`resource_id` = c.r;
