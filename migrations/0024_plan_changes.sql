-- Hand-edited from drizzle-kit's output: the row and the triggers that count.
-- plan_changes counts every change to what the notification pipeline plans on, made by any
-- connection, in the transaction that makes it (a rollback takes the count back with the change),
-- so a tick can tell that its planning inputs are those of the last plan by reading one row.
CREATE TABLE `plan_changes` (
	`id` integer PRIMARY KEY NOT NULL,
	`n` integer NOT NULL,
	CONSTRAINT "plan_changes_one_row" CHECK("plan_changes"."id" = 1)
);
--> statement-breakpoint
INSERT INTO `plan_changes` (id, n) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `plan_changes_alerts_insert` AFTER INSERT ON `alerts` BEGIN UPDATE plan_changes SET n = n + 1; END;
--> statement-breakpoint
CREATE TRIGGER `plan_changes_alerts_delete` AFTER DELETE ON `alerts` BEGIN UPDATE plan_changes SET n = n + 1; END;
--> statement-breakpoint
-- Every tick rewrites each open alert's figures: only a change to a field planning reads counts.
CREATE TRIGGER `plan_changes_alerts_update` AFTER UPDATE OF id, key, rule, account, severity, labels, recipients, fired_at, resolved_at ON `alerts`
  WHEN OLD.id IS NOT NEW.id OR OLD.key IS NOT NEW.key OR OLD.rule IS NOT NEW.rule OR OLD.account IS NOT NEW.account OR OLD.severity IS NOT NEW.severity OR OLD.labels IS NOT NEW.labels OR OLD.recipients IS NOT NEW.recipients OR OLD.fired_at IS NOT NEW.fired_at OR OLD.resolved_at IS NOT NEW.resolved_at
  BEGIN UPDATE plan_changes SET n = n + 1; END;
--> statement-breakpoint
CREATE TRIGGER `plan_changes_notification_log_insert` AFTER INSERT ON `notification_log` BEGIN UPDATE plan_changes SET n = n + 1; END;
--> statement-breakpoint
CREATE TRIGGER `plan_changes_notification_log_update` AFTER UPDATE ON `notification_log` BEGIN UPDATE plan_changes SET n = n + 1; END;
--> statement-breakpoint
CREATE TRIGGER `plan_changes_notification_log_delete` AFTER DELETE ON `notification_log` BEGIN UPDATE plan_changes SET n = n + 1; END;
--> statement-breakpoint
CREATE TRIGGER `plan_changes_silences_insert` AFTER INSERT ON `silences` BEGIN UPDATE plan_changes SET n = n + 1; END;
--> statement-breakpoint
CREATE TRIGGER `plan_changes_silences_update` AFTER UPDATE ON `silences` BEGIN UPDATE plan_changes SET n = n + 1; END;
--> statement-breakpoint
CREATE TRIGGER `plan_changes_silences_delete` AFTER DELETE ON `silences` BEGIN UPDATE plan_changes SET n = n + 1; END;
--> statement-breakpoint
CREATE TRIGGER `plan_changes_alert_flaps_insert` AFTER INSERT ON `alert_flaps` BEGIN UPDATE plan_changes SET n = n + 1; END;
--> statement-breakpoint
CREATE TRIGGER `plan_changes_alert_flaps_update` AFTER UPDATE ON `alert_flaps` BEGIN UPDATE plan_changes SET n = n + 1; END;
--> statement-breakpoint
CREATE TRIGGER `plan_changes_alert_flaps_delete` AFTER DELETE ON `alert_flaps` BEGIN UPDATE plan_changes SET n = n + 1; END;
