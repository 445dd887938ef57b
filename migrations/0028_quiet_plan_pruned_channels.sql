-- Hand-edited from drizzle-kit's output: the counts kept so far were email's.
-- outbox_pruned counts what retention deleted per channel, not for email alone; plan_changes
-- keeps the last plan of the notification pipeline that decided nothing (alerts/quiet.ts), so
-- every connection and a restarted daemon read it.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_outbox_pruned` (
	`channel` text NOT NULL,
	`account` text NOT NULL,
	`sent` integer DEFAULT 0 NOT NULL,
	`abandoned` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`channel`, `account`)
);
--> statement-breakpoint
INSERT INTO `__new_outbox_pruned`("channel", "account", "sent", "abandoned") SELECT 'email', "account", "sent", "abandoned" FROM `outbox_pruned`;--> statement-breakpoint
DROP TABLE `outbox_pruned`;--> statement-breakpoint
ALTER TABLE `__new_outbox_pruned` RENAME TO `outbox_pruned`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
ALTER TABLE `plan_changes` ADD `quiet_n` integer;--> statement-breakpoint
ALTER TABLE `plan_changes` ADD `quiet_settings` text;--> statement-breakpoint
ALTER TABLE `plan_changes` ADD `quiet_from` integer;--> statement-breakpoint
ALTER TABLE `plan_changes` ADD `quiet_until` integer;
