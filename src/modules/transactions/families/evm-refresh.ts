/**
 * Reading an EVM transaction's fate from the chain and saving any change.
 *
 * Dropped transactions: when the node has not known a submitted hash for
 * TX_DROP_AFTER_MS and the wallet's nonce is still unused on chain, a custodial
 * transaction is signed again with fees raised by 20% per resend, never above the first
 * max fee + TX_MAX_FEE_BUMP_PERCENT, at most TX_MAX_RESENDS times; a client-signed one is
 * resubmitted unchanged (its signature cannot be redone here). When neither is possible
 * it is marked `failed` with a `failureReason`, and a custodial nonce goes back to the
 * wallet's counter. A nonce used on chain by a transaction that is none of ours is
 * `failed` too.
 */
import type { Hex } from 'viem'
import type { ChainEndpoint } from '../../../adapters/chain/port'
import type { Deps } from '../../../deps'
import * as walletsRepo from '../../wallets/repo'
import { releaseNonce } from '../nonces'
import { findTransaction, updateTransaction, type TransactionRow } from '../repo'
import { isCustodial, walletSecret } from '../shared'
import { evmNet, signEvm, transferCall, type EvmNet } from './evm-calls'

export async function refreshEvm(deps: Deps, endpoint: ChainEndpoint, row: TransactionRow): Promise<TransactionRow> {
  const net = await evmNet(deps, endpoint)
  const found = await deps.chain.guard(endpoint, 'receipt', () => findReceipt(net, [row.txHash!, ...[...row.previousHashes].reverse()]))
  if (found) {
    const { receipt, hash } = found
    const [latest, timestamp] = await deps.chain.guard(endpoint, 'block', () => Promise.all([net.rpc.blockNumber(), net.rpc.blockTimestamp(receipt.blockNumber)]))
    const set = {
      status: receipt.status === 'success' ? 'confirmed' as const : 'failed' as const,
      failureReason: receipt.status === 'success' ? null : 'reverted on chain',
      txHash: hash,
      confirmations: Number(latest - receipt.blockNumber + 1n),
      blockNumber: Number(receipt.blockNumber),
      blockTimestamp: Number(timestamp) * 1000,
      feePaid: (receipt.gasUsed * receipt.effectiveGasPrice).toString(),
    }
    if (row.status === 'pending' || set.confirmations !== row.confirmations) {
      const now = deps.clock.now()
      await deps.database.write((tx) => updateTransaction(tx, row.tenantId, row.id, { ...set, updatedAt: now }, { status: row.status }))
      return { ...row, ...set, updatedAt: now }
    }
    return row
  }
  if (row.status !== 'pending') return row
  const known = await deps.chain.guard(endpoint, 'transaction', () => net.rpc.knowsTransaction(row.txHash as Hex))
  const now = deps.clock.now()
  if (known || now - (row.submittedAt ?? row.createdAt) < deps.config.txDropAfterMs) return row
  return handleDropped(deps, net, row)
}

/** The receipt of the first of the hashes the node has mined, newest submission first. */
async function findReceipt(net: EvmNet, hashes: string[]) {
  for (const hash of hashes) {
    const receipt = await net.rpc.receipt(hash as Hex)
    if (receipt) return { hash, receipt }
  }
  return null
}

async function markFailed(deps: Deps, row: TransactionRow, reason: string, freeNonce: boolean) {
  const now = deps.clock.now()
  await deps.database.write(async (tx) => {
    const changed = await updateTransaction(tx, row.tenantId, row.id, { status: 'failed', failureReason: reason, updatedAt: now }, { status: 'pending', txHash: row.txHash! })
    if (changed && freeNonce && row.nonce !== null) await releaseNonce(tx, { tenantId: row.tenantId, walletId: row.walletId, network: row.network }, row.nonce, now)
  })
  return { ...row, status: 'failed' as const, failureReason: reason, updatedAt: now }
}

async function handleDropped(deps: Deps, net: EvmNet, row: TransactionRow): Promise<TransactionRow> {
  const used = await deps.chain.guard(net.endpoint, 'nonce', () => net.rpc.transactionCount(row.fromAddress as Hex, 'latest'))
  if (row.nonce !== null && used > row.nonce) return markFailed(deps, row, 'dropped: its nonce was used by another transaction', false)
  const wallet = await walletsRepo.findWallet(deps.database.db, row.tenantId, row.walletId)
  const custodial = !!wallet && isCustodial(wallet) && !row.requiresClientSigning
  if (row.resendCount >= deps.config.txMaxResends) {
    return markFailed(deps, row, `dropped from the mempool; not mined after ${row.resendCount} resends`, custodial)
  }
  if (!custodial) {
    // A client-signed transaction can only be handed to the node again as it is.
    const now = deps.clock.now()
    await deps.database.write((tx) => updateTransaction(tx, row.tenantId, row.id, { resendCount: row.resendCount + 1, submittedAt: now, updatedAt: now }, { txHash: row.txHash! }))
    await net.rpc.sendRaw(row.rawTx as Hex)
    return { ...row, resendCount: row.resendCount + 1, submittedAt: now, updatedAt: now }
  }
  const initial = BigInt(row.initialMaxFeePerGas ?? row.maxFeePerGas!)
  const ceiling = initial + (initial * BigInt(deps.config.txMaxFeeBumpPercent)) / 100n
  const oldMax = BigInt(row.maxFeePerGas!)
  const oldTip = BigInt(row.maxPriorityFeePerGas!)
  const nextMax = (oldMax * 12n) / 10n
  // Nodes replace a known transaction only for at least 10% more; 20% leaves room.
  if (nextMax > ceiling || nextMax === oldMax) {
    return markFailed(deps, row, `dropped from the mempool; the fee ceiling (+${deps.config.txMaxFeeBumpPercent}%) was reached`, true)
  }
  const nextTip = (oldTip * 12n) / 10n > nextMax ? nextMax : (oldTip * 12n) / 10n
  const secret = walletSecret(deps, wallet!)
  try {
    const now = deps.clock.now()
    const resent = await deps.database.write(async (tx) => {
      const cur = await findTransaction(tx, row.tenantId, row.id)
      // Someone (the job or a status read) already moved it on.
      if (!cur || cur.status !== 'pending' || cur.txHash !== row.txHash) return null
      const signed = await signEvm(secret, {
        type: 'eip1559', chainId: row.chainId!, nonce: row.nonce!, gas: BigInt(row.gasLimit!), maxFeePerGas: nextMax, maxPriorityFeePerGas: nextTip,
        ...callOf(row),
      })
      const set = {
        txHash: signed.hash, rawTx: signed.raw, previousHashes: [...cur.previousHashes, cur.txHash!], maxFeePerGas: nextMax.toString(),
        maxPriorityFeePerGas: nextTip.toString(), resendCount: cur.resendCount + 1, submittedAt: now, updatedAt: now,
      }
      await updateTransaction(tx, row.tenantId, row.id, set)
      return { ...cur, ...set }
    })
    if (!resent) return (await findTransaction(deps.database.db, row.tenantId, row.id)) ?? row
    deps.logger.info('transaction resent with a higher fee', { transactionId: row.id, resendCount: resent.resendCount })
    await net.rpc.sendRaw(resent.rawTx as Hex)
    return resent
  } finally {
    secret.fill(0)
  }
}

/** The call a send record stands for (as signed at first). */
function callOf(row: TransactionRow): { to: Hex; value: bigint; data?: Hex } {
  return transferCall(row.tokenAddress, row.toAddress!, BigInt(row.amount))
}
