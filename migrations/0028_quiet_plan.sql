-- The last plan of the notification pipeline that decided nothing (alerts/quiet.ts), kept in the
-- row that counts its inputs' changes, so every connection and a restarted daemon read it.
ALTER TABLE `plan_changes` ADD `quiet_n` integer;--> statement-breakpoint
ALTER TABLE `plan_changes` ADD `quiet_settings` text;--> statement-breakpoint
ALTER TABLE `plan_changes` ADD `quiet_from` integer;--> statement-breakpoint
ALTER TABLE `plan_changes` ADD `quiet_until` integer;
