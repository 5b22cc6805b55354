/**
 * Portfolio tables (docs/portfolio.md).
 *
 * - `portfolio_snapshots`: what each mainnet wallet of a tenant user held on a day, as the daily
 *   job read it: one row for the native coin (0 included, so each recorded wallet has its day)
 *   and one per other token held; the amount as an integer string in the token's smallest unit
 *   and the token's price at recording time as decimal text. Never a float.
 * - `portfolio_days`: one row per user and day with the day's total in EUR and USD (decimal text,
 *   2 decimals), written in the same transaction as the day's snapshot rows: the performance
 *   route reads a year of history from it without summing snapshots, and a day whose balances
 *   were all zero still has its point.
 * - `portfolio_prices`: the last price obtained from the provider per coin. Market data, the same
 *   for every tenant, so it carries no tenant: it is what answers when the provider is down.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { tenants, users } from '../../db/schema'

export const portfolioSnapshots = sqliteTable('portfolio_snapshots', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  walletId: text('wallet_id').notNull(),
  /** UTC date of `recordedAt`, `YYYY-MM-DD` */
  day: text('day').notNull(),
  /** Unix ms */
  recordedAt: integer('recorded_at').notNull(),
  /** family chain id of the wallet (mainnet wallets only are recorded) */
  chain: text('chain').notNull(),
  /** the token's contract or mint, or `native` for the chain's coin */
  token: text('token').notNull(),
  symbol: text('symbol').notNull(),
  decimals: integer('decimals').notNull(),
  /** integer string in the token's smallest unit */
  amount: text('amount').notNull(),
  /** the provider's coin id the price is of; null for a token Slipway does not price (a tenant's custom token) */
  coinId: text('coin_id'),
  /** per whole token at recording time, decimal text; null when no price was known */
  priceEur: text('price_eur'),
  priceUsd: text('price_usd'),
  /** when that price was current (Unix ms) */
  priceAsOf: integer('price_as_of'),
  /** true: the wallet's network could not be read that day, and the amount is the wallet's last recorded one */
  carried: integer('carried', { mode: 'boolean' }).notNull(),
}, (t) => [
  uniqueIndex('portfolio_snapshots_uq').on(t.tenantId, t.walletId, t.token, t.day),
  index('portfolio_snapshots_user_day_idx').on(t.tenantId, t.userId, t.day),
])

export const portfolioDays = sqliteTable('portfolio_days', {
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  day: text('day').notNull(),
  recordedAt: integer('recorded_at').notNull(),
  /** decimal text, 2 decimals: the day's snapshot rows valued at their prices */
  totalEur: text('total_eur').notNull(),
  totalUsd: text('total_usd').notNull(),
  /** holdings with a balance left out of the totals for want of a price */
  unpriced: integer('unpriced').notNull(),
  /** wallets whose network could not be read that day: their last recorded balances were carried, when there were any */
  unreadWallets: integer('unread_wallets').notNull(),
}, (t) => [primaryKey({ columns: [t.tenantId, t.userId, t.day] })])

export const portfolioPrices = sqliteTable('portfolio_prices', {
  /** the provider's coin id (CoinGecko's: `ethereum`, `usd-coin`) */
  coinId: text('coin_id').primaryKey(),
  /** per whole coin, decimal text */
  eur: text('eur').notNull(),
  usd: text('usd').notNull(),
  /** when the provider last updated it (Unix ms) */
  asOf: integer('as_of').notNull(),
  /** when Slipway obtained it (Unix ms) */
  fetchedAt: integer('fetched_at').notNull(),
})

export type SnapshotRow = typeof portfolioSnapshots.$inferSelect
export type DayRow = typeof portfolioDays.$inferSelect
export type PriceRow = typeof portfolioPrices.$inferSelect
