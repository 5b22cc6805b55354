CREATE TABLE `ap_spend_totals` (
	`tenant_id` text NOT NULL,
	`owner_kind` text NOT NULL,
	`owner_id` text NOT NULL,
	`window_end` integer NOT NULL,
	`window_start` integer NOT NULL,
	`whole` integer NOT NULL,
	`frac` integer NOT NULL,
	`count` integer NOT NULL,
	`overflow` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `owner_kind`, `owner_id`, `window_end`, `window_start`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);--> statement-breakpoint
-- Hand-written (not drizzle-kit): the triggers that keep ap_spend_totals (src/modules/agent-payments/schema.ts) equal to
-- the executions that count, in the transaction of every insert, update or delete of ap_executions. An execution counts
-- while its status is one of COUNTED_STATUSES (record-types.ts), in every window row of its agent and of its mandate that
-- contains coalesce(counted_at, created_at). A window row missing is made on first use from the executions (repo/spend.ts):
-- nothing to backfill here. Each amount is parsed once per row (the inner SELECT): a trigger's SQL is compiled into every
-- statement that writes ap_executions, and its length cost sqld about 5 ms of CPU per execution when each use repeated it.
CREATE TRIGGER `ap_spend_count_insert` AFTER INSERT ON `ap_executions`
WHEN NEW.status IN ('requires_approval', 'requires_confirmation', 'processing', 'succeeded', 'refunded', 'partially_refunded')
BEGIN
  UPDATE ap_spend_totals SET (overflow, whole, frac, count) = (SELECT o, CASE WHEN o THEN whole ELSE whole + w + (frac + f) / 1000000000000000000 END,
    CASE WHEN o THEN frac ELSE (frac + f) % 1000000000000000000 END, count + 1
    FROM (SELECT w, f, overflow = 1 OR wl > 15 OR whole + w + (frac + f) / 1000000000000000000 > 4000000000000000000 AS o FROM (
      SELECT CAST(substr(NEW.amount, 1, instr(NEW.amount || '.', '.') - 1) AS INTEGER) AS w, instr(NEW.amount || '.', '.') - 1 AS wl,
      CAST(substr(substr(NEW.amount, instr(NEW.amount || '.', '.') + 1) || '000000000000000000', 1, 18) AS INTEGER) AS f)))
  WHERE tenant_id = NEW.tenant_id AND (owner_kind, owner_id) IN (('agent', NEW.agent_id), ('mandate', NEW.mandate_id)) AND window_end > coalesce(NEW.counted_at, NEW.created_at) AND window_start <= coalesce(NEW.counted_at, NEW.created_at);
END;
--> statement-breakpoint
CREATE TRIGGER `ap_spend_count_release` AFTER UPDATE ON `ap_executions`
WHEN OLD.status IN ('requires_approval', 'requires_confirmation', 'processing', 'succeeded', 'refunded', 'partially_refunded') AND (NEW.status NOT IN ('requires_approval', 'requires_confirmation', 'processing', 'succeeded', 'refunded', 'partially_refunded')
    OR (OLD.amount IS NOT NEW.amount OR coalesce(OLD.counted_at, OLD.created_at) IS NOT coalesce(NEW.counted_at, NEW.created_at)
    OR OLD.agent_id IS NOT NEW.agent_id OR OLD.mandate_id IS NOT NEW.mandate_id OR OLD.tenant_id IS NOT NEW.tenant_id))
BEGIN
  UPDATE ap_spend_totals SET (overflow, whole, frac, count) = (SELECT o, CASE WHEN o THEN whole ELSE whole - w - (frac < f) END,
    CASE WHEN o THEN frac ELSE frac - f + (frac < f) * 1000000000000000000 END, count - 1
    FROM (SELECT w, f, overflow = 1 OR wl > 15 AS o FROM (
      SELECT CAST(substr(OLD.amount, 1, instr(OLD.amount || '.', '.') - 1) AS INTEGER) AS w, instr(OLD.amount || '.', '.') - 1 AS wl,
      CAST(substr(substr(OLD.amount, instr(OLD.amount || '.', '.') + 1) || '000000000000000000', 1, 18) AS INTEGER) AS f)))
  WHERE tenant_id = OLD.tenant_id AND (owner_kind, owner_id) IN (('agent', OLD.agent_id), ('mandate', OLD.mandate_id)) AND window_end > coalesce(OLD.counted_at, OLD.created_at) AND window_start <= coalesce(OLD.counted_at, OLD.created_at);
END;
--> statement-breakpoint
CREATE TRIGGER `ap_spend_count_update` AFTER UPDATE ON `ap_executions`
WHEN NEW.status IN ('requires_approval', 'requires_confirmation', 'processing', 'succeeded', 'refunded', 'partially_refunded') AND (OLD.status NOT IN ('requires_approval', 'requires_confirmation', 'processing', 'succeeded', 'refunded', 'partially_refunded')
    OR (OLD.amount IS NOT NEW.amount OR coalesce(OLD.counted_at, OLD.created_at) IS NOT coalesce(NEW.counted_at, NEW.created_at)
    OR OLD.agent_id IS NOT NEW.agent_id OR OLD.mandate_id IS NOT NEW.mandate_id OR OLD.tenant_id IS NOT NEW.tenant_id))
BEGIN
  UPDATE ap_spend_totals SET (overflow, whole, frac, count) = (SELECT o, CASE WHEN o THEN whole ELSE whole + w + (frac + f) / 1000000000000000000 END,
    CASE WHEN o THEN frac ELSE (frac + f) % 1000000000000000000 END, count + 1
    FROM (SELECT w, f, overflow = 1 OR wl > 15 OR whole + w + (frac + f) / 1000000000000000000 > 4000000000000000000 AS o FROM (
      SELECT CAST(substr(NEW.amount, 1, instr(NEW.amount || '.', '.') - 1) AS INTEGER) AS w, instr(NEW.amount || '.', '.') - 1 AS wl,
      CAST(substr(substr(NEW.amount, instr(NEW.amount || '.', '.') + 1) || '000000000000000000', 1, 18) AS INTEGER) AS f)))
  WHERE tenant_id = NEW.tenant_id AND (owner_kind, owner_id) IN (('agent', NEW.agent_id), ('mandate', NEW.mandate_id)) AND window_end > coalesce(NEW.counted_at, NEW.created_at) AND window_start <= coalesce(NEW.counted_at, NEW.created_at);
END;
--> statement-breakpoint
CREATE TRIGGER `ap_spend_count_delete` AFTER DELETE ON `ap_executions`
WHEN OLD.status IN ('requires_approval', 'requires_confirmation', 'processing', 'succeeded', 'refunded', 'partially_refunded')
BEGIN
  UPDATE ap_spend_totals SET (overflow, whole, frac, count) = (SELECT o, CASE WHEN o THEN whole ELSE whole - w - (frac < f) END,
    CASE WHEN o THEN frac ELSE frac - f + (frac < f) * 1000000000000000000 END, count - 1
    FROM (SELECT w, f, overflow = 1 OR wl > 15 AS o FROM (
      SELECT CAST(substr(OLD.amount, 1, instr(OLD.amount || '.', '.') - 1) AS INTEGER) AS w, instr(OLD.amount || '.', '.') - 1 AS wl,
      CAST(substr(substr(OLD.amount, instr(OLD.amount || '.', '.') + 1) || '000000000000000000', 1, 18) AS INTEGER) AS f)))
  WHERE tenant_id = OLD.tenant_id AND (owner_kind, owner_id) IN (('agent', OLD.agent_id), ('mandate', OLD.mandate_id)) AND window_end > coalesce(OLD.counted_at, OLD.created_at) AND window_start <= coalesce(OLD.counted_at, OLD.created_at);
END;
