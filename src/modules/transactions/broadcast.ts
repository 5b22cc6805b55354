/**
 * Broadcast of a transaction prepared for client signing.
 *
 * EVM: the client signs `signingHash` = keccak256 of the unsigned EIP-1559 serialization
 * (`0x02 ‖ rlp([chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gas, to, value, data,
 * accessList])`) with the wallet key, as a raw secp256k1 signature over that hash (no
 * EIP-191 prefix), and sends either the signature (65-byte hex `r ‖ s ‖ v`, or
 * `{ r, s, yParity }`) or the whole signed transaction (its fields must equal the
 * prepared ones). Solana: the client signs the serialized message bytes (`message`,
 * base64) with ed25519 and sends the 64-byte signature (base58 or base64) or the signed
 * transaction (base64).
 *
 * The prepared record is consumed by one conditional UPDATE (status = 'prepared') in a
 * write transaction, so of two racing broadcasts exactly one goes on; the other answers
 * 409 PREPARED_TX_ALREADY_USED.
 */
import { and, eq, gt } from 'drizzle-orm'
import {
  keccak256, parseSignature, parseTransaction, recoverAddress, recoverTransactionAddress, serializeTransaction,
  type Hex, type TransactionSerializableEIP1559,
} from 'viem'
import { ServiceUnavailableError } from '../../http/errors'
import { isUuid } from '../../lib/ids'
import type { Ctx } from '../../context'
import { endpointFor } from '../tokens/registry'
import { callerTenant } from '../tenants/caller'
import * as walletsRepo from '../wallets/repo'
import { blockchainError, preparedExpired, preparedNotFound, preparedUsed, signatureDecodeFailed, wrongSigner } from './errors'
import { evmNet, submitRaw } from './evm'
import { preparedTransactions, transactions, type PreparedRow } from './schema'
import { scheduleRefresh } from './service'
import * as solana from './solana'

export interface BroadcastInput {
  signature?: string | { r: string; s: string; yParity?: number; v?: number }
  signedTransaction?: string
}

async function findPrepared(ctx: Ctx, tenantId: string, id: string): Promise<PreparedRow> {
  if (!isUuid(id)) throw preparedNotFound()
  const db = ctx.deps.database.db
  const mine = and(eq(preparedTransactions.tenantId, tenantId), eq(preparedTransactions.userId, ctx.actor.userId))
  // The prepared transaction's id, or the id of the transaction it belongs to.
  const row = (await db.select().from(preparedTransactions).where(and(mine, eq(preparedTransactions.id, id))).get())
    ?? (await db.select().from(preparedTransactions).where(and(mine, eq(preparedTransactions.transactionId, id))).get())
  if (!row) throw preparedNotFound()
  return row
}

const HEX_SIG = /^0x[0-9a-fA-F]{130}$/
const HEX32 = /^0x[0-9a-fA-F]{1,64}$/

/** The signed EIP-1559 transaction from what the client sent, and who signed it. */
async function evmSigned(p: PreparedRow, input: BroadcastInput): Promise<{ raw: Hex; signer: string }> {
  const prepared = parseTransaction(p.unsigned as Hex) as TransactionSerializableEIP1559
  if (input.signedTransaction !== undefined) {
    let parsed: ReturnType<typeof parseTransaction>
    try {
      if (!/^0x02[0-9a-fA-F]+$/.test(input.signedTransaction)) throw new Error('not an EIP-1559 transaction in hex')
      parsed = parseTransaction(input.signedTransaction as Hex)
    } catch (err) {
      throw signatureDecodeFailed((err as Error).message.split('\n')[0]!.slice(0, 200))
    }
    const { r, s, v, yParity, ...fields } = parsed as TransactionSerializableEIP1559 & { r?: Hex; s?: Hex; v?: bigint; yParity?: number }
    if (!r || !s) throw signatureDecodeFailed('the transaction is not signed')
    if (serializeTransaction(fields as TransactionSerializableEIP1559) !== p.unsigned) {
      throw signatureDecodeFailed('the signed transaction differs from the prepared one (nonce, fees, recipient, value or data)')
    }
    void v
    void yParity
    const signer = await recoverTransactionAddress({ serializedTransaction: input.signedTransaction as `0x02${string}` }).catch(() => { throw signatureDecodeFailed('no signer can be recovered') })
    return { raw: input.signedTransaction as Hex, signer }
  }
  const sig = input.signature
  let parts: { r: Hex; s: Hex; yParity: number }
  try {
    if (typeof sig === 'string') {
      if (!HEX_SIG.test(sig)) throw new Error('expected 65 bytes as 0x-prefixed hex')
      const ps = parseSignature(sig as Hex)
      parts = { r: ps.r, s: ps.s, yParity: ps.yParity ?? Number(ps.v! - 27n) }
    } else if (sig && typeof sig === 'object') {
      if (!HEX32.test(sig.r) || !HEX32.test(sig.s)) throw new Error('r and s must be 0x-prefixed hex of at most 32 bytes')
      const yParity = sig.yParity ?? (sig.v === 27 || sig.v === 28 ? sig.v - 27 : sig.v)
      if (yParity !== 0 && yParity !== 1) throw new Error('yParity must be 0 or 1 (or v 27/28)')
      parts = { r: sig.r as Hex, s: sig.s as Hex, yParity }
    } else {
      throw new Error('send `signature` or `signedTransaction`')
    }
  } catch (err) {
    throw signatureDecodeFailed((err as Error).message.split('\n')[0]!.slice(0, 200))
  }
  const signer = await recoverAddress({ hash: keccak256(p.unsigned as Hex), signature: parts }).catch(() => { throw signatureDecodeFailed('no signer can be recovered from this signature') })
  return { raw: serializeTransaction(prepared, parts), signer }
}

export async function broadcastTransaction(ctx: Ctx, id: string, input: BroadcastInput) {
  if ((input.signature === undefined) === (input.signedTransaction === undefined)) throw signatureDecodeFailed('send exactly one of `signature` or `signedTransaction`')
  const tenant = await callerTenant(ctx)
  const p = await findPrepared(ctx, tenant.id, id)
  const now = ctx.deps.clock.now()
  if (p.status === 'used') throw preparedUsed()
  if (p.expiresAt <= now) throw preparedExpired()
  const wallet = await walletsRepo.findUserWallet(ctx.deps.database.db, tenant.id, ctx.actor.userId, p.walletId)
  if (!wallet) throw preparedNotFound()
  const signed: { raw: string; signer: string; hash: string } = p.family === 'evm'
    ? await evmSigned(p, input).then((s) => ({ ...s, hash: keccak256(s.raw) }))
    : solana.solanaSigned(p, input)
  const same = p.family === 'evm' ? signed.signer.toLowerCase() === wallet.address.toLowerCase() : signed.signer === wallet.address
  if (!same) throw wrongSigner()
  const txHash = signed.hash
  const consumed = await ctx.deps.database.write(async (tx) => {
    const t = ctx.deps.clock.now()
    const res = await tx.update(preparedTransactions).set({ status: 'used', usedAt: t })
      .where(and(eq(preparedTransactions.tenantId, p.tenantId), eq(preparedTransactions.id, p.id), eq(preparedTransactions.status, 'prepared'), gt(preparedTransactions.expiresAt, t)))
      .returning({ id: preparedTransactions.id })
    if (!res.length) return false
    await tx.update(transactions).set({ status: 'pending', txHash, rawTx: signed.raw, submittedAt: t, updatedAt: t })
      .where(and(eq(transactions.tenantId, p.tenantId), eq(transactions.id, p.transactionId)))
    await scheduleRefresh(tx, p.transactionId, p.tenantId, 1, t)
    return true
  })
  if (!consumed) {
    const cur = await ctx.deps.database.db.select().from(preparedTransactions).where(eq(preparedTransactions.id, p.id)).get()
    throw cur?.status === 'used' ? preparedUsed() : preparedExpired()
  }
  const { endpoint } = endpointFor(ctx.deps.config, tenant.settings, wallet.chain, wallet.isTestnet)
  const outcome = p.family === 'evm' ? await submitRaw(await evmNet(ctx.deps, endpoint), signed.raw as Hex) : await solana.submitSolana(ctx.deps, endpoint, signed.raw)
  if (outcome.kind === 'unreachable') {
    // Nothing reached a node: hand the prepared transaction back so the same signature can be sent again.
    await ctx.deps.database.write(async (tx) => {
      await tx.update(preparedTransactions).set({ status: 'prepared', usedAt: null }).where(and(eq(preparedTransactions.tenantId, p.tenantId), eq(preparedTransactions.id, p.id)))
      await tx.update(transactions).set({ status: 'awaiting_signature', txHash: null, rawTx: null, submittedAt: null, updatedAt: ctx.deps.clock.now() })
        .where(and(eq(transactions.tenantId, p.tenantId), eq(transactions.id, p.transactionId), eq(transactions.status, 'pending')))
    })
    throw new ServiceUnavailableError(`The ${endpoint.registryId} network is temporarily unavailable; broadcast again`)
  }
  if (outcome.kind === 'rejected' || outcome.kind === 'nonce') {
    const reason = outcome.kind === 'rejected' ? outcome.reason : `nonce too ${outcome.which}`
    await ctx.deps.database.write((tx) => tx.update(transactions).set({ status: 'failed', failureReason: `not submitted: ${reason}`, updatedAt: ctx.deps.clock.now() })
      .where(and(eq(transactions.tenantId, p.tenantId), eq(transactions.id, p.transactionId))))
    throw blockchainError(400, 'TRANSACTION_REJECTED', `The network refused the transaction: ${reason}`, false, 'Create the transaction again with POST /v1/transactions/')
  }
  return { id: p.transactionId, preparedTransactionId: p.id, status: 'pending' as const, txHash }
}
