/**
 * Nonces handed to dApp sign-in flows (`GET /v1/dapps/nonce`): single use, bound to the
 * tenant user who asked, valid 10 minutes. Only the SHA-256 of the nonce is kept, so a
 * copy of the table gives nobody a nonce to spend. One is spent by
 * `POST /v1/dapps/sign-personal-message` when its `nonce` field names it (docs/dapps.md).
 */
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { tenants, users } from '../../db/schema'

export const dappNonces = sqliteTable('dapp_nonces', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  /** lower-case hex SHA-256 of the nonce as answered */
  nonceHash: text('nonce_hash').notNull(),
  /** Unix ms */
  expiresAt: integer('expires_at').notNull(),
  /** when a signature spent it (Unix ms); null while unused */
  usedAt: integer('used_at'),
  createdAt: integer('created_at').notNull(),
}, (t) => [
  uniqueIndex('dapp_nonces_hash_uq').on(t.tenantId, t.nonceHash),
  // housekeeping: a tenant's expired nonces, by expiry
  index('dapp_nonces_expiry_idx').on(t.tenantId, t.expiresAt),
])

export type DappNonceRow = typeof dappNonces.$inferSelect
