ALTER TABLE `ap_executions` ADD `counted_at` integer;--> statement-breakpoint
ALTER TABLE `ap_policies` ADD `allow_unregistered_payees` integer;--> statement-breakpoint
CREATE INDEX `ap_merchants_pay_to_idx` ON `ap_merchants` (`tenant_id`,`pay_to_network`);