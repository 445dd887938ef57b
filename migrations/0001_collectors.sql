CREATE TABLE `billing_backfill` (
	`account` text NOT NULL,
	`kind` text NOT NULL,
	`bucket_size` text NOT NULL,
	`cursor_start_time` integer NOT NULL,
	`target_start_time` integer NOT NULL,
	`done_at` integer,
	PRIMARY KEY(`account`, `kind`, `bucket_size`),
	CONSTRAINT "billing_backfill_kind_check" CHECK("kind" IN ('account', 'pods', 'serverless', 'endpoints', 'network_volumes', 'clusters')),
	CONSTRAINT "billing_backfill_bucket_size_check" CHECK("bucket_size" IN ('hour', 'day', 'week', 'month', 'year'))
);
--> statement-breakpoint
CREATE TABLE `billing_records` (
	`account` text NOT NULL,
	`kind` text NOT NULL,
	`resource_id` text NOT NULL,
	`bucket_size` text NOT NULL,
	`start_time` integer NOT NULL,
	`end_time` integer NOT NULL,
	`total_amount` real NOT NULL,
	`amounts` text NOT NULL,
	`fetched_at` integer NOT NULL,
	PRIMARY KEY(`account`, `kind`, `resource_id`, `bucket_size`, `start_time`),
	CONSTRAINT "billing_records_kind_check" CHECK("kind" IN ('account', 'pods', 'serverless', 'endpoints', 'network_volumes', 'clusters')),
	CONSTRAINT "billing_records_bucket_size_check" CHECK("bucket_size" IN ('hour', 'day', 'week', 'month', 'year'))
);
--> statement-breakpoint
CREATE INDEX `billing_records_window_idx` ON `billing_records` (`account`,`kind`,`bucket_size`,`start_time`);--> statement-breakpoint
CREATE TABLE `cpu_types` (
	`account` text NOT NULL,
	`cpu_type_id` text NOT NULL,
	`name` text NOT NULL,
	`group_name` text,
	`vcpu_min` integer,
	`vcpu_max` integer,
	`ram_gb_per_vcpu` real,
	`price_secure_per_vcpu` real,
	`price_serverless_per_vcpu` real,
	`availability` text,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	PRIMARY KEY(`account`, `cpu_type_id`)
);
--> statement-breakpoint
CREATE TABLE `data_centers` (
	`account` text NOT NULL,
	`data_center_id` text NOT NULL,
	`name` text NOT NULL,
	`region` text,
	`global_network` integer,
	`network_volume_types` text,
	`compliance` text,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	PRIMARY KEY(`account`, `data_center_id`)
);
--> statement-breakpoint
CREATE TABLE `gpu_availability` (
	`account` text NOT NULL,
	`gpu_type_id` text NOT NULL,
	`product` text NOT NULL,
	`data_center_id` text NOT NULL,
	`availability` text,
	`price_secure` real,
	`price_community` real,
	`price_serverless` real,
	`max_count_secure` integer,
	`max_count_community` integer,
	`since_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	PRIMARY KEY(`account`, `gpu_type_id`, `product`, `data_center_id`, `since_at`),
	CONSTRAINT "gpu_availability_product_check" CHECK("product" IN ('POD', 'CLUSTER', 'SERVERLESS'))
);
--> statement-breakpoint
CREATE TABLE `gpu_types` (
	`account` text NOT NULL,
	`gpu_type_id` text NOT NULL,
	`name` text NOT NULL,
	`memory_gb` integer,
	`pool` text,
	`manufacturer` text,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	PRIMARY KEY(`account`, `gpu_type_id`)
);
--> statement-breakpoint
CREATE TABLE `clusters` (
	`account` text NOT NULL,
	`cluster_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text,
	`gpu_type_id` text,
	`gpu_count_per_pod` integer,
	`pod_count` integer,
	`pods_by_status` text NOT NULL,
	`data_center_id` text,
	`created_at` integer,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`gone_at` integer,
	PRIMARY KEY(`account`, `cluster_id`)
);
--> statement-breakpoint
CREATE TABLE `endpoint_worker_samples` (
	`account` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`observed_at` integer NOT NULL,
	`running` integer NOT NULL,
	`idle` integer NOT NULL,
	`initializing` integer NOT NULL,
	`throttled` integer NOT NULL,
	`unhealthy` integer NOT NULL,
	`total` integer NOT NULL,
	PRIMARY KEY(`account`, `observed_at`, `endpoint_id`)
);
--> statement-breakpoint
CREATE TABLE `endpoints` (
	`account` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text,
	`gpu_pools` text,
	`gpu_count` integer,
	`workers_min` integer,
	`workers_max` integer,
	`idle_timeout_s` integer,
	`created_at` integer,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`gone_at` integer,
	PRIMARY KEY(`account`, `endpoint_id`)
);
--> statement-breakpoint
CREATE TABLE `item_freshness` (
	`account` text NOT NULL,
	`kind` text NOT NULL,
	`item_id` text NOT NULL,
	`last_fetched_at` integer NOT NULL,
	PRIMARY KEY(`account`, `kind`, `item_id`)
);
--> statement-breakpoint
CREATE TABLE `network_volumes` (
	`account` text NOT NULL,
	`network_volume_id` text NOT NULL,
	`name` text NOT NULL,
	`size_gb` integer NOT NULL,
	`data_center_id` text,
	`type` text,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`gone_at` integer,
	PRIMARY KEY(`account`, `network_volume_id`)
);
--> statement-breakpoint
CREATE TABLE `pod_samples` (
	`account` text NOT NULL,
	`pod_id` text NOT NULL,
	`observed_at` integer NOT NULL,
	`state` text NOT NULL,
	`uptime_s` integer,
	`gpu_util` text,
	`gpu_memory_util` text,
	`max_gpu_util` real,
	`max_gpu_memory_util` real,
	`cpu_util` real,
	`memory_util` real,
	PRIMARY KEY(`account`, `observed_at`, `pod_id`),
	CONSTRAINT "pod_samples_state_check" CHECK("state" IN ('known', 'unknown'))
);
--> statement-breakpoint
CREATE TABLE `pod_samples_1h` (
	`account` text NOT NULL,
	`pod_id` text NOT NULL,
	`bucket_start_at` integer NOT NULL,
	`known_count` integer NOT NULL,
	`unknown_count` integer NOT NULL,
	`avg_gpu_util` real,
	`max_gpu_util` real,
	`avg_gpu_memory_util` real,
	`max_gpu_memory_util` real,
	`avg_cpu_util` real,
	`max_cpu_util` real,
	`avg_memory_util` real,
	`max_memory_util` real,
	PRIMARY KEY(`account`, `pod_id`, `bucket_start_at`)
);
--> statement-breakpoint
CREATE INDEX `pod_samples_1h_bucket_idx` ON `pod_samples_1h` (`account`,`bucket_start_at`);--> statement-breakpoint
CREATE TABLE `pod_samples_5m` (
	`account` text NOT NULL,
	`pod_id` text NOT NULL,
	`bucket_start_at` integer NOT NULL,
	`known_count` integer NOT NULL,
	`unknown_count` integer NOT NULL,
	`avg_gpu_util` real,
	`max_gpu_util` real,
	`avg_gpu_memory_util` real,
	`max_gpu_memory_util` real,
	`avg_cpu_util` real,
	`max_cpu_util` real,
	`avg_memory_util` real,
	`max_memory_util` real,
	PRIMARY KEY(`account`, `pod_id`, `bucket_start_at`)
);
--> statement-breakpoint
CREATE INDEX `pod_samples_5m_bucket_idx` ON `pod_samples_5m` (`account`,`bucket_start_at`);--> statement-breakpoint
CREATE TABLE `pods` (
	`account` text NOT NULL,
	`pod_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`cost_per_hr` real NOT NULL,
	`gpu_type_id` text,
	`gpu_count` integer,
	`cpu_type_id` text,
	`cloud` text,
	`data_center_id` text,
	`cluster_id` text,
	`cluster_role` text,
	`volume_gb` integer,
	`network_volume_id` text,
	`env` text NOT NULL,
	`actions` text NOT NULL,
	`created_at` integer,
	`started_at` integer,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`gone_at` integer,
	PRIMARY KEY(`account`, `pod_id`)
);
--> statement-breakpoint
CREATE INDEX `pods_live_idx` ON `pods` (`account`,`gone_at`);