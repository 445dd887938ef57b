-- Hand-edited from drizzle-kit's output: the triggers and the fold of the samples already stored.
-- endpoint_activity folds each endpoint's worker samples to what the waste rule asks (the latest
-- summary, the latest sample with running workers), so it reads a row per endpoint every few
-- minutes instead of grouping 12 hours of samples twice. Triggers rather than the writer: the
-- samples are few (an endpoint every 5 minutes) and have several writers (the collector,
-- retention, a user's sqlite3), and a trigger keeps the fold exact for all of them.
CREATE TABLE `endpoint_activity` (
	`account` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`latest_at` integer NOT NULL,
	`running` integer NOT NULL,
	`idle` integer NOT NULL,
	`initializing` integer NOT NULL,
	`unhealthy` integer NOT NULL,
	`last_busy_at` integer,
	PRIMARY KEY(`account`, `endpoint_id`)
);
--> statement-breakpoint
INSERT INTO `endpoint_activity` (account, endpoint_id, latest_at, running, idle, initializing, unhealthy, last_busy_at)
SELECT account, endpoint_id, max(observed_at), running, idle, initializing, unhealthy, NULL
FROM `endpoint_worker_samples` GROUP BY account, endpoint_id;
--> statement-breakpoint
UPDATE `endpoint_activity` SET last_busy_at = (
  SELECT max(s.observed_at) FROM `endpoint_worker_samples` s
  WHERE s.account = endpoint_activity.account AND s.endpoint_id = endpoint_activity.endpoint_id AND s.running > 0
);
--> statement-breakpoint
-- A new sample moves the latest summary when it is the newest, and the latest busy time when it is busy.
CREATE TRIGGER `endpoint_activity_insert` AFTER INSERT ON `endpoint_worker_samples` BEGIN
  INSERT INTO endpoint_activity (account, endpoint_id, latest_at, running, idle, initializing, unhealthy, last_busy_at)
  VALUES (NEW.account, NEW.endpoint_id, NEW.observed_at, NEW.running, NEW.idle, NEW.initializing, NEW.unhealthy,
    CASE WHEN NEW.running > 0 THEN NEW.observed_at END)
  ON CONFLICT (account, endpoint_id) DO UPDATE SET
    running = CASE WHEN excluded.latest_at >= latest_at THEN excluded.running ELSE running END,
    idle = CASE WHEN excluded.latest_at >= latest_at THEN excluded.idle ELSE idle END,
    initializing = CASE WHEN excluded.latest_at >= latest_at THEN excluded.initializing ELSE initializing END,
    unhealthy = CASE WHEN excluded.latest_at >= latest_at THEN excluded.unhealthy ELSE unhealthy END,
    latest_at = max(latest_at, excluded.latest_at),
    last_busy_at = CASE WHEN last_busy_at IS NULL OR excluded.last_busy_at > last_busy_at
      THEN coalesce(excluded.last_busy_at, last_busy_at) ELSE last_busy_at END;
END;
--> statement-breakpoint
-- Only a sample the fold points at (the latest, the latest busy) is looked for again, newest
-- first: retention deletes the oldest samples, which the fold seldom points at.
CREATE TRIGGER `endpoint_activity_delete` AFTER DELETE ON `endpoint_worker_samples`
WHEN EXISTS (
  SELECT 1 FROM endpoint_activity a WHERE a.account = OLD.account AND a.endpoint_id = OLD.endpoint_id
    AND (a.latest_at = OLD.observed_at OR a.last_busy_at = OLD.observed_at)
) BEGIN
  UPDATE endpoint_activity SET (latest_at, running, idle, initializing, unhealthy) = (
    SELECT s.observed_at, s.running, s.idle, s.initializing, s.unhealthy FROM endpoint_worker_samples s
    WHERE s.account = OLD.account AND s.endpoint_id = OLD.endpoint_id ORDER BY s.observed_at DESC LIMIT 1
  )
  WHERE account = OLD.account AND endpoint_id = OLD.endpoint_id AND latest_at = OLD.observed_at
    AND EXISTS (SELECT 1 FROM endpoint_worker_samples s WHERE s.account = OLD.account AND s.endpoint_id = OLD.endpoint_id);
  -- Still pointing at the deleted sample: the endpoint has none left.
  DELETE FROM endpoint_activity
  WHERE account = OLD.account AND endpoint_id = OLD.endpoint_id AND latest_at = OLD.observed_at;
  UPDATE endpoint_activity SET last_busy_at = (
    SELECT s.observed_at FROM endpoint_worker_samples s
    WHERE s.account = OLD.account AND s.endpoint_id = OLD.endpoint_id AND s.running > 0
    ORDER BY s.observed_at DESC LIMIT 1
  )
  WHERE account = OLD.account AND endpoint_id = OLD.endpoint_id AND last_busy_at = OLD.observed_at;
END;
--> statement-breakpoint
-- A sample written again (the collector's upsert): as if the old one were deleted and the new one
-- inserted. The table already holds the new one when the fold is looked for again.
CREATE TRIGGER `endpoint_activity_update` AFTER UPDATE ON `endpoint_worker_samples` BEGIN
  UPDATE endpoint_activity SET (latest_at, running, idle, initializing, unhealthy) = (
    SELECT s.observed_at, s.running, s.idle, s.initializing, s.unhealthy FROM endpoint_worker_samples s
    WHERE s.account = OLD.account AND s.endpoint_id = OLD.endpoint_id ORDER BY s.observed_at DESC LIMIT 1
  )
  WHERE account = OLD.account AND endpoint_id = OLD.endpoint_id AND latest_at = OLD.observed_at
    AND EXISTS (SELECT 1 FROM endpoint_worker_samples s WHERE s.account = OLD.account AND s.endpoint_id = OLD.endpoint_id);
  DELETE FROM endpoint_activity
  WHERE account = OLD.account AND endpoint_id = OLD.endpoint_id AND latest_at = OLD.observed_at
    AND NOT EXISTS (SELECT 1 FROM endpoint_worker_samples s WHERE s.account = OLD.account AND s.endpoint_id = OLD.endpoint_id);
  UPDATE endpoint_activity SET last_busy_at = (
    SELECT s.observed_at FROM endpoint_worker_samples s
    WHERE s.account = OLD.account AND s.endpoint_id = OLD.endpoint_id AND s.running > 0
    ORDER BY s.observed_at DESC LIMIT 1
  )
  WHERE account = OLD.account AND endpoint_id = OLD.endpoint_id AND last_busy_at = OLD.observed_at;
  INSERT INTO endpoint_activity (account, endpoint_id, latest_at, running, idle, initializing, unhealthy, last_busy_at)
  VALUES (NEW.account, NEW.endpoint_id, NEW.observed_at, NEW.running, NEW.idle, NEW.initializing, NEW.unhealthy,
    CASE WHEN NEW.running > 0 THEN NEW.observed_at END)
  ON CONFLICT (account, endpoint_id) DO UPDATE SET
    running = CASE WHEN excluded.latest_at >= latest_at THEN excluded.running ELSE running END,
    idle = CASE WHEN excluded.latest_at >= latest_at THEN excluded.idle ELSE idle END,
    initializing = CASE WHEN excluded.latest_at >= latest_at THEN excluded.initializing ELSE initializing END,
    unhealthy = CASE WHEN excluded.latest_at >= latest_at THEN excluded.unhealthy ELSE unhealthy END,
    latest_at = max(latest_at, excluded.latest_at),
    last_busy_at = CASE WHEN last_busy_at IS NULL OR excluded.last_busy_at > last_busy_at
      THEN coalesce(excluded.last_busy_at, last_busy_at) ELSE last_busy_at END;
END;
