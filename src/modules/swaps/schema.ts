/**
 * Swap quotes as answered to a user: what `POST /v1/swap/execute` sends. The aggregator's
 * quote id is the key within one user of one tenant; a quote is kept until `expiresAt`.
 */
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { tenants, users } from '../../db/schema'

export const swapQuotes = sqliteTable('swap_quotes', {
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  /** the aggregator's quote id, answered as `quoteId` */
  id: text('id').notNull(),
  walletId: text('wallet_id').notNull(),
  /** family chain ids */
  fromChain: text('from_chain').notNull(),
  toChain: text('to_chain').notNull(),
  /** the source token's address; null for the native coin */
  fromToken: text('from_token'),
  fromTokenSymbol: text('from_token_symbol').notNull(),
  fromTokenDecimals: integer('from_token_decimals').notNull(),
  toToken: text('to_token').notNull(),
  toTokenSymbol: text('to_token_symbol').notNull(),
  toTokenDecimals: integer('to_token_decimals').notNull(),
  /** smallest unit, integer strings */
  fromAmount: text('from_amount').notNull(),
  toAmount: text('to_amount').notNull(),
  toAmountMin: text('to_amount_min').notNull(),
  /** receiver of the output */
  toAddress: text('to_address').notNull(),
  tool: text('tool').notNull(),
  approvalAddress: text('approval_address'),
  /** the aggregator's transaction: to, data, value (wei, integer text), gasLimit (integer text or null) */
  transaction: text('transaction', { mode: 'json' }).notNull().$type<{ to: string; data: string; value: string; gasLimit: string | null }>(),
  /** Unix ms */
  expiresAt: integer('expires_at').notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [
  primaryKey({ columns: [t.tenantId, t.userId, t.id] }),
  index('swap_quotes_expiry_idx').on(t.expiresAt),
])

export type SwapQuoteRow = typeof swapQuotes.$inferSelect
