CREATE TABLE `billing_digests` (
	`account` text NOT NULL,
	`kind` text NOT NULL,
	`bucket_size` text NOT NULL,
	`start_time` integer NOT NULL,
	`digest` integer NOT NULL,
	PRIMARY KEY(`account`, `kind`, `bucket_size`, `start_time`)
);
