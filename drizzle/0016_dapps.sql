CREATE TABLE `dapp_nonces` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`nonce_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dapp_nonces_hash_uq` ON `dapp_nonces` (`tenant_id`,`nonce_hash`);--> statement-breakpoint
CREATE INDEX `dapp_nonces_expiry_idx` ON `dapp_nonces` (`tenant_id`,`expires_at`);