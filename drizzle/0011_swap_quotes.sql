CREATE TABLE `swap_quotes` (
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`id` text NOT NULL,
	`wallet_id` text NOT NULL,
	`from_chain` text NOT NULL,
	`to_chain` text NOT NULL,
	`from_token` text,
	`from_token_symbol` text NOT NULL,
	`from_token_decimals` integer NOT NULL,
	`to_token` text NOT NULL,
	`to_token_symbol` text NOT NULL,
	`to_token_decimals` integer NOT NULL,
	`from_amount` text NOT NULL,
	`to_amount` text NOT NULL,
	`to_amount_min` text NOT NULL,
	`to_address` text NOT NULL,
	`tool` text NOT NULL,
	`approval_address` text,
	`transaction` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `user_id`, `id`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `swap_quotes_expiry_idx` ON `swap_quotes` (`expires_at`);