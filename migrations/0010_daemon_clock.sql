CREATE TABLE `daemon_clock` (
	`id` integer PRIMARY KEY NOT NULL,
	`offset_ms` integer NOT NULL,
	`started_at` integer NOT NULL,
	CONSTRAINT "daemon_clock_single_row" CHECK("id" = 1)
);
