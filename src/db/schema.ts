/**
 * Tables of the platform core. Times are Unix milliseconds (integers); ids are UUID text.
 * Every tenant-owned table carries `tenant_id` and every repo query filters by it.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { sql } from 'drizzle-orm'

/** Process-wide values kept in the database, such as the generated JWT key (sealed). */
export const appMeta = sqliteTable('app_meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
})

export const tenants = sqliteTable('tenants', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  status: text('status', { enum: ['active', 'disabled'] }).notNull().default('active'),
  apiKey: text('api_key').notNull(),
  /** API secret sealed with AES-256-GCM, associated data `tenant:<id>:api_secret`. */
  apiSecretSealed: text('api_secret_sealed').notNull(),
  /** Tenant settings as JSON; secrets inside are sealed (see tenants/settings.ts). */
  settings: text('settings', { mode: 'json' }).notNull().$type<Record<string, unknown>>(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [uniqueIndex('tenants_api_key_uq').on(t.apiKey)])

export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  /** null for platform admins */
  tenantId: text('tenant_id').references(() => tenants.id),
  /** tenant id, or `platform` for admins: makes usernames unique per tenant (NULLs would not collide). */
  scope: text('scope').notNull(),
  username: text('username').notNull(),
  /** lower-cased username; usernames are unique without regard to case */
  usernameKey: text('username_key').notNull(),
  email: text('email'),
  emailKey: text('email_key'),
  displayName: text('display_name'),
  /** argon2id; null for accounts that only sign in with Google or Apple */
  passwordHash: text('password_hash'),
  role: text('role', { enum: ['user', 'tenantadmin', 'admin'] }).notNull(),
  status: text('status', { enum: ['active', 'deleted'] }).notNull().default('active'),
  fcmToken: text('fcm_token'),
  /** language of the user's notifications (`en`, `it`); null reads as `en` (docs/notifications.md) */
  locale: text('locale', { enum: ['en', 'it'] }),
  /** refresh tokens created before this instant are refused */
  passwordChangedAt: integer('password_changed_at').notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  deletedAt: integer('deleted_at'),
}, (t) => [
  uniqueIndex('users_scope_username_uq').on(t.scope, t.usernameKey),
  // One active account per email in a tenant, enforced by the database (a deleted account frees
  // its email; accounts without one do not collide). Queries that look up an active email say
  // `status = 'active'` as a literal (users/repo.ts, activeEmail), or SQLite cannot use this partial index.
  uniqueIndex('users_scope_active_email_uq').on(t.scope, t.emailKey).where(sql`status = 'active'`),
  index('users_tenant_created_idx').on(t.tenantId, t.createdAt),
  // A push token names one device, and a device gets the pushes of one user at a time, across
  // tenants (users/service.ts setFcmToken moves it); the database refuses a second holder.
  // Partial: most users have none, and a new user's insert (registration) then writes no entry here.
  uniqueIndex('users_fcm_token_uq').on(t.fcmToken).where(sql`fcm_token IS NOT NULL`),
])

/** Links a user to an external identity (Google or Apple subject). */
export const userIdentities = sqliteTable('user_identities', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  provider: text('provider', { enum: ['google', 'apple'] }).notNull(),
  subject: text('subject').notNull(),
  email: text('email'),
  createdAt: integer('created_at').notNull(),
}, (t) => [uniqueIndex('user_identities_subject_uq').on(t.tenantId, t.provider, t.subject), index('user_identities_user_idx').on(t.userId)])

export const refreshTokens = sqliteTable('refresh_tokens', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id'),
  userId: text('user_id').notNull().references(() => users.id),
  /** every token descended from one sign-in shares a family; reuse revokes the family */
  familyId: text('family_id').notNull(),
  tokenHash: text('token_hash').notNull(),
  createdAt: integer('created_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
  /** set when the token was exchanged under rotation */
  rotatedAt: integer('rotated_at'),
  revokedAt: integer('revoked_at'),
}, (t) => [uniqueIndex('refresh_tokens_hash_uq').on(t.tokenHash), index('refresh_tokens_family_idx').on(t.familyId)])

/** Accepted tenant signatures, kept for the 300-second window so a replay is refused by every API process. */
export const signatureReplays = sqliteTable('signature_replays', {
  signature: text('signature').primaryKey(),
  tenantId: text('tenant_id').notNull(),
  expiresAt: integer('expires_at').notNull(),
}, (t) => [index('signature_replays_expires_idx').on(t.expiresAt)])

export const activityLog = sqliteTable('activity_log', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  actorId: text('actor_id'),
  actorRole: text('actor_role'),
  action: text('action').notNull(),
  targetType: text('target_type'),
  targetId: text('target_id'),
  /** what changed; never a secret */
  details: text('details', { mode: 'json' }).$type<Record<string, unknown>>(),
  requestId: text('request_id'),
  createdAt: integer('created_at').notNull(),
}, (t) => [index('activity_log_tenant_created_idx').on(t.tenantId, t.createdAt)])

/**
 * `Idempotency-Key` claims (src/http/idempotency.ts), one per user, endpoint and key. The
 * primary key makes one request win across every process sharing the database; a row is
 * `running` while its request runs and `done` with the kept answer after a success.
 */
export const idempotencyKeys = sqliteTable('idempotency_keys', {
  userId: text('user_id').notNull(),
  endpoint: text('endpoint').notNull(),
  key: text('key').notNull(),
  tenantId: text('tenant_id'),
  bodyHash: text('body_hash').notNull(),
  state: text('state', { enum: ['running', 'done'] }).notNull(),
  statusCode: integer('status_code'),
  response: text('response'),
  /**
   * what the request recorded once money may move (`ramp_payout:<id>`, `transaction:<id>`):
   * from then on the key is never released, and a retry answers that record's current state
   */
  resource: text('resource'),
  /** a `running` claim older than this was left by a process that stopped; a `done` one is forgotten */
  expiresAt: integer('expires_at').notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [primaryKey({ columns: [t.userId, t.endpoint, t.key] }), index('idempotency_keys_expires_idx').on(t.expiresAt)])
