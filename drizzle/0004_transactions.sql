CREATE TABLE `prepared_transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`wallet_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`family` text NOT NULL,
	`unsigned` text NOT NULL,
	`signing_payload` text NOT NULL,
	`status` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `prepared_transactions_tx_idx` ON `prepared_transactions` (`tenant_id`,`transaction_id`);--> statement-breakpoint
CREATE TABLE `transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`wallet_id` text NOT NULL,
	`type` text NOT NULL,
	`chain` text NOT NULL,
	`is_testnet` integer NOT NULL,
	`network` text NOT NULL,
	`from_address` text NOT NULL,
	`to_address` text,
	`amount` text NOT NULL,
	`token_address` text,
	`token_symbol` text NOT NULL,
	`token_decimals` integer NOT NULL,
	`status` text NOT NULL,
	`requires_client_signing` integer NOT NULL,
	`tx_hash` text,
	`previous_hashes` text NOT NULL,
	`raw_tx` text,
	`chain_id` integer,
	`nonce` integer,
	`gas_limit` text,
	`max_fee_per_gas` text,
	`max_priority_fee_per_gas` text,
	`initial_max_fee_per_gas` text,
	`fee_paid` text,
	`confirmations` integer NOT NULL,
	`block_number` integer,
	`block_timestamp` integer,
	`failure_reason` text,
	`resend_count` integer NOT NULL,
	`submitted_at` integer,
	`simulation` integer NOT NULL,
	`quote_id` text,
	`metadata` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `transactions_user_idx` ON `transactions` (`tenant_id`,`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_wallet_idx` ON `transactions` (`tenant_id`,`wallet_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_status_idx` ON `transactions` (`status`,`updated_at`);--> statement-breakpoint
CREATE TABLE `wallet_nonces` (
	`tenant_id` text NOT NULL,
	`wallet_id` text NOT NULL,
	`network` text NOT NULL,
	`next_nonce` integer NOT NULL,
	`free_nonces` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `wallet_id`, `network`)
);
