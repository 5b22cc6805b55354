/**
 * A signing session's end: a party reports R and S; Slipway checks that they sign the
 * session's hash for the wallet's key, and then broadcasts the prepared transaction with
 * that signature through the transactions module, exactly as a client's broadcast. The
 * prepared transaction is consumed once, so when both parties report, one broadcast goes
 * out and the other report reads its hash.
 */
import { recoverAddress, type Hex } from 'viem'
import type { Deps } from '../../deps'
import { AppError, BadRequestError, ConflictError } from '../../lib/errors'
import { ownerContext } from '../users'
import { transactions } from '../transactions'
import * as walletsRepo from '../wallets'
import * as repo from './repo'

/** secp256k1's order: a signature's S above half of it is turned to n − S (EIP-2), with the other recovery bit. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/** The signature as `{ r, s, yParity }` when R and S sign `hash` for `address`; null otherwise. */
export async function recoverable(hash: Hex, address: string, r: Hex, s: Hex) {
  let sv = BigInt(s)
  if (sv === 0n || sv >= N || BigInt(r) === 0n || BigInt(r) >= N) return null
  if (sv > N / 2n) sv = N - sv
  const low = `0x${sv.toString(16).padStart(64, '0')}` as Hex
  for (const yParity of [0, 1]) {
    const signer = await recoverAddress({ hash, signature: { r, s: low, yParity } }).catch(() => null)
    if (signer && signer.toLowerCase() === address.toLowerCase()) return { r, s: low, yParity }
  }
  return null
}

export async function acceptSignature(deps: Deps, s: repo.MpcSessionRow, partyId: number, sig: { r: string; s: string }) {
  const wallet = s.walletId ? await walletsRepo.findWallet(deps.database.db, s.tenantId, s.walletId) : undefined
  if (!wallet || !s.messageHash || !s.preparedId) throw new ConflictError('The wallet of this signing session is gone', { code: 'MPC_WALLET_GONE' })
  const signature = await recoverable(s.messageHash as Hex, wallet.address, sig.r as Hex, sig.s as Hex)
  if (!signature) throw new BadRequestError('This signature does not sign the session\'s hash with the wallet\'s key', { code: 'MPC_SIGNATURE_INVALID' })
  const now = deps.clock.now()
  const stored = await deps.database.write((tx) => repo.insertResult(tx, {
    sessionId: s.id,
    partyId,
    tenantId: s.tenantId,
    publicKey: null,
    signatureR: sig.r.toLowerCase(),
    signatureS: sig.s.toLowerCase(),
    createdAt: now,
  }))
  if (!stored) {
    const mine = (await repo.listResults(deps.database.db, s.tenantId, s.id)).find((r) => r.partyId === partyId)
    if (mine?.signatureR !== sig.r.toLowerCase() || mine?.signatureS !== sig.s.toLowerCase()) {
      throw new ConflictError(`Party ${partyId} already reported another signature`, { code: 'MPC_RESULT_CONFLICT' })
    }
  }
  const current = await repo.findSession(deps.database.db, s.tenantId, s.id)
  if (current?.txHash) return
  const ctx = await ownerContext(deps, s.userId, `mpc:${s.id}`)
  if (!ctx) throw new ConflictError('The session\'s user is gone, deleted or in a disabled tenant', { code: 'MPC_WALLET_GONE' })
  try {
    const sent = await transactions.broadcastTransaction(ctx, s.preparedId, { signature })
    await deps.database.write((tx) => repo.updateSession(tx, s.tenantId, s.id, { status: 'completed', transactionId: sent.id, txHash: sent.txHash, updatedAt: deps.clock.now() }))
  } catch (err) {
    // the other party's report broadcast it first
    if (err instanceof AppError && err.code === 'PREPARED_TX_ALREADY_USED') return
    if (err instanceof AppError && err.status < 500) {
      await deps.database.write((tx) => repo.updateSession(tx, s.tenantId, s.id, { status: 'failed', failureReason: err.message, updatedAt: deps.clock.now() }))
    }
    throw err
  }
}
