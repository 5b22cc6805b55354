/**
 * MPC tables (docs/mpc.md). A relay session is one run of DKLs23 (key generation or one
 * signature) between named parties; its messages are opaque protocol bytes the relay
 * stores and hands on in order. The service party's key share is the only share Slipway
 * ever holds, sealed under MASTER_KEY with the tenant and DKG session as associated data.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { tenants, users } from '../../db/schema'

export const MPC_SESSION_KINDS = ['dkg', 'sign'] as const
export const MPC_SESSION_STATUSES = ['open', 'completed', 'failed'] as const

export const mpcSessions = sqliteTable('mpc_sessions', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  kind: text('kind', { enum: MPC_SESSION_KINDS }).notNull(),
  /** family chain id and network of the wallet made (DKG) or signed for */
  chain: text('chain').notNull(),
  isTestnet: integer('is_testnet', { mode: 'boolean' }).notNull(),
  /** party ids taking part, ascending: [0, 1, 2] for DKG, two of them for a signature */
  parties: text('parties', { mode: 'json' }).notNull().$type<number[]>(),
  /** signing: the wallet, the prepared transaction and the hash signed (0x hex) */
  walletId: text('wallet_id'),
  preparedId: text('prepared_id'),
  transactionId: text('transaction_id'),
  messageHash: text('message_hash'),
  status: text('status', { enum: MPC_SESSION_STATUSES }).notNull(),
  /** DKG: the joint public key every party reported (compressed, 0x hex); signing: the broadcast's hash */
  publicKey: text('public_key'),
  txHash: text('tx_hash'),
  failureReason: text('failure_reason'),
  /** DKG: the wallet registered from it (once) */
  registeredWalletId: text('registered_wallet_id'),
  expiresAt: integer('expires_at').notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  index('mpc_sessions_user_idx').on(t.tenantId, t.userId, t.createdAt),
  index('mpc_sessions_expiry_idx').on(t.expiresAt),
])

export const mpcSessionParties = sqliteTable('mpc_session_parties', {
  sessionId: text('session_id').notNull().references(() => mpcSessions.id, { onDelete: 'cascade' }),
  partyId: integer('party_id').notNull(),
  tenantId: text('tenant_id').notNull(),
  joinedAt: integer('joined_at').notNull(),
}, (t) => [primaryKey({ columns: [t.sessionId, t.partyId] })])

/** `toParty` -1: broadcast to every other party of the session. `seq` orders the inbox. */
export const mpcMessages = sqliteTable('mpc_messages', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  sessionId: text('session_id').notNull().references(() => mpcSessions.id, { onDelete: 'cascade' }),
  tenantId: text('tenant_id').notNull(),
  fromParty: integer('from_party').notNull(),
  toParty: integer('to_party').notNull(),
  round: integer('round').notNull(),
  /** base64 */
  payload: text('payload').notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [
  // a message is sent once: the same sender, receiver and round again is a replay
  uniqueIndex('mpc_messages_once_uq').on(t.sessionId, t.round, t.fromParty, t.toParty),
  index('mpc_messages_session_idx').on(t.sessionId, t.seq),
])

export const mpcResults = sqliteTable('mpc_results', {
  sessionId: text('session_id').notNull().references(() => mpcSessions.id, { onDelete: 'cascade' }),
  partyId: integer('party_id').notNull(),
  tenantId: text('tenant_id').notNull(),
  /** DKG: the joint public key this party computed (compressed, 0x hex) */
  publicKey: text('public_key'),
  /** signing: r and s (0x hex, 32 bytes each) */
  signatureR: text('signature_r'),
  signatureS: text('signature_s'),
  createdAt: integer('created_at').notNull(),
}, (t) => [primaryKey({ columns: [t.sessionId, t.partyId] })])

/** The service party's key share of a DKG session, sealed; bound to the wallet registered from it. */
export const mpcServiceShares = sqliteTable('mpc_service_shares', {
  sessionId: text('session_id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull(),
  walletId: text('wallet_id'),
  publicKey: text('public_key').notNull(),
  /** the share's bytes, sealed: `v<version>.iv.ct`, AAD `mpc_share:<tenant>:<session>` */
  shareSealed: text('share_sealed').notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [
  index('mpc_service_shares_wallet_idx').on(t.tenantId, t.walletId),
])

export type MpcSessionRow = typeof mpcSessions.$inferSelect
export type MpcMessageRow = typeof mpcMessages.$inferSelect
export type MpcResultRow = typeof mpcResults.$inferSelect
export type MpcServiceShareRow = typeof mpcServiceShares.$inferSelect
