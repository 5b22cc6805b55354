/** The refresh_tokens table's only reader and writer. Tokens are found by the hash of the presented value. */
import type { InStatement } from '@libsql/client'
import { and, eq, isNull } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { insertRow, insertRowStatement } from '../../db/insert-row'
import { refreshTokens } from '../../db/schema'

export type RefreshTokenRow = typeof refreshTokens.$inferSelect

const insertTokenRow = insertRow(refreshTokens)
const tokenStatement = insertRowStatement(refreshTokens)

export async function insertRefreshToken(db: Executor, tenantId: string | null, row: Omit<RefreshTokenRow, 'tenantId'>) {
  await insertTokenRow(db, { ...row, tenantId })
}

/** The same insert as a statement of a write batch (`Database.writeBatch`). */
export function refreshTokenStatement(db: Executor, tenantId: string | null, row: Omit<RefreshTokenRow, 'tenantId'>): InStatement {
  return tokenStatement(db, { ...row, tenantId })
}

/** The token with this SHA-256 hash, of any tenant: the hash of 256 random bits is the credential. */
export function findByHash(db: Executor, tokenHash: string) {
  return db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash)).get()
}

export async function markRotated(db: Executor, tenantId: string | null, id: string, now: number) {
  await db.update(refreshTokens).set({ rotatedAt: now }).where(and(tenantIs(tenantId), eq(refreshTokens.id, id)))
}

/** Revokes every live token of one sign-in (reuse detection). */
export async function revokeFamily(db: Executor, tenantId: string | null, familyId: string, now: number) {
  await db.update(refreshTokens).set({ revokedAt: now }).where(and(tenantIs(tenantId), eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
}

/** Revokes every live token of a user. */
export async function revokeUser(db: Executor, tenantId: string | null, userId: string, now: number) {
  await db.update(refreshTokens).set({ revokedAt: now }).where(and(tenantIs(tenantId), eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)))
}

const tenantIs = (tenantId: string | null) => (tenantId === null ? isNull(refreshTokens.tenantId) : eq(refreshTokens.tenantId, tenantId))
