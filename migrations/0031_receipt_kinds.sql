PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_action_receipts` (
	`id` integer PRIMARY KEY NOT NULL,
	`idempotency_key` text NOT NULL,
	`account` text NOT NULL,
	`pod_id` text NOT NULL,
	`pod_name` text NOT NULL,
	`rule` text NOT NULL,
	`kind` text DEFAULT 'idle' NOT NULL,
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
	CONSTRAINT "action_receipts_decision_check" CHECK("decision" IN ('notified', 'warned', 'stopped', 'dry_run', 'blocked', 'failed', 'cancelled', 'extended')),
	CONSTRAINT "action_receipts_kind_check" CHECK("kind" IN ('idle', 'deadline', 'schedule', 'budget_cap'))
);
--> statement-breakpoint
INSERT INTO `__new_action_receipts`("id", "idempotency_key", "account", "pod_id", "pod_name", "rule", "kind", "episode_started_at", "decided_at", "decision", "reason", "dry_run", "planned_stop_at", "cost_per_hr", "saving_per_hr", "evidence", "guards") SELECT "id", "idempotency_key", "account", "pod_id", "pod_name", "rule", "kind", "episode_started_at", "decided_at", "decision", "reason", "dry_run", "planned_stop_at", "cost_per_hr", "saving_per_hr", "evidence", "guards" FROM `action_receipts`;--> statement-breakpoint
DROP TABLE `action_receipts`;--> statement-breakpoint
ALTER TABLE `__new_action_receipts` RENAME TO `action_receipts`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `action_receipts_idempotency_key_unique` ON `action_receipts` (`idempotency_key`);--> statement-breakpoint
CREATE INDEX `action_receipts_pod_idx` ON `action_receipts` (`account`,`pod_id`,`decided_at`);--> statement-breakpoint
CREATE INDEX `action_receipts_decided_idx` ON `action_receipts` (`decided_at`);--> statement-breakpoint
CREATE INDEX `action_receipts_stops_idx` ON `action_receipts` (`account`,`rule`,`decided_at`) WHERE decision IN ('stopped', 'dry_run');