DROP INDEX `users_fcm_token_uq`;--> statement-breakpoint
CREATE UNIQUE INDEX `users_fcm_token_uq` ON `users` (`fcm_token`) WHERE fcm_token IS NOT NULL;