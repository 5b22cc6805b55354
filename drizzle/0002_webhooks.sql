CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`webhook_id` text NOT NULL,
	`type` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`round` integer NOT NULL,
	`attempts` integer NOT NULL,
	`max_attempts` integer NOT NULL,
	`last_status_code` integer,
	`last_error` text,
	`next_attempt_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_webhook_idx` ON `webhook_deliveries` (`tenant_id`,`webhook_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_status_idx` ON `webhook_deliveries` (`status`,`updated_at`);--> statement-breakpoint
CREATE TABLE `webhook_delivery_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`delivery_id` text NOT NULL,
	`round` integer NOT NULL,
	`attempt` integer NOT NULL,
	`at` integer NOT NULL,
	`status_code` integer,
	`error` text,
	`duration_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_delivery_attempts_delivery_idx` ON `webhook_delivery_attempts` (`tenant_id`,`delivery_id`,`at`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`url` text NOT NULL,
	`event_types` text NOT NULL,
	`status` text NOT NULL,
	`secret_sealed` text NOT NULL,
	`secret_hint` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhooks_tenant_env_uq` ON `webhooks` (`tenant_id`,`environment`);