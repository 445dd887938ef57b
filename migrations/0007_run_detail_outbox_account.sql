ALTER TABLE `outbox` ADD `account` text DEFAULT 'all' NOT NULL;--> statement-breakpoint
ALTER TABLE `collector_runs` ADD `detail` text;