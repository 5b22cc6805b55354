CREATE TABLE `ap_mandates` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`type` text NOT NULL,
	`agent_id` text NOT NULL,
	`shopper_id` text,
	`environment` text NOT NULL,
	`status` text NOT NULL,
	`constraints` text NOT NULL,
	`cart` text,
	`description` text,
	`human_present` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`authorized_by` text,
	`authorized_at` integer,
	`authorization_hash` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`ended_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ap_mandates_tenant_idx` ON `ap_mandates` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `ap_mandates_agent_idx` ON `ap_mandates` (`tenant_id`,`agent_id`,`status`);