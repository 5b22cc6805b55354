CREATE TABLE `sandbox_card_onramp_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`body` text NOT NULL,
	`pending` integer DEFAULT 0 NOT NULL,
	`completing` integer DEFAULT 0 NOT NULL,
	`signed` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sandbox_card_onramp_sessions_created_idx` ON `sandbox_card_onramp_sessions` (`created_at`);--> statement-breakpoint
CREATE INDEX `sandbox_card_onramp_sessions_pending_idx` ON `sandbox_card_onramp_sessions` (`pending`,`completing`);