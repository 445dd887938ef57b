CREATE TABLE `action_receipts` (
	`id` integer PRIMARY KEY NOT NULL,
	`idempotency_key` text NOT NULL,
	`account` text NOT NULL,
	`pod_id` text NOT NULL,
	`pod_name` text NOT NULL,
	`rule` text NOT NULL,
	`episode_started_at` integer NOT NULL,
	`decided_at` integer NOT NULL,
	`decision` text NOT NULL,
	`reason` text,
	`dry_run` integer NOT NULL,
	`planned_stop_at` integer,
	`cost_per_hr` real NOT NULL,
	`saving_per_hr` real NOT NULL,
	`evidence` text NOT NULL,
	`guards` text NOT NULL,
	CONSTRAINT "action_receipts_decision_check" CHECK("decision" IN ('notified', 'warned', 'stopped', 'dry_run', 'blocked', 'failed', 'cancelled'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `action_receipts_idempotency_key_unique` ON `action_receipts` (`idempotency_key`);--> statement-breakpoint
CREATE INDEX `action_receipts_pod_idx` ON `action_receipts` (`account`,`pod_id`,`decided_at`);--> statement-breakpoint
CREATE INDEX `action_receipts_decided_idx` ON `action_receipts` (`decided_at`);--> statement-breakpoint
CREATE TABLE `idle_episodes` (
	`account` text NOT NULL,
	`pod_id` text NOT NULL,
	`started_at` integer NOT NULL,
	`rule` text NOT NULL,
	`notified_at` integer,
	`warned_at` integer,
	`decided_at` integer,
	`stop_failures` integer DEFAULT 0 NOT NULL,
	`ended_at` integer,
	`end_reason` text,
	PRIMARY KEY(`account`, `pod_id`, `started_at`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `idle_episodes_open_idx` ON `idle_episodes` (`account`,`pod_id`) WHERE "ended_at" IS NULL;--> statement-breakpoint
CREATE TABLE `pod_snoozes` (
	`account` text NOT NULL,
	`pod_id` text NOT NULL,
	`until` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`account`, `pod_id`)
);
