-- Hand-edited from drizzle-kit's output: WITHOUT ROWID (drizzle-kit cannot declare it), and the
-- backfill. A known sample is kept when its busiest-GPU figure is above every later known one's
-- of the same Pod (src/db/util-peaks.ts keeps it so from here on).
CREATE TABLE `pod_util_peaks` (
	`account` text NOT NULL,
	`pod_id` text NOT NULL,
	`observed_at` integer NOT NULL,
	`max_gpu_util` real NOT NULL,
	PRIMARY KEY(`account`, `pod_id`, `observed_at`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `pod_util_peaks` (account, pod_id, observed_at, max_gpu_util)
SELECT account, pod_id, observed_at, max_gpu_util FROM (
  SELECT account, pod_id, observed_at, max_gpu_util,
    max(max_gpu_util) OVER (PARTITION BY account, pod_id ORDER BY observed_at
      ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS later
  FROM pod_samples WHERE known = 1 AND max_gpu_util IS NOT NULL
) WHERE later IS NULL OR max_gpu_util > later
ORDER BY account, pod_id, observed_at;
