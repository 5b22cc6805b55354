CREATE TABLE `portfolio_days` (
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`day` text NOT NULL,
	`recorded_at` integer NOT NULL,
	`total_eur` text NOT NULL,
	`total_usd` text NOT NULL,
	`unpriced` integer NOT NULL,
	`unread_wallets` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `user_id`, `day`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `portfolio_prices` (
	`coin_id` text PRIMARY KEY NOT NULL,
	`eur` text NOT NULL,
	`usd` text NOT NULL,
	`as_of` integer NOT NULL,
	`fetched_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `portfolio_snapshots` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`wallet_id` text NOT NULL,
	`day` text NOT NULL,
	`recorded_at` integer NOT NULL,
	`chain` text NOT NULL,
	`token` text NOT NULL,
	`symbol` text NOT NULL,
	`decimals` integer NOT NULL,
	`amount` text NOT NULL,
	`coin_id` text,
	`price_eur` text,
	`price_usd` text,
	`price_as_of` integer,
	`carried` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `portfolio_snapshots_uq` ON `portfolio_snapshots` (`tenant_id`,`wallet_id`,`token`,`day`);--> statement-breakpoint
CREATE INDEX `portfolio_snapshots_user_day_idx` ON `portfolio_snapshots` (`tenant_id`,`user_id`,`day`);