CREATE TABLE `pod_lists` (
	`account` text PRIMARY KEY NOT NULL,
	`seen_at` integer NOT NULL,
	`synced_at` integer NOT NULL
);
