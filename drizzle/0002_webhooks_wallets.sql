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
CREATE UNIQUE INDEX `webhooks_tenant_env_uq` ON `webhooks` (`tenant_id`,`environment`);--> statement-breakpoint
CREATE TABLE `wallet_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`purpose` text NOT NULL,
	`chain` text NOT NULL,
	`is_testnet` integer NOT NULL,
	`address_key` text NOT NULL,
	`wallet_id` text,
	`message` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `wallet_challenges_user_idx` ON `wallet_challenges` (`tenant_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `wallet_devices` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text,
	`public_key` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `wallet_devices_user_idx` ON `wallet_devices` (`tenant_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `wallet_export_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`wallet_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `wallet_export_tokens_hash_uq` ON `wallet_export_tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `wallets` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`chain` text NOT NULL,
	`is_testnet` integer NOT NULL,
	`address` text NOT NULL,
	`address_key` text NOT NULL,
	`label` text,
	`wallet_type` text NOT NULL,
	`key_management_scheme` text NOT NULL,
	`is_primary` integer NOT NULL,
	`is_watch_only` integer NOT NULL,
	`data_key_wrapped` text,
	`key_sealed` text,
	`key_version` integer,
	`migration_device_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `wallets_user_idx` ON `wallets` (`tenant_id`,`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `wallets_address_idx` ON `wallets` (`tenant_id`,`address_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `wallets_primary_uq` ON `wallets` (`tenant_id`,`user_id`,`chain`,`is_testnet`) WHERE is_primary = 1 and deleted_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX `wallets_address_uq` ON `wallets` (`tenant_id`,`chain`,`is_testnet`,`address_key`) WHERE deleted_at is null;