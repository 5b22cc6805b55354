/**
 * Gas sponsorship: each tenant's gas policy per network, and every sponsorship the paymaster
 * signed (what it may cost, then what it cost), which the limits are counted from. Amounts are
 * wei as integer strings, and USD as exact decimal strings.
 */
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { tenants } from '../../db/schema'

export const GAS_OPERATION_KINDS = ['send', 'swap', 'lending', 'payout', 'agent', 'dapp'] as const
export type GasOperationKind = (typeof GAS_OPERATION_KINDS)[number]

export interface AllowedCall {
  /** a contract address (lower case) */
  contract: string
  /** 4-byte selectors (0x and 8 hex, lower case); empty: any */
  selectors: string[]
}

export const gasPolicies = sqliteTable('gas_policies', {
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  /** registry id of the network */
  network: text('network').notNull(),
  enabled: integer('enabled', { mode: 'boolean' }).notNull(),
  /** null: no limit */
  userDailyLimitWei: text('user_daily_limit_wei'),
  tenantMonthlyBudgetWei: text('tenant_monthly_budget_wei'),
  maxPerOperationWei: text('max_per_operation_wei'),
  /** the same limits in USD (exact decimal strings), at the price adapter's rate when each operation is sponsored; null: no limit */
  userDailyLimitUsd: text('user_daily_limit_usd'),
  tenantMonthlyBudgetUsd: text('tenant_monthly_budget_usd'),
  maxPerOperationUsd: text('max_per_operation_usd'),
  operations: text('operations', { mode: 'json' }).notNull().$type<GasOperationKind[]>(),
  /** dApp calls: the contracts and selectors sponsored */
  allowlist: text('allowlist', { mode: 'json' }).notNull().$type<AllowedCall[]>(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [primaryKey({ columns: [t.tenantId, t.network] })])

export const SPONSORSHIP_STATUSES = ['reserved', 'settled', 'released'] as const

/**
 * One operation the paymaster signed for. `reserved` counts its `maxCostWei` against the limits
 * until its outcome is known: `settled` counts `actualCostWei`, `released` (never executed) nothing.
 */
export const gasSponsorships = sqliteTable('gas_sponsorships', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull(),
  network: text('network').notNull(),
  sender: text('sender').notNull(),
  kind: text('kind', { enum: GAS_OPERATION_KINDS }).notNull(),
  /** `custodial` (Slipway sent it) or `erc7677` (the app's own bundler client) */
  source: text('source', { enum: ['custodial', 'erc7677'] }).notNull(),
  userOpHash: text('user_op_hash'),
  /** the EntryPoint nonce (decimal) */
  nonce: text('nonce').notNull(),
  maxCostWei: text('max_cost_wei').notNull(),
  actualCostWei: text('actual_cost_wei'),
  /** USD per whole native coin (exact decimal string) at the time it was sponsored, the price adapter's; null: no price then */
  usdRate: text('usd_rate'),
  /** when that price was current (Unix ms) */
  usdRateAsOf: integer('usd_rate_as_of'),
  /** the costs above in USD at `usdRate` (exact decimal strings, rounded up); null without a rate */
  maxCostUsd: text('max_cost_usd'),
  actualCostUsd: text('actual_cost_usd'),
  status: text('status', { enum: SPONSORSHIP_STATUSES }).notNull(),
  /** UTC `YYYY-MM-DD` and `YYYY-MM` of the signature: the day and month it counts in */
  day: text('day').notNull(),
  month: text('month').notNull(),
  /** the paymaster signature's end (Unix s): a reservation never seen on chain by then is released */
  validUntil: integer('valid_until').notNull(),
  transactionId: text('transaction_id'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  index('gas_sponsorships_user_day_idx').on(t.tenantId, t.userId, t.network, t.day),
  index('gas_sponsorships_month_idx').on(t.tenantId, t.network, t.month),
  index('gas_sponsorships_status_idx').on(t.status, t.validUntil),
])

/**
 * Running totals the limits are checked against, changed in the write that reserves, settles or
 * releases a sponsorship: `scope` is `tenant` or `user:<id>`, `period` a UTC day (`YYYY-MM-DD`)
 * or month (`YYYY-MM`). A reserved operation counts its maximum, a settled one what it cost.
 */
export const gasUsageCounters = sqliteTable('gas_usage_counters', {
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  network: text('network').notNull(),
  scope: text('scope').notNull(),
  period: text('period').notNull(),
  totalWei: text('total_wei').notNull(),
  /** the same in USD (exact decimal string), each operation at the rate recorded with it; one sponsored without a rate counts 0 */
  totalUsd: text('total_usd').notNull().default('0'),
  operations: integer('operations').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [primaryKey({ columns: [t.tenantId, t.network, t.scope, t.period] })])

export type GasPolicyRow = typeof gasPolicies.$inferSelect
export type SponsorshipRow = typeof gasSponsorships.$inferSelect

/**
 * The key each network's paymaster trusts (the deployment's, not a tenant's): sealed under
 * MASTER_KEY with the network as associated data, never in clear. Written by
 * `slipway paymaster signer`, or imported from PAYMASTER_SIGNER_PRIVATE_KEY on first use.
 */
export const paymasterSigners = sqliteTable('paymaster_signers', {
  /** registry id of the network */
  network: text('network').primaryKey(),
  /** the signer's address (lower case), what the paymaster contract's `signer` must be */
  address: text('address').notNull(),
  keySealed: text('key_sealed').notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
})

export type PaymasterSignerRow = typeof paymasterSigners.$inferSelect
