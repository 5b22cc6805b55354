-- One active account per email in a tenant (a deleted account frees its email), enforced by a
-- unique partial index instead of a check before each insert. Until now the check ran inside the
-- registration's transaction only: two concurrent admin creations or email changes could give two
-- active accounts one email. If this migration is refused with "UNIQUE constraint failed", find
-- those accounts with
--   SELECT scope, email_key, group_concat(id) FROM users WHERE status = 'active' AND email_key IS NOT NULL
--   GROUP BY scope, email_key HAVING count(*) > 1;
-- change or delete all but one of each, and start again (nothing of this migration is kept on failure).
DROP INDEX `users_scope_email_idx`;--> statement-breakpoint
CREATE UNIQUE INDEX `users_scope_active_email_uq` ON `users` (`scope`,`email_key`) WHERE status = 'active';