CREATE TABLE `alert_flaps` (
	`id` integer PRIMARY KEY NOT NULL,
	`key` text NOT NULL,
	`rule` text NOT NULL,
	`account` text NOT NULL,
	`since` integer NOT NULL,
	`last_change_at` integer NOT NULL,
	`noticed_at` integer,
	`settled_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_flaps_open_key_idx` ON `alert_flaps` (`key`) WHERE settled_at IS NULL;--> statement-breakpoint
ALTER TABLE `alerts` ADD `absent_since` integer;