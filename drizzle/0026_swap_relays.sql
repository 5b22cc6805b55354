CREATE TABLE `swap_relays` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`quote_id` text NOT NULL,
	`network` text NOT NULL,
	`token` text NOT NULL,
	`owner` text NOT NULL,
	`permit_nonce` text NOT NULL,
	`gas_cost` text NOT NULL,
	`status` text NOT NULL,
	`transaction_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `swap_relays_live_quote_uq` ON `swap_relays` (`tenant_id`,`user_id`,`quote_id`) WHERE status in ('claimed', 'sent');--> statement-breakpoint
CREATE UNIQUE INDEX `swap_relays_live_permit_uq` ON `swap_relays` (`network`,`token`,`owner`,`permit_nonce`) WHERE status in ('claimed', 'sent');--> statement-breakpoint
CREATE INDEX `swap_relays_tenant_day_idx` ON `swap_relays` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `swap_relays_user_day_idx` ON `swap_relays` (`tenant_id`,`user_id`,`created_at`);