CREATE TABLE `paymaster_signers` (
	`network` text PRIMARY KEY NOT NULL,
	`address` text NOT NULL,
	`key_sealed` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
