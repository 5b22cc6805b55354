CREATE TABLE `lending_rate_follows` (
	`tenant_id` text NOT NULL,
	`network` text NOT NULL,
	`asset` text NOT NULL,
	`pool` text NOT NULL,
	`last_read_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `network`, `asset`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `lending_rate_follows_read_idx` ON `lending_rate_follows` (`last_read_at`);--> statement-breakpoint
CREATE TABLE `lending_rate_samples` (
	`tenant_id` text NOT NULL,
	`network` text NOT NULL,
	`asset` text NOT NULL,
	`slot` integer NOT NULL,
	`pool` text NOT NULL,
	`liquidity_rate` text NOT NULL,
	`sampled_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `network`, `asset`, `slot`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
