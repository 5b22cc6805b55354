/**
 * Broadcast of a transaction prepared for client signing. What the client signs, and
 * how its signature is read, is its chain family's (families/evm.ts, families/solana.ts).
 *
 * The prepared record is consumed by one conditional UPDATE (status = 'prepared') in a
 * write transaction, so of two racing broadcasts exactly one goes on; the other answers
 * 409 PREPARED_TX_ALREADY_USED.
 */
import { ServiceUnavailableError } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import type { Ctx } from '../../context'
import { endpointFor } from '../tokens'
import { tenantOf } from '../tenants'
import * as walletsRepo from '../wallets'
import { blockchainError, preparedExpired, preparedNotFound, preparedUsed, signatureDecodeFailed, wrongSigner } from './errors'
import { familyOf } from './families'
import { broadcastUserOpPiece, isUserOpPiece } from './families/evm-sponsored-mpc'
import type { BroadcastBody } from './model'
import { consumePrepared, findPrepared, findUserPrepared, restorePrepared, updateTransaction } from './repo'
import { scheduleRefresh } from './shared'

export async function broadcastTransaction(ctx: Ctx, id: string, input: BroadcastBody) {
  if ((input.signature === undefined) === (input.signedTransaction === undefined)) throw signatureDecodeFailed('send exactly one of `signature` or `signedTransaction`')
  const tenant = tenantOf(ctx)
  if (!isUuid(id)) throw preparedNotFound()
  // The prepared transaction's id, or the id of the transaction it belongs to.
  const p = await findUserPrepared(ctx.deps.database.db, tenant.id, ctx.actor.userId, id)
  if (!p) throw preparedNotFound()
  const now = ctx.deps.clock.now()
  if (p.status === 'used') throw preparedUsed()
  if (p.expiresAt <= now) throw preparedExpired()
  const wallet = await walletsRepo.findUserWallet(ctx.deps.database.db, tenant.id, ctx.actor.userId, p.walletId)
  if (!wallet) throw preparedNotFound()
  // a piece of an MPC wallet's sponsored user operation (families/evm-sponsored-mpc.ts)
  if (isUserOpPiece(p.family)) return broadcastUserOpPiece(ctx, p as typeof p & { family: typeof p.family }, wallet, input)
  const family = familyOf(p.family)
  const signed = await family.signed(p, input)
  if (!family.isSigner(signed.signer, wallet.address)) throw wrongSigner()
  const txHash = signed.hash
  const consumed = await ctx.deps.database.write(async (tx) => {
    const t = ctx.deps.clock.now()
    if (!(await consumePrepared(tx, p.tenantId, p.id, t))) return false
    await updateTransaction(tx, p.tenantId, p.transactionId, { status: 'pending', txHash, rawTx: signed.raw, submittedAt: t, updatedAt: t })
    await scheduleRefresh(tx, p.transactionId, p.tenantId, 1, t, ctx.deps.config.txRefreshFirstMs)
    return true
  })
  if (!consumed) {
    const cur = await findPrepared(ctx.deps.database.db, p.tenantId, p.id)
    throw cur?.status === 'used' ? preparedUsed() : preparedExpired()
  }
  const { endpoint } = endpointFor(ctx.deps.config, tenant.settings, wallet.chain, wallet.isTestnet)
  const outcome = await family.submit(ctx.deps, endpoint, signed.raw)
  if (outcome.kind === 'unreachable') {
    // Nothing reached a node: hand the prepared transaction back so the same signature can be sent again.
    await ctx.deps.database.write(async (tx) => {
      await restorePrepared(tx, p.tenantId, p.id)
      await updateTransaction(tx, p.tenantId, p.transactionId, { status: 'awaiting_signature', txHash: null, rawTx: null, submittedAt: null, updatedAt: ctx.deps.clock.now() }, { status: 'pending' })
    })
    throw new ServiceUnavailableError(`The ${endpoint.registryId} network is temporarily unavailable; broadcast again`)
  }
  if (outcome.kind === 'rejected' || outcome.kind === 'nonce') {
    const reason = outcome.kind === 'rejected' ? outcome.reason : `nonce too ${outcome.which}`
    await ctx.deps.database.write((tx) => updateTransaction(tx, p.tenantId, p.transactionId, { status: 'failed', failureReason: `not submitted: ${reason}`, updatedAt: ctx.deps.clock.now() }))
    throw blockchainError(400, 'TRANSACTION_REJECTED', `The network refused the transaction: ${reason}`, false, 'Create the transaction again with POST /v1/transactions/')
  }
  return { id: p.transactionId, preparedTransactionId: p.id, status: 'pending' as const, txHash }
}
