DROP TABLE `alertmanager_outbox`;--> statement-breakpoint
DROP TABLE `outbox`;