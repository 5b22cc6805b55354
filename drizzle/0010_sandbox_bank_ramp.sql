CREATE TABLE `sandbox_bank_ramp_counters` (
	`name` text PRIMARY KEY NOT NULL,
	`value` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sandbox_bank_ramp_records` (
	`kind` text NOT NULL,
	`id` text NOT NULL,
	`account_id` text NOT NULL,
	`customer_id` text,
	`body` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`kind`, `id`)
);
--> statement-breakpoint
CREATE INDEX `sandbox_bank_ramp_records_customer_idx` ON `sandbox_bank_ramp_records` (`account_id`,`customer_id`);--> statement-breakpoint
CREATE INDEX `sandbox_bank_ramp_records_expires_idx` ON `sandbox_bank_ramp_records` (`expires_at`);--> statement-breakpoint
CREATE TABLE `sandbox_bank_ramp_resets` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`at` integer NOT NULL
);
