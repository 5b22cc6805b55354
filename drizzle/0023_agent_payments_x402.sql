ALTER TABLE `ap_executions` ADD `resource_url` text;--> statement-breakpoint
ALTER TABLE `ap_executions` ADD `x402` text;