/**
 * Reading an EVM transaction's fate from the chain and saving any change.
 *
 * A send may have been signed more than once for its nonce (resends, replacements): every
 * hash it had (`txHash`, then `previousHashes` newest first) is looked up. The one with a
 * receipt becomes `txHash`; the others stay in `previousHashes`, replaced (shown as
 * `replacedHashes`: at most one of them can ever be mined, since they share the nonce).
 *
 * Past TX_DROP_AFTER_MS since its last submission, a send still pending is looked at:
 *
 * - Dropped (the node knows none of its hashes) and its nonce still unused on chain: a
 *   custodial transaction is signed again with fees raised by 20% per resend, never above
 *   the first max fee + TX_MAX_FEE_BUMP_PERCENT, at most TX_MAX_RESENDS times; a
 *   client-signed one is resubmitted unchanged (its signature cannot be redone here). When
 *   neither is possible it is marked `failed` with a `failureReason`, and a custodial nonce
 *   goes back to the wallet's counter.
 * - Kept (the node knows one of its hashes) and next in line (its nonce is the chain's
 *   `latest` count): with fees below what the node now accepts (a max fee under the latest
 *   base fee plus the tip the node suggests, or a tip under that tip), a custodial send is
 *   replaced: same nonce, tip and max fee each raised by at least the nodes' replacement
 *   minimum (10%), to twice the base fee plus the tip as a new send gets, never above the
 *   ceiling, at most TX_MAX_RESENDS times (then it stays pending while the node keeps it).
 *   With fees the node accepts, the node holds it where it does not mine it (a pool that
 *   filed it as a future nonce, a node that lost the earlier ones: docs/transactions.md): its
 *   signed bytes, and those of the wallet's later pending sends, are handed to the node again
 *   in nonce order. (A node that evicts what can no longer pay the base fee, as anvil and
 *   geth do, drops it instead: the case above.)
 * - Kept behind an earlier nonce: the wallet's send next in line is looked at instead.
 * - A nonce used on chain by a transaction that is none of its hashes: `failed`.
 *
 * A resend or replacement the node refuses is undone: the record keeps the hash the node
 * has, so a refused signature is never taken for the send (the signing again, the fees and the
 * handing to the node again: evm-resend.ts).
 */
import type { Hex } from 'viem'
import type { ChainEndpoint } from '../../../adapters/chain/port'
import type { Deps } from '../../../deps'
import * as walletsRepo from '../../wallets'
import { noticeSettled } from '../notices'
import { refreshSponsored } from './evm-sponsored'
import { relayerNonceKey, releaseNonce } from '../nonces'
import { findTransaction, pendingSendsFrom, updateTransaction, type TransactionRow } from '../repo'
import { isCustodial } from '../shared'
import { evmNet, type EvmNet } from './evm-calls'
import { ceilingOf, rebroadcast, replacementFees, resign, type Wallet } from './evm-resend'


export async function refreshEvm(deps: Deps, endpoint: ChainEndpoint, row: TransactionRow): Promise<TransactionRow> {
  // a sponsored send is a user operation: the bundler has its receipt (families/evm-sponsored.ts)
  if (row.userOpHash) return refreshSponsored(deps, endpoint, row)
  return refreshOn(deps, await evmNet(deps, endpoint), row, 0)
}

async function refreshOn(deps: Deps, net: EvmNet, row: TransactionRow, depth: number): Promise<TransactionRow> {
  const mined = await saveMined(deps, net, row)
  if (mined) return mined
  if (row.status !== 'pending') return row
  if (deps.clock.now() - (row.submittedAt ?? row.createdAt) < deps.config.txDropAfterMs) return row
  const known = await deps.chain.guard(net.endpoint, 'transaction', () => knowsAny(net, hashesOf(row)))
  return known ? handleKept(deps, net, row, depth) : handleDropped(deps, net, row)
}

/** Every hash the send was signed with, newest first. */
function hashesOf(row: TransactionRow): Hex[] {
  return [...new Set([row.txHash!, ...[...row.previousHashes].reverse()])].filter(Boolean) as Hex[]
}

async function knowsAny(net: EvmNet, hashes: Hex[]) {
  for (const hash of hashes) if (await net.rpc.knowsTransaction(hash)) return true
  return false
}

/** The receipt of the first of the hashes the node has mined, newest submission first. */
async function findReceipt(net: EvmNet, hashes: Hex[]) {
  for (const hash of hashes) {
    const receipt = await net.rpc.receipt(hash)
    if (receipt) return { hash, receipt }
  }
  return null
}

/**
 * When one of the send's hashes is mined: records it (status, block, fee) as `txHash` and
 * the others as replaced, and answers the saved row; null while none is.
 */
async function saveMined(deps: Deps, net: EvmNet, row: TransactionRow): Promise<TransactionRow | null> {
  const found = await deps.chain.guard(net.endpoint, 'receipt', () => findReceipt(net, hashesOf(row)))
  if (!found) return null
  const { receipt, hash } = found
  const [latest, timestamp] = await deps.chain.guard(net.endpoint, 'block', () => Promise.all([net.rpc.blockNumber(), net.rpc.blockTimestamp(receipt.blockNumber)]))
  const set = {
    status: receipt.status === 'success' ? 'confirmed' as const : 'failed' as const,
    failureReason: receipt.status === 'success' ? null : 'reverted on chain',
    txHash: hash,
    // the hashes signed for the same nonce that were not mined: replaced for good
    previousHashes: [...row.previousHashes, row.txHash!].filter((h) => h && h !== hash),
    confirmations: Number(latest - receipt.blockNumber + 1n),
    blockNumber: Number(receipt.blockNumber),
    blockTimestamp: Number(timestamp) * 1000,
    feePaid: (receipt.gasUsed * receipt.effectiveGasPrice).toString(),
  }
  if (row.status !== 'pending' && set.confirmations === row.confirmations && row.txHash === hash) return row
  const now = deps.clock.now()
  // Only over the row as read: a replacement signed meanwhile adds a hash, and is looked at again.
  const changed = await deps.database.write(async (tx) => {
    const n = await updateTransaction(tx, row.tenantId, row.id, { ...set, updatedAt: now }, { status: row.status, txHash: row.txHash! })
    // told once: only the write that moved it out of `pending`
    if (n && row.status === 'pending') await noticeSettled(deps, tx, { ...row, ...set, updatedAt: now })
    return n
  })
  if (!changed) return (await findTransaction(deps.database.db, row.tenantId, row.id)) ?? row
  return { ...row, ...set, updatedAt: now }
}

async function markFailed(deps: Deps, row: TransactionRow, reason: string, freeNonce: boolean) {
  const now = deps.clock.now()
  await deps.database.write(async (tx) => {
    const changed = await updateTransaction(tx, row.tenantId, row.id, { status: 'failed', failureReason: reason, updatedAt: now }, { status: 'pending', txHash: row.txHash! })
    if (changed) await noticeSettled(deps, tx, { ...row, status: 'failed', failureReason: reason, updatedAt: now })
    // a relayed send's nonce is the relayer's (its `fromAddress`), not the wallet's
    const key = isRelayed(row) ? relayerNonceKey(row.fromAddress, row.network) : { tenantId: row.tenantId, walletId: row.walletId, network: row.network }
    if (changed && freeNonce && row.nonce !== null) await releaseNonce(tx, key, row.nonce, now)
  })
  return { ...row, status: 'failed' as const, failureReason: reason, updatedAt: now }
}

/** The chain's count of the sender's mined transactions. */
const usedNonces = (deps: Deps, net: EvmNet, row: TransactionRow) => deps.chain.guard(net.endpoint, 'nonce', () => net.rpc.transactionCount(row.fromAddress as Hex, 'latest'))

/** Its nonce is used on chain: by one of its own hashes mined just now (saved), or by another transaction (`failed`). */
async function nonceUsed(deps: Deps, net: EvmNet, row: TransactionRow) {
  return (await saveMined(deps, net, row)) ?? markFailed(deps, row, 'dropped: its nonce was used by another transaction', false)
}

/** A send a deployment key signed for the wallet (SendPlan.signer: a gasless swap's relayer). */
const isRelayed = (row: TransactionRow) => typeof row.metadata?.relayer === 'string'

async function custodialWallet(deps: Deps, row: TransactionRow): Promise<Wallet | null> {
  // a relayed send (a gasless swap) was signed by the relayer, not the wallet: handed to the node again as it is
  if (row.requiresClientSigning || isRelayed(row)) return null
  const wallet = await walletsRepo.findWallet(deps.database.db, row.tenantId, row.walletId)
  return wallet && isCustodial(wallet) ? wallet : null
}

async function handleDropped(deps: Deps, net: EvmNet, row: TransactionRow): Promise<TransactionRow> {
  const used = await usedNonces(deps, net, row)
  if (row.nonce !== null && used > row.nonce) return nonceUsed(deps, net, row)
  const wallet = await custodialWallet(deps, row)
  if (row.resendCount >= deps.config.txMaxResends) {
    return markFailed(deps, row, `dropped from the mempool; not mined after ${row.resendCount} resends`, !!wallet || isRelayed(row))
  }
  if (!wallet) {
    // A client-signed transaction can only be handed to the node again as it is.
    const now = deps.clock.now()
    await deps.database.write((tx) => updateTransaction(tx, row.tenantId, row.id, { resendCount: row.resendCount + 1, submittedAt: now, updatedAt: now }, { txHash: row.txHash! }))
    await net.rpc.sendRaw(row.rawTx as Hex)
    return { ...row, resendCount: row.resendCount + 1, submittedAt: now, updatedAt: now }
  }
  const oldMax = BigInt(row.maxFeePerGas!)
  const oldTip = BigInt(row.maxPriorityFeePerGas!)
  const nextMax = (oldMax * 12n) / 10n
  // Nodes replace a known transaction only for at least 10% more; 20% leaves room.
  if (nextMax > ceilingOf(deps, row) || nextMax === oldMax) {
    return markFailed(deps, row, `dropped from the mempool; the fee ceiling (+${deps.config.txMaxFeeBumpPercent}%) was reached`, true)
  }
  const nextTip = (oldTip * 12n) / 10n > nextMax ? nextMax : (oldTip * 12n) / 10n
  return resign(deps, net, row, wallet, { maxFeePerGas: nextMax, maxPriorityFeePerGas: nextTip }, 'transaction resent with a higher fee')
}

async function handleKept(deps: Deps, net: EvmNet, row: TransactionRow, depth: number): Promise<TransactionRow> {
  if (row.nonce === null) return row
  const used = await usedNonces(deps, net, row)
  if (used > row.nonce) return nonceUsed(deps, net, row)
  if (used < row.nonce) {
    // Waiting behind an earlier nonce: what holds the wallet up is the send next in line.
    const [head] = await pendingSendsFrom(deps.database.db, row.tenantId, row.walletId, row.network, used)
    if (head && head.nonce === used && head.id !== row.id && depth < 2) await refreshOn(deps, net, head, depth + 1)
    else if (!head || head.nonce !== used) deps.logger.warn('a pending send waits behind a nonce no pending send holds', { walletId: row.walletId, network: row.network, nonce: used })
    return row
  }
  const wallet = await custodialWallet(deps, row)
  if (wallet) {
    const [baseFee, tip] = await deps.chain.guard(net.endpoint, 'fees', () => Promise.all([net.rpc.latestBaseFee(), net.rpc.maxPriorityFeePerGas()]))
    const base = baseFee ?? 0n
    if (BigInt(row.maxFeePerGas!) < base + tip || BigInt(row.maxPriorityFeePerGas!) < tip) {
      const fees = replacementFees(deps, row, base, tip)
      if (!fees || row.resendCount >= deps.config.txMaxResends) {
        deps.logger.warn(
          'transaction underpriced and no replacement is allowed (fee ceiling or resend limit): kept pending while the node keeps it',
          { transactionId: row.id, resendCount: row.resendCount },
        )
        return row
      }
      return resign(deps, net, row, wallet, fees, 'underpriced transaction replaced with higher fees')
    }
  }
  return rebroadcast(deps, net, row)
}

