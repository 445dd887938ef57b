CREATE TABLE `enforce_episodes` (
	`account` text NOT NULL,
	`pod_id` text NOT NULL,
	`kind` text NOT NULL,
	`occurrence` integer NOT NULL,
	`control` text NOT NULL,
	`opened_at` integer NOT NULL,
	`dry_run` integer NOT NULL,
	`extended_ms` integer DEFAULT 0 NOT NULL,
	`warned_at` integer,
	`decided_at` integer,
	`stop_failures` integer DEFAULT 0 NOT NULL,
	`ended_at` integer,
	`end_reason` text,
	PRIMARY KEY(`account`, `pod_id`, `kind`, `occurrence`),
	CONSTRAINT "enforce_episodes_kind_check" CHECK("kind" IN ('deadline', 'schedule', 'budget_cap'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `enforce_episodes_open_idx` ON `enforce_episodes` (`account`,`pod_id`,`kind`) WHERE "ended_at" IS NULL;--> statement-breakpoint
ALTER TABLE `action_receipts` ADD `kind` text DEFAULT 'idle' NOT NULL;