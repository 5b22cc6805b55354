CREATE TABLE `card_onramp_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`user_id` text,
	`external_id` text,
	`wallet_id` text,
	`address` text NOT NULL,
	`chain` text NOT NULL,
	`destination_network` text NOT NULL,
	`destination_currency` text NOT NULL,
	`source_currency` text,
	`requested_source_amount` text,
	`requested_destination_amount` text,
	`status` text NOT NULL,
	`provider_status` text NOT NULL,
	`provider_session_id` text NOT NULL,
	`amounts` text,
	`transaction_id` text,
	`failure_code` text,
	`provider_event_at` integer,
	`provider_event_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `card_onramp_provider_uq` ON `card_onramp_sessions` (`tenant_id`,`environment`,`provider_session_id`);--> statement-breakpoint
CREATE INDEX `card_onramp_user_idx` ON `card_onramp_sessions` (`tenant_id`,`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `card_onramp_external_idx` ON `card_onramp_sessions` (`tenant_id`,`external_id`,`created_at`);