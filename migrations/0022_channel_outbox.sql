CREATE TABLE `channel_outbox` (
	`id` integer PRIMARY KEY NOT NULL,
	`channel` text NOT NULL,
	`target` text DEFAULT '' NOT NULL,
	`group_key` text NOT NULL,
	`account` text DEFAULT 'all' NOT NULL,
	`reason` text NOT NULL,
	`alert_keys` text NOT NULL,
	`alert_id` integer,
	`state` text,
	`payload` text,
	`created_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_until` integer,
	`last_error` text,
	`delivered_at` integer,
	`last_delivered_at` integer,
	`response` text,
	`abandoned_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `channel_outbox_due_idx` ON `channel_outbox` (`finished_at`,`channel`,`target`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `channel_outbox_created_at_idx` ON `channel_outbox` (`created_at`);--> statement-breakpoint
CREATE INDEX `channel_outbox_group_idx` ON `channel_outbox` (`group_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `channel_outbox_episode_idx` ON `channel_outbox` (`channel`,`target`,`alert_id`) WHERE alert_id IS NOT NULL;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_notification_log` (
	`channel` text DEFAULT 'email' NOT NULL,
	`group_key` text NOT NULL,
	`receiver` text NOT NULL,
	`firing` text NOT NULL,
	`resolved` text NOT NULL,
	`notified_at` integer NOT NULL,
	`expires_at` integer,
	PRIMARY KEY(`channel`, `group_key`)
);
--> statement-breakpoint
INSERT INTO `__new_notification_log`("channel", "group_key", "receiver", "firing", "resolved", "notified_at", "expires_at") SELECT 'email', "group_key", "receiver", "firing", "resolved", "notified_at", "expires_at" FROM `notification_log`;--> statement-breakpoint
DROP TABLE `notification_log`;--> statement-breakpoint
ALTER TABLE `__new_notification_log` RENAME TO `notification_log`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
-- Every row queued in the two outboxes this table replaces moves here, unchanged: email keeps its
-- ids (its rows' order is the sending order), Alertmanager's follow. Nothing queued is lost.
INSERT INTO `channel_outbox` ("id", "channel", "target", "group_key", "account", "reason", "alert_keys", "payload",
  "created_at", "attempts", "next_attempt_at", "lease_until", "last_error", "delivered_at", "last_delivered_at",
  "response", "abandoned_at", "finished_at")
SELECT "id", 'email', '', "group_key", "account", "reason", "alert_keys",
  json_object('messageId', "message_id", 'to', json("to"), 'subject', "subject", 'text', "text", 'html', "html"),
  "created_at", "attempts", "next_attempt_at", "lease_until", "last_error", "sent_at", "sent_at",
  "smtp_response", "abandoned_at", coalesce("sent_at", "abandoned_at")
FROM `outbox` ORDER BY "id";--> statement-breakpoint
INSERT INTO `channel_outbox` ("channel", "target", "group_key", "account", "reason", "alert_keys", "alert_id", "state",
  "created_at", "attempts", "next_attempt_at", "lease_until", "last_error", "delivered_at", "last_delivered_at",
  "finished_at")
SELECT 'alertmanager', o."target", coalesce(a."key", ''), coalesce(a."account", 'all'), 'episode',
  CASE WHEN a."key" IS NULL THEN '[]' ELSE json_array(a."key") END, o."alert_id", o."state",
  o."created_at", o."attempts", o."next_attempt_at", o."lease_until", o."last_error", o."last_sent_at", o."last_sent_at",
  o."finished_at"
FROM `alertmanager_outbox` o LEFT JOIN `alerts` a ON a."id" = o."alert_id" ORDER BY o."id";