import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { tenants, users } from '../../db/schema'

/**
 * A user's passkeys (WebAuthn credentials). The credential id is the authenticator's, base64url;
 * it is unique per tenant, so a discoverable sign-in finds its user by it alone. `rpId` is the
 * relying party the credential was made for: the tenant's own domain, or Slipway's when it was
 * registered on the hosted page; an assertion is checked against that one.
 */
export const passkeys = sqliteTable('passkeys', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  credentialId: text('credential_id').notNull(),
  /** COSE public key, base64url */
  publicKey: text('public_key').notNull(),
  /** the authenticator's signature counter as last seen; 0 for authenticators that keep none */
  counter: integer('counter').notNull(),
  /** JSON array of transport hints (`internal`, `hybrid`, `usb`...) */
  transports: text('transports').notNull(),
  deviceType: text('device_type', { enum: ['singleDevice', 'multiDevice'] }).notNull(),
  backedUp: integer('backed_up', { mode: 'boolean' }).notNull(),
  rpId: text('rp_id').notNull(),
  name: text('name').notNull(),
  createdAt: integer('created_at').notNull(),
  lastUsedAt: integer('last_used_at'),
}, (t) => [uniqueIndex('passkeys_credential_uq').on(t.tenantId, t.credentialId), index('passkeys_user_idx').on(t.tenantId, t.userId)])

/**
 * Challenges handed out for a ceremony, kept server-side: single-use (`usedAt` is set by the one
 * verification that wins) and short-lived. A used row stays until it expires, so a replayed
 * assertion is told apart from an unknown challenge. What the ceremony is for is bound here:
 * the relying party, the origins, the user (when known) and, for an approval, the operation.
 */
export const passkeyChallenges = sqliteTable('passkey_challenges', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id'),
  purpose: text('purpose', { enum: ['register', 'signin', 'approve'] }).notNull(),
  challenge: text('challenge').notNull(),
  rpId: text('rp_id').notNull(),
  /** JSON array of the origins allowed for this ceremony */
  origins: text('origins').notNull(),
  /** JSON: an approval's binding `{ operation, method, path, bodyHash }`, or a hosted session's id `{ hostedSessionId }` */
  binding: text('binding'),
  createdAt: integer('created_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
}, (t) => [uniqueIndex('passkey_challenges_challenge_uq').on(t.challenge), index('passkey_challenges_expiry_idx').on(t.expiresAt)])

/**
 * Single-use bearer values the passkey flows issue: a step-up approval, a hosted page's session,
 * the hosted page's one-time code. Only the SHA-256 of each is stored.
 */
export const passkeyGrants = sqliteTable('passkey_grants', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id'),
  kind: text('kind', { enum: ['approval', 'hosted_session', 'hosted_code'] }).notNull(),
  tokenHash: text('token_hash').notNull(),
  /** JSON: an approval's binding, or a hosted session's `{ mode, returnUrl, state }` */
  data: text('data').notNull(),
  createdAt: integer('created_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
}, (t) => [uniqueIndex('passkey_grants_token_uq').on(t.tokenHash), index('passkey_grants_expiry_idx').on(t.expiresAt)])
