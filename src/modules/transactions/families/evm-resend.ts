/**
 * Signing an EVM send again for its nonce, and handing signed sends to the node again: what
 * the status job's look at a dropped or kept send does (evm-refresh.ts decides when). A resend
 * or replacement the node refuses is undone: the record keeps the hash the node has.
 */
import { parseTransaction, type Hex } from 'viem'
import type { Deps } from '../../../deps'
import type * as walletsRepo from '../../wallets'
import { findTransaction, pendingSendsFrom, updateTransaction, type TransactionRow } from '../repo'
import { walletSecret } from '../shared'
import { signEvm, transferCall, type EvmNet } from './evm-calls'

/** How much more tip and max fee a node wants before it replaces a transaction it holds (geth's and anvil's default price bump). */
export const REPLACEMENT_BUMP_PERCENT = 10n

export type Wallet = NonNullable<Awaited<ReturnType<typeof walletsRepo.findWallet>>>
interface Fees { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/** The highest max fee a resend or replacement may carry: the first max fee + TX_MAX_FEE_BUMP_PERCENT. */
export function ceilingOf(deps: Deps, row: TransactionRow) {
  const initial = BigInt(row.initialMaxFeePerGas ?? row.maxFeePerGas!)
  return initial + (initial * BigInt(deps.config.txMaxFeeBumpPercent)) / 100n
}

/**
 * Fees for a replacement of a send the node keeps: tip and max fee each at least the
 * replacement minimum above the current ones, the tip at least what the node suggests, the
 * max fee twice the base fee plus the tip (as a new send gets), within the ceiling; null
 * when the ceiling leaves no room for the minimum.
 */
export function replacementFees(deps: Deps, row: TransactionRow, baseFee: bigint, suggestedTip: bigint): Fees | null {
  const bump = (v: bigint) => (v * (100n + REPLACEMENT_BUMP_PERCENT) + 99n) / 100n
  const minTip = bump(BigInt(row.maxPriorityFeePerGas!))
  const minMax = bump(BigInt(row.maxFeePerGas!))
  let tip = suggestedTip > minTip ? suggestedTip : minTip
  let max = baseFee * 2n + tip
  if (max < minMax) max = minMax
  const ceiling = ceilingOf(deps, row)
  if (max > ceiling) max = ceiling
  if (tip > max) tip = max
  if (max < minMax || tip < minTip) return null
  return { maxFeePerGas: max, maxPriorityFeePerGas: tip }
}

/**
 * Signs the send again for its nonce with `fees`, records the new hash (the old one joins
 * `previousHashes`) before handing it to the node, and undoes that if the node refuses it.
 */
export async function resign(deps: Deps, net: EvmNet, row: TransactionRow, wallet: Wallet, fees: Fees, message: string): Promise<TransactionRow> {
  const secret = walletSecret(deps, wallet)
  const now = deps.clock.now()
  let resent: TransactionRow | null
  try {
    resent = await deps.database.write(async (tx) => {
      const cur = await findTransaction(tx, row.tenantId, row.id)
      // Someone (the job or a status read) already moved it on.
      if (!cur || cur.status !== 'pending' || cur.txHash !== row.txHash) return null
      const signed = await signEvm(secret, {
        type: 'eip1559', chainId: row.chainId!, nonce: row.nonce!, gas: BigInt(row.gasLimit!), ...fees, ...callOf(row),
      })
      const set = {
        txHash: signed.hash, rawTx: signed.raw, previousHashes: [...cur.previousHashes, cur.txHash!], maxFeePerGas: fees.maxFeePerGas.toString(),
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(), resendCount: cur.resendCount + 1, submittedAt: now, updatedAt: now,
      }
      await updateTransaction(tx, row.tenantId, row.id, set)
      return { ...cur, ...set }
    })
  } finally {
    secret.fill(0)
  }
  if (!resent) return (await findTransaction(deps.database.db, row.tenantId, row.id)) ?? row
  deps.logger.info(message, { transactionId: row.id, resendCount: resent.resendCount })
  const outcome = await net.rpc.sendRaw(resent.rawTx as Hex)
  if (outcome.kind === 'accepted' || outcome.kind === 'unknown') return resent
  // Refused, or it never reached a node: nothing holds this signature, so the record keeps
  // the hash the node has. The attempt still counts, and the next waits TX_DROP_AFTER_MS.
  const back = {
    txHash: row.txHash, rawTx: row.rawTx, previousHashes: row.previousHashes, maxFeePerGas: row.maxFeePerGas,
    maxPriorityFeePerGas: row.maxPriorityFeePerGas, updatedAt: deps.clock.now(),
  }
  const undone = await deps.database.write((tx) => updateTransaction(tx, row.tenantId, row.id, back, { status: 'pending', txHash: resent.txHash! }))
  deps.logger.warn('the node refused the transaction signed again; the earlier signature stays the record\'s', {
    transactionId: row.id, outcome: outcome.kind, reason: outcome.kind === 'rejected' ? outcome.reason : undefined,
  })
  return undone ? { ...resent, ...back } : (await findTransaction(deps.database.db, row.tenantId, row.id)) ?? row
}

/** Wallets whose sends are being handed to the node again by this process. */
const rebroadcasting = new Set<string>()

/**
 * The send next in line is kept by the node, with fees it accepts, and not mined: hands
 * its signed bytes to the node again, then those of the wallet's later pending sends, in
 * nonce order. A node answers "already known" for what it holds; one that parked them
 * where it does not mine them (a queue of future nonces) takes them as new.
 */
export async function rebroadcast(deps: Deps, net: EvmNet, head: TransactionRow): Promise<TransactionRow> {
  const key = `${head.tenantId}|${head.walletId}|${head.network}`
  if (rebroadcasting.has(key)) return head
  rebroadcasting.add(key)
  try {
    const run = (await pendingSendsFrom(deps.database.db, head.tenantId, head.walletId, head.network, head.nonce!)).filter((r) => r.rawTx && r.txHash)
    if (!run.some((r) => r.id === head.id)) return head
    const now = deps.clock.now()
    await deps.database.write(async (tx) => {
      for (const r of run) await updateTransaction(tx, r.tenantId, r.id, { submittedAt: now, updatedAt: now }, { status: 'pending', txHash: r.txHash! })
    })
    deps.logger.info('transactions kept but not mined handed to the node again', { walletId: head.walletId, fromNonce: head.nonce, count: run.length })
    for (const r of run) await net.rpc.sendRaw(r.rawTx as Hex)
    return { ...head, submittedAt: now, updatedAt: now }
  } finally {
    rebroadcasting.delete(key)
  }
}

/** The call a send record stands for (as signed at first); a swap's or an approval's is the one its signed bytes carry. */
function callOf(row: TransactionRow): { to: Hex; value: bigint; data?: Hex } {
  if (row.type !== 'send' && row.rawTx) {
    const signed = parseTransaction(row.rawTx as Hex)
    return { to: signed.to!, value: signed.value ?? 0n, data: signed.data }
  }
  return transferCall(row.tokenAddress, row.toAddress!, BigInt(row.amount))
}
