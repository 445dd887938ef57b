-- Hand-edited from drizzle-kit's output: WITHOUT ROWID (drizzle-kit cannot declare it), and the
-- backfill. Per Pod: its latest sample, its latest known one, and the first after that known one
-- (src/db/sample-ends.ts keeps them so from here on).
CREATE TABLE `pod_sample_ends` (
	`account` text NOT NULL,
	`pod_id` text NOT NULL,
	`latest_at` integer NOT NULL,
	`latest_known_at` integer,
	`unknown_since` integer,
	PRIMARY KEY(`account`, `pod_id`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `pod_sample_ends` (account, pod_id, latest_at, latest_known_at, unknown_since)
SELECT account, pod_id, latest_at, latest_known_at, CASE WHEN latest_known_at IS NULL THEN first_at END
FROM (
  SELECT account, pod_id, max(observed_at) AS latest_at, min(observed_at) AS first_at,
    max(CASE WHEN known = 1 THEN observed_at END) AS latest_known_at
  FROM pod_samples GROUP BY account, pod_id
);
--> statement-breakpoint
UPDATE `pod_sample_ends` SET unknown_since = (
  SELECT min(s.observed_at) FROM pod_samples s
  WHERE s.account = pod_sample_ends.account AND s.observed_at > pod_sample_ends.latest_known_at
    AND s.pod_id = pod_sample_ends.pod_id
) WHERE latest_known_at IS NOT NULL AND latest_at > latest_known_at;
