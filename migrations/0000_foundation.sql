CREATE TABLE `accounts` (
	`name` text PRIMARY KEY NOT NULL,
	`first_seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `collector_runs` (
	`id` integer PRIMARY KEY NOT NULL,
	`account` text NOT NULL,
	`collector` text NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	`outcome` text,
	`rows` integer DEFAULT 0 NOT NULL,
	`error` text,
	CONSTRAINT "collector_runs_outcome_check" CHECK("outcome" IN ('ok', 'error', 'no_data', 'skipped'))
);
--> statement-breakpoint
CREATE INDEX `collector_runs_last_outcome_idx` ON `collector_runs` (`account`,`collector`,`outcome`,`ended_at`);--> statement-breakpoint
CREATE INDEX `collector_runs_started_at_idx` ON `collector_runs` (`started_at`);--> statement-breakpoint
CREATE TABLE `podwarden_meta` (
	`id` integer PRIMARY KEY NOT NULL,
	`schema_version` integer NOT NULL,
	`podwarden_version` text NOT NULL,
	CONSTRAINT "podwarden_meta_single_row" CHECK("id" = 1)
);
