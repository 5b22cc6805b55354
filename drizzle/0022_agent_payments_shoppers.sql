CREATE TABLE `ap_shoppers` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`merchant_id` text NOT NULL,
	`external_ref` text NOT NULL,
	`user_id` text,
	`email` text,
	`public_key_jwk` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ap_shoppers_tenant_idx` ON `ap_shoppers` (`tenant_id`,`merchant_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `ap_shoppers_ref_uq` ON `ap_shoppers` (`tenant_id`,`merchant_id`,`external_ref`) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX `ap_mandates_shopper_idx` ON `ap_mandates` (`tenant_id`,`shopper_id`,`created_at`);