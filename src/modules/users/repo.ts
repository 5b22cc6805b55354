/** Users: every function takes the scope (tenant id, or `platform` for admins) first. */
import { and, eq, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { users } from '../../db/schema'

export type UserRow = typeof users.$inferSelect

export const scopeOf = (tenantId: string | null) => tenantId ?? 'platform'
export const usernameKey = (u: string) => u.toLowerCase()
export const emailKey = (e: string) => e.trim().toLowerCase()

export function findByUsername(db: Executor, tenantId: string | null, username: string) {
  return db.select().from(users).where(and(eq(users.scope, scopeOf(tenantId)), eq(users.usernameKey, usernameKey(username)))).get()
}

export function findByEmail(db: Executor, tenantId: string, email: string) {
  return db.select().from(users).where(and(eq(users.scope, tenantId), eq(users.emailKey, emailKey(email)), eq(users.status, 'active'))).get()
}

export function findById(db: Executor, tenantId: string | null, id: string) {
  return db.select().from(users).where(and(eq(users.scope, scopeOf(tenantId)), eq(users.id, id))).get()
}

export async function usernameTaken(db: Executor, tenantId: string | null, username: string) {
  const row = await db.select({ n: sql<number>`1` }).from(users).where(and(eq(users.scope, scopeOf(tenantId)), eq(users.usernameKey, usernameKey(username)))).get()
  return !!row
}

export async function emailTaken(db: Executor, tenantId: string, email: string, exceptUserId?: string) {
  const row = await db.select({ id: users.id }).from(users).where(and(eq(users.scope, tenantId), eq(users.emailKey, emailKey(email)), eq(users.status, 'active'))).get()
  return !!row && row.id !== exceptUserId
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

export async function insertUser(db: Executor, u: NewUser): Promise<UserRow> {
  const row: UserRow = {
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
    passwordChangedAt: u.now,
    createdAt: u.now,
    updatedAt: u.now,
    deletedAt: null,
  }
  await db.insert(users).values(row)
  return row
}

/** True when the error is the unique index on (scope, username) refusing a duplicate. */
export function isUsernameConflict(err: unknown): boolean {
  const text = `${(err as Error)?.message ?? ''} ${((err as { cause?: Error })?.cause)?.message ?? ''}`
  return text.includes('UNIQUE') && text.includes('username')
}
