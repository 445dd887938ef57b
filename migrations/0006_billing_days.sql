CREATE TABLE `billing_days` (
	`account` text NOT NULL,
	`kind` text NOT NULL,
	`bucket_size` text NOT NULL,
	`day_start` integer NOT NULL,
	`resource_id` text NOT NULL,
	`total_amount` real NOT NULL,
	`covered_through` integer NOT NULL,
	PRIMARY KEY(`account`, `kind`, `bucket_size`, `day_start`, `resource_id`)
);--> statement-breakpoint
-- Hand-written: the days of the billing already stored (the collector keeps them from here on).
INSERT INTO `billing_days` (`account`, `kind`, `bucket_size`, `day_start`, `resource_id`, `total_amount`, `covered_through`)
SELECT `account`, `kind`, `bucket_size`, `start_time` - `start_time` % 86400000, `resource_id`, total(`total_amount`),
  max(min(`end_time`, `fetched_at`))
FROM `billing_records`
GROUP BY `account`, `kind`, `bucket_size`, `start_time` - `start_time` % 86400000, `resource_id`;
