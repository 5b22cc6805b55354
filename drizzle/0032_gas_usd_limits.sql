ALTER TABLE `gas_policies` ADD `user_daily_limit_usd` text;--> statement-breakpoint
ALTER TABLE `gas_policies` ADD `tenant_monthly_budget_usd` text;--> statement-breakpoint
ALTER TABLE `gas_policies` ADD `max_per_operation_usd` text;--> statement-breakpoint
ALTER TABLE `gas_sponsorships` ADD `usd_rate` text;--> statement-breakpoint
ALTER TABLE `gas_sponsorships` ADD `usd_rate_as_of` integer;--> statement-breakpoint
ALTER TABLE `gas_sponsorships` ADD `max_cost_usd` text;--> statement-breakpoint
ALTER TABLE `gas_sponsorships` ADD `actual_cost_usd` text;--> statement-breakpoint
ALTER TABLE `gas_usage_counters` ADD `total_usd` text DEFAULT '0' NOT NULL;