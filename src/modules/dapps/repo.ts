/** The only file that reads or writes `dapp_nonces`. Every function takes the tenant after the executor and filters by it. */
import { and, eq, gt, isNull, lt } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { dappNonces, type DappNonceRow } from './schema'

export type { DappNonceRow }

export async function insertNonce(db: Executor, row: DappNonceRow) {
  await db.insert(dappNonces).values(row)
}

/** Housekeeping run when a nonce is issued: forgets the tenant's nonces that expired before `now` (spent or not), by the expiry index. */
export async function dropExpiredNonces(db: Executor, tenantId: string, now: number) {
  await db.delete(dappNonces).where(and(eq(dappNonces.tenantId, tenantId), lt(dappNonces.expiresAt, now)))
}

/** The user's nonce with this hash, spent or not; another user's answers undefined. */
export function findUserNonce(db: Executor, tenantId: string, userId: string, nonceHash: string) {
  return db.select().from(dappNonces)
    .where(and(eq(dappNonces.tenantId, tenantId), eq(dappNonces.userId, userId), eq(dappNonces.nonceHash, nonceHash)))
    .get()
}

/**
 * Spends the user's nonce: one conditional UPDATE (unused and unexpired at `now`), so of two
 * requests racing with one nonce exactly one changes the row. True when this call spent it.
 */
export async function spendNonce(db: Executor, tenantId: string, userId: string, nonceHash: string, now: number): Promise<boolean> {
  const changed = await db.update(dappNonces).set({ usedAt: now })
    .where(and(
      eq(dappNonces.tenantId, tenantId), eq(dappNonces.userId, userId), eq(dappNonces.nonceHash, nonceHash),
      isNull(dappNonces.usedAt), gt(dappNonces.expiresAt, now),
    ))
    .returning({ id: dappNonces.id })
  return changed.length > 0
}
