CREATE TABLE `alerts` (
	`id` integer PRIMARY KEY NOT NULL,
	`key` text NOT NULL,
	`rule` text NOT NULL,
	`account` text NOT NULL,
	`severity` text NOT NULL,
	`summary` text NOT NULL,
	`labels` text NOT NULL,
	`details` text NOT NULL,
	`recipients` text,
	`active_since` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`fired_at` integer,
	`resolved_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alerts_open_key_idx` ON `alerts` (`key`) WHERE resolved_at IS NULL;--> statement-breakpoint
CREATE INDEX `alerts_fired_at_idx` ON `alerts` (`fired_at`);--> statement-breakpoint
CREATE INDEX `alerts_resolved_at_idx` ON `alerts` (`resolved_at`);--> statement-breakpoint
CREATE TABLE `notification_log` (
	`group_key` text PRIMARY KEY NOT NULL,
	`receiver` text NOT NULL,
	`firing` text NOT NULL,
	`resolved` text NOT NULL,
	`notified_at` integer NOT NULL,
	`expires_at` integer
);
--> statement-breakpoint
CREATE TABLE `outbox` (
	`id` integer PRIMARY KEY NOT NULL,
	`message_id` text NOT NULL,
	`group_key` text NOT NULL,
	`reason` text NOT NULL,
	`to` text NOT NULL,
	`subject` text NOT NULL,
	`text` text NOT NULL,
	`html` text NOT NULL,
	`alert_keys` text NOT NULL,
	`created_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_until` integer,
	`last_error` text,
	`sent_at` integer,
	`smtp_response` text,
	`abandoned_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `outbox_message_id_unique` ON `outbox` (`message_id`);--> statement-breakpoint
CREATE INDEX `outbox_due_idx` ON `outbox` (`sent_at`,`abandoned_at`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `outbox_created_at_idx` ON `outbox` (`created_at`);--> statement-breakpoint
CREATE TABLE `silences` (
	`id` text PRIMARY KEY NOT NULL,
	`matchers` text NOT NULL,
	`comment` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`starts_at` integer NOT NULL,
	`ends_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `silences_ends_at_idx` ON `silences` (`ends_at`);