DROP INDEX `webhooks_tenant_env_uq`;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `owner` text DEFAULT 'platform' NOT NULL;--> statement-breakpoint
CREATE INDEX `webhooks_tenant_owner_idx` ON `webhooks` (`tenant_id`,`owner`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `webhooks_tenant_env_uq` ON `webhooks` (`tenant_id`,`environment`) WHERE owner = 'platform';--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `owner` text DEFAULT 'platform' NOT NULL;