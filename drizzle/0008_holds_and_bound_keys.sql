CREATE TABLE `wallet_holds` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`wallet_id` text NOT NULL,
	`network` text NOT NULL,
	`token_address` text,
	`amount` text NOT NULL,
	`purpose` text NOT NULL,
	`ref_id` text NOT NULL,
	`transaction_id` text,
	`released_at` integer,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `wallet_holds_wallet_idx` ON `wallet_holds` (`tenant_id`,`wallet_id`,`network`);--> statement-breakpoint
ALTER TABLE `idempotency_keys` ADD `resource` text;--> statement-breakpoint
CREATE INDEX `transactions_wallet_status_idx` ON `transactions` (`tenant_id`,`wallet_id`,`status`,`block_number`);