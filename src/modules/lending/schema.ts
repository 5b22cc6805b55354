/**
 * Lending rate history (docs/lending.md "Rate history"): supply-rate samples of an Aave
 * reserve, one per tenant, network, asset and sampling slot (`AAVE_RATE_SAMPLE_SECONDS`), and
 * the reserves a tenant's users look at, which the sampling job follows. Kept per tenant
 * because each tenant may point a network at its own RPC node.
 */
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { tenants } from '../../db/schema'

export const lendingRateSamples = sqliteTable('lending_rate_samples', {
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  /** registry id of the network (`sepolia`) */
  network: text('network').notNull(),
  /** the reserve's underlying asset, lower-case */
  asset: text('asset').notNull(),
  /** Unix ms of the slot's start (sampledAt rounded down to the sampling interval) */
  slot: integer('slot').notNull(),
  pool: text('pool').notNull(),
  /** `currentLiquidityRate` in ray, integer text */
  liquidityRate: text('liquidity_rate').notNull(),
  /** Unix ms the rate was read */
  sampledAt: integer('sampled_at').notNull(),
}, (t) => [
  primaryKey({ columns: [t.tenantId, t.network, t.asset, t.slot] }),
])

export const lendingRateFollows = sqliteTable('lending_rate_follows', {
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  network: text('network').notNull(),
  asset: text('asset').notNull(),
  pool: text('pool').notNull(),
  /** Unix ms of the last request that read the reserve: the job stops following it 30 days later */
  lastReadAt: integer('last_read_at').notNull(),
}, (t) => [
  primaryKey({ columns: [t.tenantId, t.network, t.asset] }),
  index('lending_rate_follows_read_idx').on(t.lastReadAt),
])

export type LendingRateSampleRow = typeof lendingRateSamples.$inferSelect
export type LendingRateFollowRow = typeof lendingRateFollows.$inferSelect
