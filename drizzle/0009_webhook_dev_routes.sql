CREATE TABLE `webhook_dev_routes` (
	`tenant_id` text NOT NULL,
	`host` text NOT NULL,
	`origin` text NOT NULL,
	`restore_url` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `host`)
);
