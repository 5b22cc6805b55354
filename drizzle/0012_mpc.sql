CREATE TABLE `mpc_messages` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`from_party` integer NOT NULL,
	`to_party` integer NOT NULL,
	`round` integer NOT NULL,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `mpc_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mpc_messages_once_uq` ON `mpc_messages` (`session_id`,`round`,`from_party`,`to_party`);--> statement-breakpoint
CREATE INDEX `mpc_messages_session_idx` ON `mpc_messages` (`session_id`,`seq`);--> statement-breakpoint
CREATE TABLE `mpc_results` (
	`session_id` text NOT NULL,
	`party_id` integer NOT NULL,
	`tenant_id` text NOT NULL,
	`public_key` text,
	`signature_r` text,
	`signature_s` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`session_id`, `party_id`),
	FOREIGN KEY (`session_id`) REFERENCES `mpc_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `mpc_service_shares` (
	`session_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`wallet_id` text,
	`public_key` text NOT NULL,
	`share_sealed` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `mpc_service_shares_wallet_idx` ON `mpc_service_shares` (`tenant_id`,`wallet_id`);--> statement-breakpoint
CREATE TABLE `mpc_session_parties` (
	`session_id` text NOT NULL,
	`party_id` integer NOT NULL,
	`tenant_id` text NOT NULL,
	`joined_at` integer NOT NULL,
	PRIMARY KEY(`session_id`, `party_id`),
	FOREIGN KEY (`session_id`) REFERENCES `mpc_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `mpc_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`chain` text NOT NULL,
	`is_testnet` integer NOT NULL,
	`parties` text NOT NULL,
	`wallet_id` text,
	`prepared_id` text,
	`transaction_id` text,
	`message_hash` text,
	`status` text NOT NULL,
	`public_key` text,
	`tx_hash` text,
	`failure_reason` text,
	`registered_wallet_id` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `mpc_sessions_user_idx` ON `mpc_sessions` (`tenant_id`,`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `mpc_sessions_expiry_idx` ON `mpc_sessions` (`expires_at`);