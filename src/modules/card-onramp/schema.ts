/**
 * Card onramp sessions (docs/card-onramp.md): one per session opened with the provider, for a
 * user's wallet or for a tenant's own wallet address on behalf of an end user (`externalId`).
 * The provider's client secret is never stored.
 */
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { tenants } from '../../db/schema'

export const CARD_STATUSES = ['initialized', 'failed', 'rejected', 'fulfillment_processing', 'fulfillment_complete'] as const
export type CardStatus = (typeof CARD_STATUSES)[number]

export interface CardAmounts {
  sourceAmount: string | null
  sourceCurrency: string | null
  destinationAmount: string | null
  destinationCurrency: string | null
  networkFee: string | null
  transactionFee: string | null
}

export const cardOnrampSessions = sqliteTable('card_onramp_sessions', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  environment: text('environment', { enum: ['sandbox', 'production'] }).notNull(),
  /** the user whose wallet receives; null for a session opened for the tenant's own wallet */
  userId: text('user_id'),
  /** the tenant's end user (tenant-signed sessions); null for a user's session */
  externalId: text('external_id'),
  walletId: text('wallet_id'),
  address: text('address').notNull(),
  /** family chain id and the provider's network name */
  chain: text('chain').notNull(),
  destinationNetwork: text('destination_network').notNull(),
  destinationCurrency: text('destination_currency').notNull(),
  sourceCurrency: text('source_currency'),
  /** decimal text as asked, or null */
  requestedSourceAmount: text('requested_source_amount'),
  requestedDestinationAmount: text('requested_destination_amount'),
  status: text('status', { enum: CARD_STATUSES }).notNull(),
  providerStatus: text('provider_status').notNull(),
  providerSessionId: text('provider_session_id').notNull(),
  amounts: text('amounts', { mode: 'json' }).$type<CardAmounts>(),
  /** the provider's crypto transaction (its hash on the destination chain) */
  transactionId: text('transaction_id'),
  failureCode: text('failure_code'),
  /** the last provider event applied: its `created` (ms) and id, so stale and repeated events change nothing */
  providerEventAt: integer('provider_event_at'),
  providerEventId: text('provider_event_id'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  uniqueIndex('card_onramp_provider_uq').on(t.tenantId, t.environment, t.providerSessionId),
  index('card_onramp_user_idx').on(t.tenantId, t.userId, t.createdAt),
  index('card_onramp_external_idx').on(t.tenantId, t.externalId, t.createdAt),
])

export type CardSessionRow = typeof cardOnrampSessions.$inferSelect
