-- No backfill: SQL cannot pack the float64 runs, so each Pod's tail starts with the first poll after
-- this migration (src/db/sample-tails.ts); until it covers a window, pod_samples is read.
CREATE TABLE `pod_sample_tails` (
	`account` text NOT NULL,
	`pod_id` text NOT NULL,
	`covered_from` integer NOT NULL,
	`latest_at` integer NOT NULL,
	`samples` blob NOT NULL,
	PRIMARY KEY(`account`, `pod_id`)
);
