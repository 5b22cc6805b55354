CREATE TABLE `ramp_address_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`user_id` text NOT NULL,
	`chain` text NOT NULL,
	`address` text NOT NULL,
	`message` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ramp_address_challenges_user_idx` ON `ramp_address_challenges` (`tenant_id`,`environment`,`user_id`);--> statement-breakpoint
CREATE TABLE `ramp_payout_quotes` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`user_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`wallet_id` text NOT NULL,
	`chain` text NOT NULL,
	`crypto_currency` text NOT NULL,
	`fiat_amount` text NOT NULL,
	`fiat_currency` text NOT NULL,
	`ramp_payment_method_id` text,
	`form_session_id` text NOT NULL,
	`total_fee` text NOT NULL,
	`crypto_amount_estimate` text NOT NULL,
	`crypto_authorized_amount` text NOT NULL,
	`exchange_rate` text,
	`deposit_address` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ramp_payout_quotes_user_idx` ON `ramp_payout_quotes` (`tenant_id`,`environment`,`user_id`);--> statement-breakpoint
CREATE TABLE `ramp_payouts` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`user_id` text NOT NULL,
	`quote_id` text NOT NULL,
	`wallet_id` text NOT NULL,
	`chain` text NOT NULL,
	`crypto_currency` text NOT NULL,
	`crypto_authorized_amount` text NOT NULL,
	`fiat_amount` text NOT NULL,
	`fiat_currency` text NOT NULL,
	`exchange_rate` text,
	`total_fee` text NOT NULL,
	`status` text NOT NULL,
	`ramp_transaction_id` text,
	`chain_transaction_id` text,
	`tx_hash` text,
	`failure_reason` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ramp_payouts_quote_uq` ON `ramp_payouts` (`tenant_id`,`quote_id`);--> statement-breakpoint
CREATE INDEX `ramp_payouts_user_idx` ON `ramp_payouts` (`tenant_id`,`environment`,`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `ramp_proven_addresses` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`user_id` text NOT NULL,
	`chain` text NOT NULL,
	`address` text NOT NULL,
	`ramp_address_id` text NOT NULL,
	`proven_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ramp_proven_addresses_uq` ON `ramp_proven_addresses` (`tenant_id`,`environment`,`user_id`,`chain`,`address`);