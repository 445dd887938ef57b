CREATE TABLE `link_secret` (
	`id` integer PRIMARY KEY NOT NULL,
	`secret` text NOT NULL,
	`created_at` integer NOT NULL,
	CONSTRAINT "link_secret_single_row" CHECK("id" = 1)
);
--> statement-breakpoint
CREATE TABLE `used_links` (
	`nonce` text PRIMARY KEY NOT NULL,
	`action` text NOT NULL,
	`account` text NOT NULL,
	`subject` text NOT NULL,
	`recipient` text NOT NULL,
	`used_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `silences` ADD `source` text DEFAULT 'command' NOT NULL;--> statement-breakpoint
ALTER TABLE `pod_snoozes` ADD `source` text DEFAULT 'command' NOT NULL;--> statement-breakpoint
ALTER TABLE `pod_snoozes` ADD `created_by` text;