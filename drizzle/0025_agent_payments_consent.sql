ALTER TABLE `ap_agents` ADD `wallet_consent_by` text;--> statement-breakpoint
ALTER TABLE `ap_agents` ADD `wallet_consent_at` integer;--> statement-breakpoint
ALTER TABLE `ap_mandates` ADD `authorized_key_thumbprint` text;--> statement-breakpoint
ALTER TABLE `ap_shoppers` ADD `key_changed_at` integer;