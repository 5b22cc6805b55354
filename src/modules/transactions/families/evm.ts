/**
 * EVM sends (the ChainFamily for every EVM chain).
 *
 * Custodial send, in order: estimate gas and fees from the chain (no transaction open);
 * make sure the wallet's nonce row exists (chain `pending` count); then ONE write
 * transaction reserves the nonce, signs locally (CPU only), stores the transaction with
 * its hash and signed bytes, and schedules the status job; then the signed transaction
 * goes to the RPC. If the node refuses the nonce, the counter is resynchronised from
 * the chain and the same record is signed again with a new nonce (up to 3 times). If
 * the submission never reached a node, or the node refused it, the record is marked
 * failed and the nonce given back (the next send takes it), so no gap is left.
 *
 * Client signing: the client signs `signingHash` = keccak256 of the unsigned EIP-1559
 * serialization (`0x02 ‖ rlp([chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gas,
 * to, value, data, accessList])`) with the wallet key, as a raw secp256k1 signature over
 * that hash (no EIP-191 prefix), and sends either the signature (65-byte hex
 * `r ‖ s ‖ v`, or `{ r, s, yParity }`) or the whole signed transaction (its fields must
 * equal the prepared ones): evm-signature.ts.
 */
import type { Hex } from 'viem'
import { ConflictError, ServiceUnavailableError } from '../../../lib/errors'
import { iso } from '../../../lib/clock'
import { newId } from '../../../lib/ids'
import type { Ctx } from '../../../context'
import { blockchainError, wouldFail } from '../errors'
import { attachHold, chainBalances, ensureSpendable } from '../holds'
import { hasNonceRow, initNonceRow, releaseNonce, reserveNonce, resyncNonce, type NonceKey } from '../nonces'
import { findTransaction, insertPrepared, insertTransaction, updateTransaction } from '../repo'
import { scheduleRefresh, sendRow, walletSecret } from '../shared'
import { estimateEvm, evmNet, pendingCount, signEvm, signingHashOf, transferCall, unsignedEip1559, type EvmCall, type EvmFees, type EvmNet } from './evm-calls'
import { refreshEvm } from './evm-refresh'
import { batchedSponsored, goesSponsored, sponsoredSend } from './evm-sponsored'
import { signedEvm } from './evm-signature'
import { mpcSponsoredPrepare } from './evm-sponsored-mpc'
import type { ChainFamily, SendPlan } from './port'

/** The chain's view of the send: the network, the call and its fees; a call that would fail answers 400 before anything is stored. */
async function estimated(ctx: Ctx, p: SendPlan) {
  const net = await evmNet(ctx.deps, p.endpoint)
  const call = p.call ?? transferCall(p.token.address, p.to, p.amount)
  const fees = await estimateEvm(ctx.deps, net, p.signer?.address ?? p.wallet.address, call)
  if ('revert' in fees) throw wouldFail(fees.revert)
  return { net, call, fees }
}

async function custodialSend(ctx: Ctx, p: SendPlan) {
  const { deps } = ctx
  const net = await evmNet(deps, p.endpoint)
  const call = p.call ?? transferCall(p.token.address, p.to, p.amount)
  if (p.ahead?.length && !p.signer) {
    const batched = await batchedSponsored(ctx, p, net, call)
    if (batched) return batched
  }
  const fees = await estimateEvm(deps, net, p.signer?.address ?? p.wallet.address, call)
  if ('revert' in fees) {
    // the node refuses for want of gas money: sponsored, where the tenant's gas policy covers it
    if (/insufficient funds/i.test(fees.revert) && (await goesSponsored(ctx, p, { block: 0n, native: 0n, token: 0n }, 1n))) {
      return sponsoredSend(ctx, p, call, await chainBalances(deps, net, p.wallet.address, p.token.address))
    }
    throw wouldFail(fees.revert)
  }
  const holdKey: NonceKey = { tenantId: p.tenantId, walletId: p.wallet.id, network: p.network }
  // a relayed send (p.signer) takes the signer's nonce and pays its gas; the wallet's amount is still held
  const key: NonceKey = p.signer?.nonceKey ?? holdKey
  const sender = p.signer?.address ?? p.wallet.address
  const laneKey = `${key.tenantId}|${key.walletId}|${key.network}`
  if (!(await hasNonceRow(deps.database.db, key))) await initNonceRow(deps, key, await pendingCount(deps, net, sender))
  const balances = await chainBalances(deps, net, p.wallet.address, p.token.address)
  // a wallet that cannot pay the gas, where the tenant's gas policy covers the operation: a user operation the paymaster pays
  if (await goesSponsored(ctx, p, balances, fees.gas * fees.maxFeePerGas)) return sponsoredSend(ctx, p, call, balances)
  const secret = p.signer ? p.signer.secret() : walletSecret(deps, p.wallet)
  try {
    const now = deps.clock.now()
    let turn: Turn | undefined
    const row = await deps.database.write(async (tx) => {
      // what the wallet holds beside its sends and holds in flight, checked where the send is recorded
      await ensureSpendable(tx, holdKey, balances, { tokenAddress: p.token.address, amount: p.amount, fee: p.signer ? 0n : fees.gas * fees.maxFeePerGas }, now, p.holdId ?? null)
      const nonce = await reserveNonce(tx, key, now)
      // Taken in reservation order (writes are serialised), so submissions leave in nonce order.
      turn = takeTurn(laneKey)
      const signed = await signEvm(secret, unsignedEip1559(net.chainId, nonce, call, fees))
      const r = {
        ...sendRow(ctx, p, now), fromAddress: sender, status: 'pending' as const, requiresClientSigning: false, txHash: signed.hash, rawTx: signed.raw, chainId: net.chainId, nonce,
        gasLimit: fees.gas.toString(), maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
        initialMaxFeePerGas: fees.maxFeePerGas.toString(), submittedAt: now,
      }
      await insertTransaction(tx, r)
      await p.onRecorded?.(tx, r.id, now)
      if (p.holdId && !(await attachHold(tx, p.tenantId, p.holdId, r.id, now))) throw new ConflictError('The amount held for this send was released before it was sent')
      await scheduleRefresh(tx, r.id, r.tenantId, 1, now, deps.config.txRefreshFirstMs)
      // from here the send may reach the chain: an Idempotency-Key stays bound to it
      await ctx.idempotency?.bind(tx, `transaction:${r.id}`)
      return r
    }).catch((err) => {
      turn?.release()
      throw err
    })
    await turn!.ready
    try {
      return await submitCustodial(ctx, p, net, call, fees, key, secret, row)
    } finally {
      turn!.release()
    }
  } finally {
    secret.fill(0)
  }
}

async function submitCustodial(ctx: Ctx, p: SendPlan, net: EvmNet, call: EvmCall, fees: EvmFees, key: NonceKey, secret: Uint8Array, row: {
  id: string
  tenantId: string
  chain: string
  isTestnet: boolean
  nonce: number
  rawTx: Hex
  txHash: Hex
}) {
  const { deps } = ctx
  let current: { nonce: number; raw: Hex; hash: Hex } = { nonce: row.nonce, raw: row.rawTx, hash: row.txHash }
  for (let attempt = 1; ; attempt++) {
    const outcome = await net.rpc.sendRaw(current.raw)
    if (outcome.kind === 'accepted' || outcome.kind === 'unknown') break
    if (outcome.kind === 'nonce' && attempt < 4) {
      // Resynchronise outside any transaction, then re-sign the same record with a fresh nonce.
      const pending = await pendingCount(deps, net, p.signer?.address ?? p.wallet.address)
      const next = await deps.database.write(async (tx) => {
        // The status job signed the send again for this nonce meanwhile (its lane waited past
        // TX_DROP_AFTER_MS): that signature may be in a mempool, so never a second nonce.
        if ((await findTransaction(tx, row.tenantId, row.id))?.txHash !== current.hash) return null
        const t = deps.clock.now()
        await resyncNonce(tx, key, pending, outcome.which, t)
        const nonce = await reserveNonce(tx, key, t)
        const signed = await signEvm(secret, unsignedEip1559(net.chainId, nonce, call, fees))
        await updateTransaction(tx, row.tenantId, row.id, { nonce, txHash: signed.hash, rawTx: signed.raw, submittedAt: t, updatedAt: t })
        return { nonce, raw: signed.raw, hash: signed.hash }
      })
      if (!next) break
      current = next
      continue
    }
    // (A node that answered an error while holding the transaction answered `accepted`: the adapter asks for its hash.)
    // Never reached a node, or refused: nothing is in a mempool, so the nonce goes back.
    const reason = outcome.kind === 'rejected' ? outcome.reason : outcome.kind === 'nonce' ? `nonce refused (${outcome.which})` : 'the network could not be reached'
    const failed = await deps.database.write(async (tx) => {
      const t = deps.clock.now()
      // only while the send still holds this signature (not one the status job made since)
      if (!(await updateTransaction(tx, row.tenantId, row.id, { status: 'failed', failureReason: `not submitted: ${reason}`, updatedAt: t }, { status: 'pending', txHash: current.hash }))) return false
      await releaseNonce(tx, key, current.nonce, t)
      // nothing moved: the Idempotency-Key is free again
      await ctx.idempotency?.unbind(tx)
      return true
    })
    if (!failed) break
    if (outcome.kind === 'unreachable') throw new ServiceUnavailableError(`The ${net.endpoint.registryId} network is temporarily unavailable`)
    throw blockchainError(400, 'TRANSACTION_REJECTED', `The network refused the transaction: ${reason}`, outcome.kind === 'nonce', 'Check the amount and balances, then send again')
  }
  return { id: row.id, status: 'pending' as const, txHash: current.hash, requiresClientSigning: false, nonce: current.nonce, chain: row.chain, isTestnet: row.isTestnet }
}

interface Turn {
  /** resolves when every earlier send of the lane has been submitted */
  ready: Promise<void>
  release(): void
}

/**
 * Per-wallet submission lanes (in this process): a send submits only after the sends
 * that reserved earlier nonces have, so the node sees nonces in order. Nodes queue an
 * early nonce, but RPC providers and load balancers do not all do so, and some development
 * nodes hold every request behind it.
 */
const lanes = new Map<string, Promise<void>>()

function takeTurn(key: string): Turn {
  const prev = lanes.get(key) ?? Promise.resolve()
  let release!: () => void
  const mine = new Promise<void>((resolve) => (release = resolve))
  const tail = prev.then(() => mine)
  lanes.set(key, tail)
  void tail.then(() => {
    if (lanes.get(key) === tail) lanes.delete(key)
  })
  return { ready: prev, release }
}

async function prepare(ctx: Ctx, p: SendPlan) {
  const { deps } = ctx
  // an MPC wallet that cannot pay the gas, where the tenant's gas policy covers the operation: a user operation its parties sign
  const sponsored = await mpcSponsoredPrepare(ctx, p)
  if (sponsored) return sponsored
  const { net, call, fees } = await estimated(ctx, p)
  // The client's key may also be used elsewhere: the chain's pending count is the truth.
  const nonce = await pendingCount(deps, net, p.wallet.address)
  const unsignedTx = unsignedEip1559(net.chainId, nonce, call, fees)
  const { unsigned, hash } = signingHashOf(unsignedTx)
  const now = deps.clock.now()
  const expiresAt = now + deps.config.preparedTxTtlSeconds * 1000
  const row = {
    ...sendRow(ctx, p, now), status: 'awaiting_signature' as const, requiresClientSigning: true, txHash: null, rawTx: null, chainId: net.chainId, nonce,
    gasLimit: fees.gas.toString(), maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
    initialMaxFeePerGas: fees.maxFeePerGas.toString(), submittedAt: null,
  }
  const preparedId = newId()
  await deps.database.write(async (tx) => {
    await insertTransaction(tx, row)
    await insertPrepared(tx, {
      id: preparedId, tenantId: p.tenantId, userId: ctx.actor.userId, walletId: p.wallet.id, transactionId: row.id, family: 'evm',
      unsigned, signingPayload: hash, status: 'prepared', expiresAt, usedAt: null, createdAt: now,
    })
  })
  return {
    id: row.id, status: row.status, txHash: null, requiresClientSigning: true, preparedTransactionId: preparedId, chain: row.chain, isTestnet: row.isTestnet,
    signingHash: hash, unsignedTransaction: unsigned, signingScheme: 'evm-eip1559-hash' as const, expiresAt: iso(expiresAt), nonce,
    transaction: {
      type: 'eip1559' as const, chainId: net.chainId, nonce, to: call.to, value: call.value.toString(), data: call.data ?? '0x',
      gas: fees.gas.toString(), maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
    },
  }
}

export const evmFamily: ChainFamily = {
  async quote(ctx, p) {
    const { fees } = await estimated(ctx, p)
    return { estimatedGas: fees.gas, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas, fee: fees.gas * fees.maxFeePerGas }
  },
  send: custodialSend,
  prepare,
  signed: signedEvm,
  // EVM addresses compare without their checksum casing.
  isSigner: (signer, walletAddress) => signer.toLowerCase() === walletAddress.toLowerCase(),
  submit: async (deps, endpoint, raw) => (await evmNet(deps, endpoint)).rpc.sendRaw(raw as Hex),
  refresh: refreshEvm,
}
