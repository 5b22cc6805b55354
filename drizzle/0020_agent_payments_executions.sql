CREATE TABLE `ap_approvals` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`execution_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`status` text NOT NULL,
	`reasons` text NOT NULL,
	`note` text,
	`decided_by` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`decided_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ap_approvals_execution_uq` ON `ap_approvals` (`tenant_id`,`execution_id`);--> statement-breakpoint
CREATE INDEX `ap_approvals_tenant_idx` ON `ap_approvals` (`tenant_id`,`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `ap_executions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`merchant_id` text,
	`mandate_id` text,
	`policy_id` text,
	`policy_version` integer,
	`amount` text NOT NULL,
	`currency` text NOT NULL,
	`rail` text NOT NULL,
	`network` text,
	`pay_to_address` text,
	`description` text,
	`idempotency_key` text,
	`environment` text NOT NULL,
	`status` text NOT NULL,
	`decision` text NOT NULL,
	`reasons` text NOT NULL,
	`transaction_id` text,
	`tx_hash` text,
	`failure_reason` text,
	`refunded_amount` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`completed_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ap_executions_idem_uq` ON `ap_executions` (`tenant_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `ap_executions_tenant_idx` ON `ap_executions` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `ap_executions_agent_idx` ON `ap_executions` (`tenant_id`,`agent_id`,`status`,`created_at`);