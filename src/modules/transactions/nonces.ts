/**
 * Nonces of custodial EVM wallets. The database is the coordination point: a
 * `wallet_nonces` row per (tenant, wallet, network) holds the next nonce and the nonces
 * given back by sends that never reached the chain. Reservation runs inside the caller's
 * write transaction (BEGIN IMMEDIATE: SQLite serialises writers, across processes too),
 * so no two sends get the same nonce. The chain is asked (`pending` count) only outside
 * any transaction: when the row is first made, and to resynchronise after the node
 * answers "nonce too low" or "nonce too high".
 */
import { and, eq } from 'drizzle-orm'
import type { Executor, Tx } from '../../db/client'
import type { Deps } from '../../deps'
import { walletNonces } from './schema'

export interface NonceKey {
  tenantId: string
  walletId: string
  network: string
}

const where = (k: NonceKey) => and(eq(walletNonces.tenantId, k.tenantId), eq(walletNonces.walletId, k.walletId), eq(walletNonces.network, k.network))

export async function hasNonceRow(db: Executor, k: NonceKey) {
  return !!(await db.select({ n: walletNonces.nextNonce }).from(walletNonces).where(where(k)).get())
}

/** Creates the row from the chain's pending count unless another send created it meanwhile. */
export async function initNonceRow(deps: Deps, k: NonceKey, chainPending: number) {
  await deps.database.write((tx) => tx.insert(walletNonces)
    .values({ ...k, nextNonce: chainPending, freeNonces: [], updatedAt: deps.clock.now() })
    .onConflictDoNothing())
}

/** The nonce for the next send: the lowest given-back one, else the counter (then incremented). */
export async function reserveNonce(tx: Tx, k: NonceKey, now: number): Promise<number> {
  const row = await tx.select().from(walletNonces).where(where(k)).get()
  if (!row) throw new Error('nonce row missing')
  if (row.freeNonces.length) {
    const [lowest, ...rest] = [...row.freeNonces].sort((a, b) => a - b)
    await tx.update(walletNonces).set({ freeNonces: rest, updatedAt: now }).where(where(k))
    return lowest!
  }
  await tx.update(walletNonces).set({ nextNonce: row.nextNonce + 1, updatedAt: now }).where(where(k))
  return row.nextNonce
}

/**
 * Gives back a nonce whose transaction never reached the chain. The last one handed out
 * lowers the counter; any other goes to the free list, taken first by the next send so
 * the later transactions already in the mempool are not left behind a gap.
 */
export async function releaseNonce(tx: Tx, k: NonceKey, nonce: number, now: number) {
  const row = await tx.select().from(walletNonces).where(where(k)).get()
  if (!row || nonce >= row.nextNonce) return
  let next = row.nextNonce
  const free = new Set(row.freeNonces)
  free.add(nonce)
  while (free.has(next - 1)) {
    free.delete(next - 1)
    next -= 1
  }
  await tx.update(walletNonces).set({ nextNonce: next, freeNonces: [...free].sort((a, b) => a - b), updatedAt: now }).where(where(k))
}

/**
 * After the node refused a nonce. Too low: something else used nonces (another tool
 * holding the key, or a lost database): move the counter up to the chain's pending
 * count and drop given-back nonces below it. Too high: the node forgot transactions
 * (a restarted dev node, a dropped pool): restart from its pending count.
 */
export async function resyncNonce(tx: Tx, k: NonceKey, chainPending: number, kind: 'low' | 'high', now: number) {
  const row = await tx.select().from(walletNonces).where(where(k)).get()
  if (!row) return
  const nextNonce = kind === 'low' ? Math.max(row.nextNonce, chainPending) : chainPending
  const freeNonces = row.freeNonces.filter((n) => n >= chainPending && n < nextNonce)
  await tx.update(walletNonces).set({ nextNonce, freeNonces, updatedAt: now }).where(where(k))
}
