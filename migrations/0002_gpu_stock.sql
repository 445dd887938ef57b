CREATE TABLE `gpu_stock` (
	`account` text NOT NULL,
	`gpu_type_id` text NOT NULL,
	`cloud` text NOT NULL,
	`stock_status` text,
	`available_gpu_counts` text NOT NULL,
	`uninterruptable_price` real,
	`since_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	PRIMARY KEY(`account`, `gpu_type_id`, `cloud`, `since_at`),
	CONSTRAINT "gpu_stock_cloud_check" CHECK("cloud" IN ('SECURE', 'COMMUNITY'))
);
