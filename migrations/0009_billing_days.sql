-- WITHOUT ROWID added by hand (drizzle-kit cannot declare it): one b-tree, which every billing
-- write's trigger updates and every budget reads in key order.
CREATE TABLE `billing_days` (
	`account` text NOT NULL,
	`kind` text NOT NULL,
	`bucket_size` text NOT NULL,
	`day_start` integer NOT NULL,
	`resource_id` text NOT NULL,
	`total_amount` real NOT NULL,
	`covered_through` integer NOT NULL,
	PRIMARY KEY(`account`, `kind`, `bucket_size`, `day_start`, `resource_id`)
) WITHOUT ROWID;--> statement-breakpoint
-- Hand-written: the days of the billing already stored (the triggers below keep them from here on).
INSERT INTO `billing_days` (`account`, `kind`, `bucket_size`, `day_start`, `resource_id`, `total_amount`, `covered_through`)
SELECT `account`, `kind`, `bucket_size`, `start_time` - `start_time` % 86400000, `resource_id`, total(`total_amount`),
  max(min(`end_time`, `fetched_at`))
FROM `billing_records`
GROUP BY `account`, `kind`, `bucket_size`, `start_time` - `start_time` % 86400000, `resource_id`;
--> statement-breakpoint
-- Hand-written: the rollup follows every write to billing_records in the writer's transaction.
CREATE TRIGGER `billing_days_insert` AFTER INSERT ON `billing_records` BEGIN
  INSERT INTO billing_days (account, kind, bucket_size, day_start, resource_id, total_amount, covered_through)
  VALUES (NEW.account, NEW.kind, NEW.bucket_size, NEW.start_time - NEW.start_time % 86400000, NEW.resource_id, NEW.total_amount,
    min(NEW.end_time, NEW.fetched_at))
  ON CONFLICT DO UPDATE SET total_amount = total_amount + excluded.total_amount,
    covered_through = max(covered_through, excluded.covered_through);
END;
--> statement-breakpoint
CREATE TRIGGER `billing_days_update` AFTER UPDATE ON `billing_records` BEGIN
  UPDATE billing_days SET total_amount = total_amount - OLD.total_amount
  WHERE account = OLD.account AND kind = OLD.kind AND bucket_size = OLD.bucket_size
    AND day_start = OLD.start_time - OLD.start_time % 86400000 AND resource_id = OLD.resource_id;
  INSERT INTO billing_days (account, kind, bucket_size, day_start, resource_id, total_amount, covered_through)
  VALUES (NEW.account, NEW.kind, NEW.bucket_size, NEW.start_time - NEW.start_time % 86400000, NEW.resource_id, NEW.total_amount,
    min(NEW.end_time, NEW.fetched_at))
  ON CONFLICT DO UPDATE SET total_amount = total_amount + excluded.total_amount,
    covered_through = max(covered_through, excluded.covered_through);
END;
--> statement-breakpoint
-- A withdrawn bucket is rare: its day is summed again, so the day's latest coverage stays exact.
CREATE TRIGGER `billing_days_delete` AFTER DELETE ON `billing_records` BEGIN
  DELETE FROM billing_days
  WHERE account = OLD.account AND kind = OLD.kind AND bucket_size = OLD.bucket_size
    AND day_start = OLD.start_time - OLD.start_time % 86400000 AND resource_id = OLD.resource_id;
  INSERT INTO billing_days (account, kind, bucket_size, day_start, resource_id, total_amount, covered_through)
  SELECT account, kind, bucket_size, start_time - start_time % 86400000, resource_id, total(total_amount),
    max(min(end_time, fetched_at))
  FROM billing_records
  WHERE account = OLD.account AND kind = OLD.kind AND resource_id = OLD.resource_id AND bucket_size = OLD.bucket_size
    AND start_time >= OLD.start_time - OLD.start_time % 86400000 AND start_time < OLD.start_time - OLD.start_time % 86400000 + 86400000
  GROUP BY resource_id;
END;
