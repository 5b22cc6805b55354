/**
 * Swap quotes as answered to a user: what `POST /v1/swap/execute` sends. The aggregator's
 * quote id is the key within one user of one tenant; a quote is kept until `expiresAt`.
 */
import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
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

/**
 * Gasless relays claimed (docs/swaps.md "The relayer's bounds"): one row per attempt to relay a
 * quote's permit, written before any gas is spent. While a row is live (`claimed`, then `sent`
 * once its transaction is recorded, in the same write), the partial unique indexes let no second
 * relay of the same quote, nor of the same permit (token, owner, nonce: whichever tenant or quote
 * carries it), be claimed. `released`: nothing was sent (a failed simulation, a refused send);
 * `failed`: its transaction failed, so the quote and the nonce may be relayed again. The daily
 * budgets sum `gas_cost` of the rows not released.
 */
export const swapRelays = sqliteTable('swap_relays', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  quoteId: text('quote_id').notNull(),
  /** registry id of the network (`gnosis`) */
  network: text('network').notNull(),
  /** the permit's identity: token and owner lower-cased, the EIP-2612 nonce as integer text */
  token: text('token').notNull(),
  owner: text('owner').notNull(),
  permitNonce: text('permit_nonce').notNull(),
  /** what the relay may cost the relayer, wei (its gas limit × max fee per gas), integer text */
  gasCost: text('gas_cost').notNull(),
  status: text('status', { enum: ['claimed', 'sent', 'released', 'failed'] }).notNull(),
  /** the relayed send's record (transactions module), set in the write that records it */
  transactionId: text('transaction_id'),
  /** Unix ms */
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  // Queries that rely on these say `status in ('claimed', 'sent')` as a literal, or SQLite cannot use them.
  uniqueIndex('swap_relays_live_quote_uq').on(t.tenantId, t.userId, t.quoteId).where(sql`status in ('claimed', 'sent')`),
  uniqueIndex('swap_relays_live_permit_uq').on(t.network, t.token, t.owner, t.permitNonce).where(sql`status in ('claimed', 'sent')`),
  index('swap_relays_tenant_day_idx').on(t.tenantId, t.createdAt),
  index('swap_relays_user_day_idx').on(t.tenantId, t.userId, t.createdAt),
])

export type SwapRelayRow = typeof swapRelays.$inferSelect
