-- Hand-edited from drizzle-kit's output: WITHOUT ROWID (drizzle-kit cannot declare it) on the
-- three sample tables, so each is one b-tree instead of a rowid table plus its key's index, and
-- the conversion of the stored samples. Nothing is lost: `state` becomes `known` (1/0), and a
-- per-GPU list is kept as text only when it says more than the busiest GPU's figure (two or
-- more GPUs, or none); a one-GPU list is exactly [max_gpu_util] and is read back as such.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_pod_samples` (
	`account` text NOT NULL,
	`pod_id` text NOT NULL,
	`observed_at` integer NOT NULL,
	`known` integer NOT NULL,
	`uptime_s` integer,
	`gpu_util` text,
	`gpu_memory_util` text,
	`max_gpu_util` real,
	`max_gpu_memory_util` real,
	`cpu_util` real,
	`memory_util` real,
	PRIMARY KEY(`account`, `observed_at`, `pod_id`),
	CONSTRAINT "pod_samples_known_check" CHECK("known" IN (0, 1))
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_pod_samples`("account", "pod_id", "observed_at", "known", "uptime_s", "gpu_util", "gpu_memory_util", "max_gpu_util", "max_gpu_memory_util", "cpu_util", "memory_util")
SELECT "account", "pod_id", "observed_at", "state" = 'known', "uptime_s",
  CASE WHEN json_array_length("gpu_util") = 1 THEN NULL ELSE "gpu_util" END,
  CASE WHEN json_array_length("gpu_memory_util") = 1 THEN NULL ELSE "gpu_memory_util" END,
  "max_gpu_util", "max_gpu_memory_util", "cpu_util", "memory_util"
FROM `pod_samples` ORDER BY "account", "observed_at", "pod_id";--> statement-breakpoint
DROP TABLE `pod_samples`;--> statement-breakpoint
ALTER TABLE `__new_pod_samples` RENAME TO `pod_samples`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE TABLE `__new_pod_samples_1h` (
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
	PRIMARY KEY(`account`, `bucket_start_at`, `pod_id`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_pod_samples_1h`("account", "pod_id", "bucket_start_at", "known_count", "unknown_count", "avg_gpu_util", "max_gpu_util", "avg_gpu_memory_util", "max_gpu_memory_util", "avg_cpu_util", "max_cpu_util", "avg_memory_util", "max_memory_util") SELECT "account", "pod_id", "bucket_start_at", "known_count", "unknown_count", "avg_gpu_util", "max_gpu_util", "avg_gpu_memory_util", "max_gpu_memory_util", "avg_cpu_util", "max_cpu_util", "avg_memory_util", "max_memory_util" FROM `pod_samples_1h` ORDER BY "account", "bucket_start_at", "pod_id";--> statement-breakpoint
DROP TABLE `pod_samples_1h`;--> statement-breakpoint
ALTER TABLE `__new_pod_samples_1h` RENAME TO `pod_samples_1h`;--> statement-breakpoint
CREATE TABLE `__new_pod_samples_5m` (
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
	PRIMARY KEY(`account`, `bucket_start_at`, `pod_id`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_pod_samples_5m`("account", "pod_id", "bucket_start_at", "known_count", "unknown_count", "avg_gpu_util", "max_gpu_util", "avg_gpu_memory_util", "max_gpu_memory_util", "avg_cpu_util", "max_cpu_util", "avg_memory_util", "max_memory_util") SELECT "account", "pod_id", "bucket_start_at", "known_count", "unknown_count", "avg_gpu_util", "max_gpu_util", "avg_gpu_memory_util", "max_gpu_memory_util", "avg_cpu_util", "max_cpu_util", "avg_memory_util", "max_memory_util" FROM `pod_samples_5m` ORDER BY "account", "bucket_start_at", "pod_id";--> statement-breakpoint
DROP TABLE `pod_samples_5m`;--> statement-breakpoint
ALTER TABLE `__new_pod_samples_5m` RENAME TO `pod_samples_5m`;