CREATE TABLE `gas_policies` (
	`tenant_id` text NOT NULL,
	`network` text NOT NULL,
	`enabled` integer NOT NULL,
	`user_daily_limit_wei` text,
	`tenant_monthly_budget_wei` text,
	`max_per_operation_wei` text,
	`operations` text NOT NULL,
	`allowlist` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `network`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `gas_sponsorships` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`network` text NOT NULL,
	`sender` text NOT NULL,
	`kind` text NOT NULL,
	`source` text NOT NULL,
	`user_op_hash` text,
	`nonce` text NOT NULL,
	`max_cost_wei` text NOT NULL,
	`actual_cost_wei` text,
	`status` text NOT NULL,
	`day` text NOT NULL,
	`month` text NOT NULL,
	`valid_until` integer NOT NULL,
	`transaction_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `gas_sponsorships_user_day_idx` ON `gas_sponsorships` (`tenant_id`,`user_id`,`network`,`day`);--> statement-breakpoint
CREATE INDEX `gas_sponsorships_month_idx` ON `gas_sponsorships` (`tenant_id`,`network`,`month`);--> statement-breakpoint
CREATE INDEX `gas_sponsorships_status_idx` ON `gas_sponsorships` (`status`,`valid_until`);--> statement-breakpoint
CREATE TABLE `gas_usage_counters` (
	`tenant_id` text NOT NULL,
	`network` text NOT NULL,
	`scope` text NOT NULL,
	`period` text NOT NULL,
	`total_wei` text NOT NULL,
	`operations` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `network`, `scope`, `period`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `transactions` ADD `user_op_hash` text;--> statement-breakpoint
ALTER TABLE `transactions` ADD `user_op` text;