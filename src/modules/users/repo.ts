/** The users table's only reader and writer: every function takes the scope (tenant id, or `platform` for admins) first. */
import type { InStatement } from '@libsql/client'
import { and, asc, eq, gte, lt, ne, or, sql, type SQL } from 'drizzle-orm'
import { uniqueViolation, type Database, type Db, type Executor } from '../../db/client'
import { nativeGetOnce } from '../../db/native-read'
import { insertRow, insertRowStatement } from '../../db/insert-row'
import { preparedOnce } from '../../db/prepared'
import { users } from '../../db/schema'

export type UserRow = typeof users.$inferSelect

export const scopeOf = (tenantId: string | null) => tenantId ?? 'platform'
export const usernameKey = (u: string) => u.toLowerCase()
export const emailKey = (e: string) => e.trim().toLowerCase()

export function findByUsername(db: Executor, tenantId: string | null, username: string) {
  return db.select().from(users).where(and(eq(users.scope, scopeOf(tenantId)), eq(users.usernameKey, usernameKey(username)))).get()
}

/**
 * `status = 'active'` written as a literal, not a bound value: the unique index on an active
 * account's email (users_scope_active_email_uq) is partial, and SQLite uses a partial index only
 * for a query that states its condition as written.
 */
const isActive = () => sql`${users.status} = 'active'`

export function findByEmail(db: Executor, tenantId: string, email: string) {
  return db.select().from(users).where(and(eq(users.scope, tenantId), eq(users.emailKey, emailKey(email)), isActive())).get()
}

/** Whether any platform admin exists (admins live in the platform scope). */
export async function anyAdmin(db: Executor): Promise<boolean> {
  return !!(await db.select({ id: users.id }).from(users).where(and(eq(users.scope, scopeOf(null)), eq(users.role, 'admin'))).get())
}

export function findById(db: Executor, tenantId: string | null, id: string) {
  return db.select().from(users).where(and(eq(users.scope, scopeOf(tenantId)), eq(users.id, id))).get()
}

export async function usernameTaken(db: Executor, tenantId: string | null, username: string) {
  const row = await db.select({ n: sql<number>`1` }).from(users).where(and(eq(users.scope, scopeOf(tenantId)), eq(users.usernameKey, usernameKey(username)))).get()
  return !!row
}

export async function emailTaken(db: Executor, tenantId: string, email: string, exceptUserId?: string) {
  const row = await db.select({ id: users.id }).from(users).where(and(eq(users.scope, tenantId), eq(users.emailKey, emailKey(email)), isActive())).get()
  return !!row && row.id !== exceptUserId
}

/**
 * Registration's check before it hashes: whether the username (of any account) or the
 * email (of an active account) is taken in the tenant. One statement doing both index
 * lookups (written as two scoped terms so SQLite searches both indexes, not the tenant's
 * rows); prepared once per connection. On a local file, two native reads on the reader
 * connection instead (native-read.ts: the last committed state, as the credential reads):
 * through drizzle and @libsql/client the one statement was about 8% of a registration's
 * JavaScript thread under load, mostly the client's result set and drizzle's row mapping
 * around the native reads (docs/benchmarks.md, "Signed registration").
 */
const namesTakenQuery = preparedOnce('users:names-taken', (db) => {
  const scope = sql.placeholder('scope')
  return db
    .select({ usernameKey: users.usernameKey, emailKey: users.emailKey, status: users.status })
    .from(users)
    .where(or(
      and(eq(users.scope, scope), eq(users.usernameKey, sql.placeholder('usernameKey'))),
      and(eq(users.scope, scope), eq(users.emailKey, sql.placeholder('emailKey')), isActive()),
    ))
    .prepare()
})
// the same two lookups for the native reader, each answered from its unique index alone (one row at most, the key it holds;
// placeholders in order: scope, key)
const unreachable = () => Promise.reject(new Error('users: names taken read natively only where the native reader is'))
const usernameKeyRead = nativeGetOnce<{ key: string }, Database>('users:username-key', (db: Db) => db.select({ key: users.usernameKey }).from(users)
  .where(and(eq(users.scope, sql.placeholder('scope')), eq(users.usernameKey, sql.placeholder('usernameKey')))), unreachable)
const activeEmailKeyRead = nativeGetOnce<{ key: string }, Database>('users:active-email-key', (db: Db) => db.select({ key: users.emailKey }).from(users)
  .where(and(eq(users.scope, sql.placeholder('scope')), eq(users.emailKey, sql.placeholder('emailKey')), isActive())), unreachable)

export async function namesTaken(database: Database, tenantId: string, username: string, email: string) {
  const keys = { scope: tenantId, usernameKey: usernameKey(username), emailKey: emailKey(email) }
  // a replica's reader has rules of its own (a row not pulled yet is asked of the primary): the one statement there
  if (database.reader && !database.replicaReads) {
    return {
      username: (await usernameKeyRead(database, keys.scope, keys.usernameKey)) !== undefined,
      email: (await activeEmailKeyRead(database, keys.scope, keys.emailKey)) !== undefined,
    }
  }
  const rows = await namesTakenQuery(database).all(keys)
  return {
    username: rows.some((r) => r.usernameKey === keys.usernameKey),
    email: rows.some((r) => r.emailKey === keys.emailKey && r.status === 'active'),
  }
}

export interface NewUser {
  id: string
  tenantId: string | null
  username: string
  email: string | null
  passwordHash: string | null
  role: 'user' | 'tenantadmin' | 'admin'
  displayName?: string | null
  now: number
}

const insertUserRow = insertRow(users)
const userStatement = insertRowStatement(users)

export async function insertUser(db: Executor, u: NewUser): Promise<UserRow> {
  const row = userRow(u)
  await insertUserRow(db, row)
  return row
}

/** The same insert as a statement of a write batch (`Database.writeBatch`): the unique indexes refuse a taken username or email. */
export function insertUserStatement(db: Executor, u: NewUser): { row: UserRow; statement: InStatement } {
  const row = userRow(u)
  return { row, statement: userStatement(db, row) }
}

function userRow(u: NewUser): UserRow {
  return {
    id: u.id,
    tenantId: u.tenantId,
    scope: scopeOf(u.tenantId),
    username: u.username,
    usernameKey: usernameKey(u.username),
    email: u.email,
    emailKey: u.email ? emailKey(u.email) : null,
    displayName: u.displayName ?? null,
    passwordHash: u.passwordHash,
    role: u.role,
    status: 'active',
    fcmToken: null,
    locale: null,
    passwordChangedAt: u.now,
    createdAt: u.now,
    updatedAt: u.now,
    deletedAt: null,
  }
}

/** True when the error is the unique index on (scope, username) refusing a duplicate. */
export const isUsernameConflict = (err: unknown) => uniqueViolation(err).includes('users.username_key')

/** True when the error is the unique index on an active account's (scope, email) refusing a duplicate. */
export const isEmailConflict = (err: unknown) => uniqueViolation(err).includes('users.email_key')

/** The columns `userView` reads: lists select only these (never password hashes or push tokens). */
export const profileColumns = {
  id: users.id, tenantId: users.tenantId, username: users.username, email: users.email, displayName: users.displayName,
  role: users.role, status: users.status, createdAt: users.createdAt, updatedAt: users.updatedAt,
}

/** Prefix match as a range on the indexed key: literal (no LIKE wildcards) and index-friendly. */
const startsWith = (q: string) => and(gte(users.usernameKey, q.toLowerCase()), lt(users.usernameKey, `${q.toLowerCase()}\uffff`))

async function profilePage(db: Executor, where: SQL | undefined, order: SQL[], limit: number, offset: number) {
  const [rows, [count]] = await Promise.all([
    db.select(profileColumns).from(users).where(where).orderBy(...order).limit(limit).offset(offset),
    db.select({ n: sql<number>`count(*)` }).from(users).where(where),
  ])
  return { rows, total: Number(count?.n ?? 0) }
}

/** A tenant's active users, oldest first. */
export function listActive(db: Executor, tenantId: string, limit: number, offset: number) {
  return profilePage(db, and(eq(users.scope, tenantId), eq(users.status, 'active')), [asc(users.createdAt), asc(users.id)], limit, offset)
}

/** Active users whose username starts with `q`, whose id is `q`, or whose id is among `ids`. */
export function searchActive(db: Executor, tenantId: string, q: string, ids: string[], limit: number, offset: number) {
  const matches = [startsWith(q), eq(users.id, q)]
  if (ids.length) matches.push(sql`${users.id} in ${ids}`)
  return profilePage(db, and(eq(users.scope, tenantId), eq(users.status, 'active'), or(...matches)), [asc(users.usernameKey)], limit, offset)
}

/** Id, username and display name of active users whose username starts with `q`. */
export function findByUsernamePrefix(db: Executor, tenantId: string, q: string, limit: number) {
  return db
    .select({ id: users.id, username: users.username, displayName: users.displayName })
    .from(users)
    .where(and(eq(users.scope, tenantId), eq(users.status, 'active'), startsWith(q)))
    .orderBy(asc(users.usernameKey))
    .limit(limit)
}

export type UserChanges = Partial<Pick<
  UserRow,
  'username' | 'usernameKey' | 'email' | 'emailKey' | 'displayName' | 'passwordHash' | 'passwordChangedAt'
  | 'status' | 'deletedAt' | 'fcmToken' | 'locale' | 'updatedAt'
>>

export async function updateUser(db: Executor, tenantId: string | null, id: string, set: UserChanges) {
  await db.update(users).set(set).where(and(eq(users.scope, scopeOf(tenantId)), eq(users.id, id)))
}

/**
 * Forgets the user's push token, only while it is still `token`: the device may have
 * registered a new one since the push that found this one unregistered was sent.
 */
export async function dropFcmToken(db: Executor, tenantId: string, id: string, token: string, now: number): Promise<boolean> {
  const changed = await db.update(users).set({ fcmToken: null, updatedAt: now })
    .where(and(eq(users.scope, tenantId), eq(users.id, id), eq(users.fcmToken, token)))
    .returning({ id: users.id })
  return changed.length === 1
}

/**
 * Takes the push token `token` from every user but `keeperId`, in every tenant: the one query
 * here not scoped to a tenant, on purpose. A token names one device, and the device belongs to
 * whoever registered it last (a phone signed out of one tenant's app into another's, or handed
 * on): the earlier holder must stop getting pushes meant for the device's new user.
 */
export async function releaseFcmToken(db: Executor, token: string, keeperId: string, now: number) {
  await db.update(users).set({ fcmToken: null, updatedAt: now }).where(and(eq(users.fcmToken, token), ne(users.id, keeperId)))
}

/** A new password for an active user; false when the user is gone or no longer active. */
export async function setPasswordIfActive(db: Executor, tenantId: string, id: string, passwordHash: string, now: number): Promise<boolean> {
  const changed = await db.update(users).set({ passwordHash, passwordChangedAt: now, updatedAt: now })
    .where(and(eq(users.scope, tenantId), eq(users.id, id), eq(users.status, 'active')))
    .returning({ id: users.id })
  return changed.length === 1
}
