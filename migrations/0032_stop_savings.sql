CREATE TABLE `stop_savings` (
	`receipt_id` integer PRIMARY KEY NOT NULL,
	`account` text NOT NULL,
	`pod_id` text NOT NULL,
	`pod_name` text NOT NULL,
	`rule` text NOT NULL,
	`stopped_at` integer NOT NULL,
	`saving_per_hr` real NOT NULL,
	`ended_at` integer,
	`end_reason` text,
	CONSTRAINT "stop_savings_end_reason_check" CHECK("end_reason" IN ('started', 'gone'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `stop_savings_open_idx` ON `stop_savings` (`account`,`pod_id`) WHERE "ended_at" IS NULL;--> statement-breakpoint
CREATE INDEX `stop_savings_stopped_idx` ON `stop_savings` (`stopped_at`);