CREATE TABLE `alertmanager_outbox` (
	`id` integer PRIMARY KEY NOT NULL,
	`target` text NOT NULL,
	`alert_id` integer NOT NULL,
	`state` text NOT NULL,
	`created_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_until` integer,
	`last_error` text,
	`last_sent_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alertmanager_outbox_target_alert_idx` ON `alertmanager_outbox` (`target`,`alert_id`);--> statement-breakpoint
CREATE INDEX `alertmanager_outbox_due_idx` ON `alertmanager_outbox` (`finished_at`,`target`,`next_attempt_at`);