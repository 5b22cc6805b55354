/**
 * Wallet tables. A custodial wallet's private key is kept as two sealed values: a
 * per-wallet data key wrapped by MASTER_KEY, and the key itself encrypted under that
 * data key with the tenant, wallet and address as associated data (see keys.ts).
 */
import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { tenants, users } from '../../db/schema'

export const KEY_SCHEMES = ['aes_single', 'sss_2of2_akv', 'client_side', 'client_side_pending', 'mpc_tss'] as const
export type KeyScheme = (typeof KEY_SCHEMES)[number]

export const wallets = sqliteTable('wallets', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  /** family chain id (`ethereum`, `solana`) */
  chain: text('chain').notNull(),
  isTestnet: integer('is_testnet', { mode: 'boolean' }).notNull(),
  /** as shown: EIP-55 checksummed (EVM) or base58 (Solana) */
  address: text('address').notNull(),
  /** for lookups: lower-case for EVM, unchanged for Solana (base58 is case-sensitive) */
  addressKey: text('address_key').notNull(),
  label: text('label'),
  /** `managed` (created here), `imported`, `client` (registered non-custodial address) */
  walletType: text('wallet_type', { enum: ['managed', 'imported', 'client'] }).notNull(),
  keyManagementScheme: text('key_management_scheme', { enum: KEY_SCHEMES }).notNull(),
  isPrimary: integer('is_primary', { mode: 'boolean' }).notNull(),
  isWatchOnly: integer('is_watch_only', { mode: 'boolean' }).notNull(),
  /** data key sealed by MASTER_KEY (`v<version>.iv.ct`); null once the key left our custody */
  dataKeyWrapped: text('data_key_wrapped'),
  /** private key sealed by the data key */
  keySealed: text('key_sealed'),
  /** MASTER_KEY version that wrapped the data key, for rotation */
  keyVersion: integer('key_version'),
  /** device the key is being handed to during a migration to client custody */
  migrationDeviceId: text('migration_device_id'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  deletedAt: integer('deleted_at'),
}, (t) => [
  index('wallets_user_idx').on(t.tenantId, t.userId, t.createdAt),
  index('wallets_address_idx').on(t.tenantId, t.addressKey),
  // At most one primary wallet per user, chain and network type, whatever the callers do.
  uniqueIndex('wallets_primary_uq').on(t.tenantId, t.userId, t.chain, t.isTestnet).where(sql`is_primary = 1 and deleted_at is null`),
  // One live wallet per address, chain and network in a tenant.
  uniqueIndex('wallets_address_uq').on(t.tenantId, t.chain, t.isTestnet, t.addressKey).where(sql`deleted_at is null`),
])

/** Single-use challenges: non-custodial registration and custody migration. */
export const walletChallenges = sqliteTable('wallet_challenges', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  purpose: text('purpose', { enum: ['client_register', 'migration'] }).notNull(),
  chain: text('chain').notNull(),
  isTestnet: integer('is_testnet', { mode: 'boolean' }).notNull(),
  addressKey: text('address_key').notNull(),
  walletId: text('wallet_id'),
  message: text('message').notNull(),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
  createdAt: integer('created_at').notNull(),
}, (t) => [index('wallet_challenges_user_idx').on(t.tenantId, t.userId)])

/** Short-lived single-use tokens for key export; only the SHA-256 of the token is kept. */
export const walletExportTokens = sqliteTable('wallet_export_tokens', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  walletId: text('wallet_id').notNull(),
  tokenHash: text('token_hash').notNull(),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
  createdAt: integer('created_at').notNull(),
}, (t) => [uniqueIndex('wallet_export_tokens_hash_uq').on(t.tokenHash)])

/** A user's device, known by its X25519 public key: keys handed over in a migration are encrypted to it. */
export const walletDevices = sqliteTable('wallet_devices', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  name: text('name'),
  /** X25519 public key, base64 */
  publicKey: text('public_key').notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [index('wallet_devices_user_idx').on(t.tenantId, t.userId)])

export type WalletRow = typeof wallets.$inferSelect
