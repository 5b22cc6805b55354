/**
 * AP2-style mandates (routes 32-36): an agent's standing authorization to pay, within
 * constraints (`intent`) or for one cart (`cart`). Only ./mandate-repo.ts reads and writes it.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { tenants } from '../../db/schema'

export const MANDATE_TYPES = ['intent', 'cart'] as const
export type MandateType = (typeof MANDATE_TYPES)[number]
/** `pending_authorization → active | rejected | expired`; `active → consumed | exhausted | revoked | expired` */
export const MANDATE_STATUSES = ['pending_authorization', 'active', 'rejected', 'expired', 'consumed', 'exhausted', 'revoked'] as const
export type MandateStatus = (typeof MANDATE_STATUSES)[number]
export const RECURRENCE_FREQUENCIES = ['daily', 'weekly', 'monthly'] as const
export type RecurrenceFrequency = (typeof RECURRENCE_FREQUENCIES)[number]

export interface MandateConstraints {
  /** decimal strings in `currency` */
  maxAmount: string
  currency: string
  budget?: string
  merchantIds?: string[]
  categories?: string[]
  recurrence?: { frequency: RecurrenceFrequency; maxOccurrences: number }
  /** ISO date-times */
  notBefore?: string
  notAfter?: string
}
export interface CartItem { name: string; quantity: number; unitPrice: string }
export interface MandateCart { items: CartItem[]; total: string; currency: string; merchantId: string }

export const apMandates = sqliteTable('ap_mandates', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  type: text('type', { enum: MANDATE_TYPES }).notNull(),
  agentId: text('agent_id').notNull(),
  /** shoppers are not built yet: always null */
  shopperId: text('shopper_id'),
  /** the agent's environment: where the mandate's webhook events go */
  environment: text('environment', { enum: ['production', 'sandbox'] }).notNull(),
  status: text('status', { enum: MANDATE_STATUSES }).notNull(),
  constraints: text('constraints', { mode: 'json' }).$type<MandateConstraints>().notNull(),
  cart: text('cart', { mode: 'json' }).$type<MandateCart | null>(),
  description: text('description'),
  humanPresent: integer('human_present', { mode: 'boolean' }).notNull(),
  expiresAt: integer('expires_at').notNull(),
  /** who authorized it (a user id), when, and the SHA-256 of the content authorized */
  authorizedBy: text('authorized_by'),
  authorizedAt: integer('authorized_at'),
  authorizationHash: text('authorization_hash'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  /** when it left `pending_authorization`/`active` for a final state */
  endedAt: integer('ended_at'),
}, (t) => [
  index('ap_mandates_tenant_idx').on(t.tenantId, t.createdAt),
  index('ap_mandates_agent_idx').on(t.tenantId, t.agentId, t.status),
])

export type MandateRow = typeof apMandates.$inferSelect
