PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_collector_runs` (
	`id` integer PRIMARY KEY NOT NULL,
	`account` text NOT NULL,
	`collector` text NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	`outcome` text,
	`rows` integer DEFAULT 0 NOT NULL,
	`error` text,
	CONSTRAINT "collector_runs_outcome_check" CHECK("outcome" IN ('ok', 'error', 'no_data', 'skipped', 'aborted'))
);
--> statement-breakpoint
INSERT INTO `__new_collector_runs`("id", "account", "collector", "started_at", "ended_at", "outcome", "rows", "error") SELECT "id", "account", "collector", "started_at", "ended_at", "outcome", "rows", "error" FROM `collector_runs`;--> statement-breakpoint
DROP TABLE `collector_runs`;--> statement-breakpoint
ALTER TABLE `__new_collector_runs` RENAME TO `collector_runs`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `collector_runs_last_outcome_idx` ON `collector_runs` (`account`,`collector`,`outcome`,`ended_at`);--> statement-breakpoint
CREATE INDEX `collector_runs_started_at_idx` ON `collector_runs` (`started_at`);