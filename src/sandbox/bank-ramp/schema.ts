/**
 * The embedded bank ramp simulator's own tables (sandbox only): its state, kept across
 * restarts (persistence.ts), read and written only by ./repo.ts. Nothing of Slipway's own
 * ramp records is here (src/modules/ramp/schema.ts), and nothing here is read by Slipway.
 */
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * One entry of one of the simulator's stores (state.ts): `kind` is the store, `id` the entry's
 * key there, `body` its value as JSON. `account_id` is the simulator account (the tenant id),
 * `customer_id` the partner customer the entry belongs to, so a reset finds it.
 */
export const sandboxBankRampRecords = sqliteTable('sandbox_bank_ramp_records', {
  kind: text('kind').notNull(),
  id: text('id').notNull(),
  accountId: text('account_id').notNull(),
  customerId: text('customer_id'),
  body: text('body').notNull(),
  expiresAt: integer('expires_at').notNull(),
}, (t) => [
  primaryKey({ columns: [t.kind, t.id] }),
  index('sandbox_bank_ramp_records_customer_idx').on(t.accountId, t.customerId),
  index('sandbox_bank_ramp_records_expires_idx').on(t.expiresAt),
])

/** Counters that only grow (`iban`: the last virtual IBAN number handed out). */
export const sandboxBankRampCounters = sqliteTable('sandbox_bank_ramp_counters', {
  name: text('name').primaryKey(),
  value: integer('value').notNull(),
})

/** Customers forgotten by `slipway sandbox reset-user`, for running simulators to forget them too. */
export const sandboxBankRampResets = sqliteTable('sandbox_bank_ramp_resets', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  accountId: text('account_id').notNull(),
  customerId: text('customer_id').notNull(),
  at: integer('at').notNull(),
})
