/**
 * Nonces of custodial EVM wallets. The database is the coordination point: a
 * `wallet_nonces` row per (tenant, wallet, network) holds the next nonce and the nonces
 * given back by sends that never reached the chain. Reservation runs inside the caller's
 * write transaction (BEGIN IMMEDIATE: SQLite serialises writers, across processes too),
 * so no two sends get the same nonce. The chain is asked (`pending` count) only outside
 * any transaction: when the row is first made, and to resynchronise after the node
 * answers "nonce too low" or "nonce too high".
 */
import type { Executor, Tx } from '../../db/client'
import type { Deps } from '../../deps'
import { createNonceRow, findNonceRow, setNonceRow } from './repo'

export interface NonceKey {
  tenantId: string
  walletId: string
  network: string
}

/**
 * The nonce row of a deployment key that relays sends (SendPlan.signer: a gasless swap's relayer): one per address
 * and network for the whole deployment, whichever tenant's wallet the send is recorded for.
 */
export const relayerNonceKey = (address: string, network: string): NonceKey => ({ tenantId: 'deployment', walletId: `relayer:${address.toLowerCase()}`, network })

const read = (db: Executor, k: NonceKey) => findNonceRow(db, k.tenantId, k.walletId, k.network)
const save = (tx: Tx, k: NonceKey, set: { nextNonce?: number; freeNonces?: number[] }, now: number) => setNonceRow(tx, k.tenantId, k.walletId, k.network, set, now)

export async function hasNonceRow(db: Executor, k: NonceKey) {
  return !!(await read(db, k))
}

/** Creates the row from the chain's pending count unless another send created it meanwhile. */
export async function initNonceRow(deps: Deps, k: NonceKey, chainPending: number) {
  await deps.database.write((tx) => createNonceRow(tx, k.tenantId, k.walletId, k.network, chainPending, deps.clock.now()))
}

/** The nonce for the next send: the lowest given-back one, else the counter (then incremented). */
export async function reserveNonce(tx: Tx, k: NonceKey, now: number): Promise<number> {
  const row = await read(tx, k)
  if (!row) throw new Error('nonce row missing')
  if (row.freeNonces.length) {
    const [lowest, ...rest] = [...row.freeNonces].sort((a, b) => a - b)
    await save(tx, k, { freeNonces: rest }, now)
    return lowest!
  }
  await save(tx, k, { nextNonce: row.nextNonce + 1 }, now)
  return row.nextNonce
}

/**
 * Gives back a nonce whose transaction never reached the chain. The last one handed out
 * lowers the counter; any other goes to the free list, taken first by the next send so
 * the later transactions already in the mempool are not left behind a gap.
 */
export async function releaseNonce(tx: Tx, k: NonceKey, nonce: number, now: number) {
  const row = await read(tx, k)
  if (!row || nonce >= row.nextNonce) return
  let next = row.nextNonce
  const free = new Set(row.freeNonces)
  free.add(nonce)
  while (free.has(next - 1)) {
    free.delete(next - 1)
    next -= 1
  }
  await save(tx, k, { nextNonce: next, freeNonces: [...free].sort((a, b) => a - b) }, now)
}

/**
 * After the node refused a nonce. Too low: something else used nonces (another tool
 * holding the key, or a lost database): move the counter up to the chain's pending
 * count and drop given-back nonces below it. Too high: the node forgot transactions
 * (a restarted dev node, a dropped pool): restart from its pending count.
 */
export async function resyncNonce(tx: Tx, k: NonceKey, chainPending: number, kind: 'low' | 'high', now: number) {
  const row = await read(tx, k)
  if (!row) return
  const nextNonce = kind === 'low' ? Math.max(row.nextNonce, chainPending) : chainPending
  const freeNonces = row.freeNonces.filter((n) => n >= chainPending && n < nextNonce)
  await save(tx, k, { nextNonce, freeNonces }, now)
}
