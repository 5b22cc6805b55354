-- A token several users held before this migration stays with the most recently changed holder (hand-written).
UPDATE `users` SET `fcm_token` = NULL WHERE `fcm_token` IS NOT NULL AND EXISTS (SELECT 1 FROM `users` AS `newer` WHERE `newer`.`fcm_token` = `users`.`fcm_token` AND (`newer`.`updated_at` > `users`.`updated_at` OR (`newer`.`updated_at` = `users`.`updated_at` AND `newer`.`id` > `users`.`id`)));--> statement-breakpoint
CREATE UNIQUE INDEX `users_fcm_token_uq` ON `users` (`fcm_token`);
