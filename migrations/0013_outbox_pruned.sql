CREATE TABLE `outbox_pruned` (
	`account` text PRIMARY KEY NOT NULL,
	`sent` integer DEFAULT 0 NOT NULL,
	`abandoned` integer DEFAULT 0 NOT NULL
);
