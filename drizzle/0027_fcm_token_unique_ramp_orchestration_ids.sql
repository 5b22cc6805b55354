-- A token several users held before this migration stays with the most recently changed holder (hand-written).
UPDATE `users` SET `fcm_token` = NULL WHERE `fcm_token` IS NOT NULL AND EXISTS (SELECT 1 FROM `users` AS `newer` WHERE `newer`.`fcm_token` = `users`.`fcm_token` AND (`newer`.`updated_at` > `users`.`updated_at` OR (`newer`.`updated_at` = `users`.`updated_at` AND `newer`.`id` > `users`.`id`)));--> statement-breakpoint
CREATE UNIQUE INDEX `users_fcm_token_uq` ON `users` (`fcm_token`);
--> statement-breakpoint
CREATE TABLE `ramp_orchestration_ids` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`environment` text NOT NULL,
	`kind` text NOT NULL,
	`ramp_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ramp_orchestration_ids_ramp_uq` ON `ramp_orchestration_ids` (`tenant_id`,`environment`,`kind`,`ramp_id`);--> statement-breakpoint
-- Hand-written backfill: transactions recorded before this migration hold the partner's rule and execution ids; each gets a Slipway id (a random UUID v4) and the rows are rewritten to it.
INSERT INTO `ramp_orchestration_ids` (`id`, `tenant_id`, `environment`, `kind`, `ramp_id`, `created_at`)
SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
  `tenant_id`, `environment`, 'rule', `rule_id`, min(`created_at`)
FROM `ramp_transactions` WHERE `rule_id` IS NOT NULL GROUP BY `tenant_id`, `environment`, `rule_id`;--> statement-breakpoint
INSERT INTO `ramp_orchestration_ids` (`id`, `tenant_id`, `environment`, `kind`, `ramp_id`, `created_at`)
SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
  `tenant_id`, `environment`, 'rule_execution', `rule_execution_id`, min(`created_at`)
FROM `ramp_transactions` WHERE `rule_execution_id` IS NOT NULL GROUP BY `tenant_id`, `environment`, `rule_execution_id`;--> statement-breakpoint
UPDATE `ramp_transactions` SET `rule_id` = (SELECT `o`.`id` FROM `ramp_orchestration_ids` AS `o` WHERE `o`.`tenant_id` = `ramp_transactions`.`tenant_id` AND `o`.`environment` = `ramp_transactions`.`environment` AND `o`.`kind` = 'rule' AND `o`.`ramp_id` = `ramp_transactions`.`rule_id`)
WHERE `rule_id` IS NOT NULL;--> statement-breakpoint
UPDATE `ramp_transactions` SET `rule_execution_id` = (SELECT `o`.`id` FROM `ramp_orchestration_ids` AS `o` WHERE `o`.`tenant_id` = `ramp_transactions`.`tenant_id` AND `o`.`environment` = `ramp_transactions`.`environment` AND `o`.`kind` = 'rule_execution' AND `o`.`ramp_id` = `ramp_transactions`.`rule_execution_id`)
WHERE `rule_execution_id` IS NOT NULL;
