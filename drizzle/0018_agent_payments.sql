CREATE TABLE `ap_agents` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`wallet_id` text NOT NULL,
	`environment` text NOT NULL,
	`policy_id` text,
	`public_key_jwk` text,
	`metadata` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`archived_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ap_agents_tenant_idx` ON `ap_agents` (`tenant_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `ap_agents_policy_idx` ON `ap_agents` (`tenant_id`,`policy_id`);--> statement-breakpoint
CREATE TABLE `ap_api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`kind` text NOT NULL,
	`owner_id` text NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`key_hash` text NOT NULL,
	`scopes` text NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ap_api_keys_hash_uq` ON `ap_api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `ap_api_keys_owner_idx` ON `ap_api_keys` (`tenant_id`,`kind`,`owner_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `ap_audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` text,
	`action` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`before` text,
	`after` text,
	`request_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ap_audit_tenant_idx` ON `ap_audit_log` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `ap_audit_resource_idx` ON `ap_audit_log` (`tenant_id`,`resource_type`,`resource_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `ap_merchants` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`website` text,
	`category` text,
	`pay_to_network` text NOT NULL,
	`pay_to_address` text NOT NULL,
	`environment` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`disabled_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ap_merchants_tenant_idx` ON `ap_merchants` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `ap_policies` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`currency` text NOT NULL,
	`limits` text NOT NULL,
	`allowed_merchant_ids` text,
	`blocked_merchant_ids` text,
	`allowed_categories` text,
	`allowed_rails` text,
	`allowed_networks` text,
	`approval_mode` text NOT NULL,
	`approval_threshold` text,
	`max_executions_per_day` integer,
	`active_hours` text,
	`version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ap_policies_tenant_idx` ON `ap_policies` (`tenant_id`,`created_at`);