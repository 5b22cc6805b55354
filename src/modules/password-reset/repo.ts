/** The password_reset_tokens table's only reader and writer. Only a token's SHA-256 is stored. */
import { and, eq, gt, isNull } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { passwordResetTokens } from './schema'

export type ResetTokenRow = typeof passwordResetTokens.$inferSelect

/** False when a row with this id exists already (a retried job issued it before). */
export async function insertToken(db: Executor, tenantId: string, row: Omit<ResetTokenRow, 'tenantId'>): Promise<boolean> {
  const inserted = await db.insert(passwordResetTokens).values({ ...row, tenantId }).onConflictDoNothing().returning({ id: passwordResetTokens.id })
  return inserted.length === 1
}

/** The token with this hash, of any tenant: the hash of 256 random bits is the credential. */
export function findByHash(db: Executor, tokenHash: string) {
  return db.select().from(passwordResetTokens).where(eq(passwordResetTokens.tokenHash, tokenHash)).get()
}

/** Consumes the token if it is still unused and unexpired; of two concurrent calls one gets true. */
export async function consume(db: Executor, tenantId: string, id: string, now: number): Promise<boolean> {
  const consumed = await db.update(passwordResetTokens).set({ consumedAt: now })
    .where(and(eq(passwordResetTokens.tenantId, tenantId), eq(passwordResetTokens.id, id), isNull(passwordResetTokens.consumedAt), gt(passwordResetTokens.expiresAt, now)))
    .returning({ id: passwordResetTokens.id })
  return consumed.length === 1
}

/** Every unused link of the user stops working. */
export async function consumeAllOfUser(db: Executor, tenantId: string, userId: string, now: number) {
  await db.update(passwordResetTokens).set({ consumedAt: now })
    .where(and(eq(passwordResetTokens.tenantId, tenantId), eq(passwordResetTokens.userId, userId), isNull(passwordResetTokens.consumedAt)))
}
