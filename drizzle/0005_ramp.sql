CREATE TABLE `idempotency_keys` (
	`user_id` text NOT NULL,
	`endpoint` text NOT NULL,
	`key` text NOT NULL,
	`tenant_id` text,
	`body_hash` text NOT NULL,
	`state` text NOT NULL,
	`status_code` integer,
	`response` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `endpoint`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_expires_idx` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `ramp_customers` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`user_id` text NOT NULL,
	`customer_type` text,
	`verification_status` text,
	`known` integer DEFAULT false NOT NULL,
	`actions_required` text NOT NULL,
	`regions` text NOT NULL,
	`agreements` text NOT NULL,
	`session_url` text,
	`session_expires_at` integer,
	`event_version` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ramp_customers_user_uq` ON `ramp_customers` (`tenant_id`,`environment`,`user_id`);--> statement-breakpoint
CREATE TABLE `ramp_deposits` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`user_id` text NOT NULL,
	`payment_method_id` text,
	`ramp_deposit_id` text NOT NULL,
	`status` text NOT NULL,
	`ramp_status` text,
	`ramp_sub_status` text,
	`request_for_information` text,
	`refunds` text NOT NULL,
	`payment_method_type` text,
	`payment_system_id` text,
	`fiat_amount` text NOT NULL,
	`fiat_currency` text NOT NULL,
	`deposit_date` integer,
	`event_version` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ramp_deposits_ramp_uq` ON `ramp_deposits` (`tenant_id`,`environment`,`ramp_deposit_id`);--> statement-breakpoint
CREATE INDEX `ramp_deposits_user_idx` ON `ramp_deposits` (`tenant_id`,`environment`,`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `ramp_payment_methods` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`user_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`ramp_payment_method_id` text NOT NULL,
	`payment_method_type` text NOT NULL,
	`iban` text NOT NULL,
	`bic` text,
	`bank_name` text,
	`account_holder_name` text,
	`reference` text,
	`fiat_currency` text NOT NULL,
	`crypto_currency` text NOT NULL,
	`chain` text NOT NULL,
	`wallet_id` text NOT NULL,
	`destination_address` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ramp_payment_methods_ramp_uq` ON `ramp_payment_methods` (`tenant_id`,`environment`,`ramp_payment_method_id`);--> statement-breakpoint
CREATE INDEX `ramp_payment_methods_user_idx` ON `ramp_payment_methods` (`tenant_id`,`environment`,`user_id`);--> statement-breakpoint
CREATE TABLE `ramp_transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`user_id` text NOT NULL,
	`ramp_transaction_id` text NOT NULL,
	`transaction_type` text NOT NULL,
	`direction` text NOT NULL,
	`status` text NOT NULL,
	`ramp_status` text,
	`ramp_sub_status` text,
	`crypto_amount` text,
	`crypto_currency` text,
	`fiat_amount` text,
	`fiat_currency` text,
	`network` text,
	`destination_address` text,
	`transaction_hash` text,
	`deposit_id` text,
	`ramp_deposit_id` text,
	`request_for_information` text,
	`refunds` text NOT NULL,
	`rule_id` text,
	`rule_execution_id` text,
	`reverses_transaction_id` text,
	`adjustment` text,
	`breakdown` text NOT NULL,
	`network_fee` text,
	`fiat_fee_amount` text,
	`fiat_rate` text,
	`payment_system_id` text,
	`event_version` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ramp_transactions_ramp_uq` ON `ramp_transactions` (`tenant_id`,`environment`,`ramp_transaction_id`);--> statement-breakpoint
CREATE INDEX `ramp_transactions_user_idx` ON `ramp_transactions` (`tenant_id`,`environment`,`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `ramp_transactions_execution_idx` ON `ramp_transactions` (`tenant_id`,`environment`,`rule_execution_id`);