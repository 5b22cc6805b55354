/**
 * Reading a transaction's fate from the chain and saving any change: the status
 * endpoint and the `tx.refresh` job both come here.
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
import { and, eq } from 'drizzle-orm'
import type { Hex } from 'viem'
import type { Deps } from '../../deps'
import { AppError } from '../../http/errors'
import { errorSummary } from '../../lib/logger'
import { findTenant, settingsOf } from '../tenants/service'
import { chainByFamily, endpointFor } from '../tokens/registry'
import * as walletsRepo from '../wallets/repo'
import { evmNet, signEvm, submitRaw, transferCall, type EvmNet } from './evm'
import { releaseNonce } from './nonces'
import { preparedTransactions, transactions, type TransactionRow } from './schema'
import { isCustodial, ownTransaction, scheduleRefresh, walletSecret } from './service'
import type { Ctx } from '../../context'
import * as solana from './solana'

const rowWhere = (r: TransactionRow) => and(eq(transactions.tenantId, r.tenantId), eq(transactions.id, r.id))

async function settingsFor(deps: Deps, tenantId: string) {
  const t = await findTenant(deps.database.db, tenantId)
  return t ? settingsOf({ deps }, t) : null
}

/** Reads the chain for `row` and saves what changed; answers the saved row. */
export async function refreshTransaction(deps: Deps, row: TransactionRow): Promise<TransactionRow> {
  if (row.simulation || !row.txHash || row.status === 'awaiting_signature') return row
  if (row.status === 'failed') return row
  const settings = await settingsFor(deps, row.tenantId)
  const { endpoint } = endpointFor(deps.config, settings, row.chain, row.isTestnet)
  if (chainByFamily(row.chain)!.family === 'solana') return solana.refreshSolana(deps, endpoint, row)
  const net = await evmNet(deps, endpoint)
  const found = await deps.chain.guard(endpoint, 'receipt', () => findReceipt(net, [row.txHash!, ...[...row.previousHashes].reverse()]))
  if (found) {
    const { receipt, hash } = found
    const [latest, block] = await deps.chain.guard(endpoint, 'block', () => Promise.all([net.client.getBlockNumber(), net.client.getBlock({ blockNumber: receipt.blockNumber })]))
    const set = {
      status: receipt.status === 'success' ? 'confirmed' as const : 'failed' as const,
      failureReason: receipt.status === 'success' ? null : 'reverted on chain',
      txHash: hash,
      confirmations: Number(latest - receipt.blockNumber + 1n),
      blockNumber: Number(receipt.blockNumber),
      blockTimestamp: Number(block.timestamp) * 1000,
      feePaid: (receipt.gasUsed * receipt.effectiveGasPrice).toString(),
    }
    if (row.status === 'pending' || set.confirmations !== row.confirmations) {
      const now = deps.clock.now()
      await deps.database.write((tx) => tx.update(transactions).set({ ...set, updatedAt: now }).where(and(rowWhere(row), eq(transactions.status, row.status))))
      return { ...row, ...set, updatedAt: now }
    }
    return row
  }
  if (row.status !== 'pending') return row
  const known = await deps.chain.guard(endpoint, 'transaction', () => net.client.getTransaction({ hash: row.txHash as Hex }).then(() => true, (err) => {
    if ((err as Error).name === 'TransactionNotFoundError') return false
    throw err
  }))
  const now = deps.clock.now()
  if (known || now - (row.submittedAt ?? row.createdAt) < deps.config.txDropAfterMs) return row
  return handleDropped(deps, net, row)
}

async function findReceipt(net: EvmNet, hashes: string[]) {
  for (const hash of hashes) {
    try {
      return { hash, receipt: await net.client.getTransactionReceipt({ hash: hash as Hex }) }
    } catch (err) {
      if ((err as Error).name !== 'TransactionReceiptNotFoundError') throw err
    }
  }
  return null
}

async function markFailed(deps: Deps, row: TransactionRow, reason: string, freeNonce: boolean) {
  const now = deps.clock.now()
  await deps.database.write(async (tx) => {
    const res = await tx.update(transactions).set({ status: 'failed', failureReason: reason, updatedAt: now })
      .where(and(rowWhere(row), eq(transactions.status, 'pending'), eq(transactions.txHash, row.txHash!))).returning({ id: transactions.id })
    if (res.length && freeNonce && row.nonce !== null) await releaseNonce(tx, { tenantId: row.tenantId, walletId: row.walletId, network: row.network }, row.nonce, now)
  })
  return { ...row, status: 'failed' as const, failureReason: reason, updatedAt: now }
}

async function handleDropped(deps: Deps, net: EvmNet, row: TransactionRow): Promise<TransactionRow> {
  const used = await deps.chain.guard(net.endpoint, 'nonce', () => net.client.getTransactionCount({ address: row.fromAddress as Hex, blockTag: 'latest' }))
  if (row.nonce !== null && used > row.nonce) return markFailed(deps, row, 'dropped: its nonce was used by another transaction', false)
  const wallet = await walletsRepo.findWallet(deps.database.db, row.tenantId, row.walletId)
  const custodial = !!wallet && isCustodial(wallet) && !row.requiresClientSigning
  if (row.resendCount >= deps.config.txMaxResends) {
    return markFailed(deps, row, `dropped from the mempool; not mined after ${row.resendCount} resends`, custodial)
  }
  if (!custodial) {
    // A client-signed transaction can only be handed to the node again as it is.
    const now = deps.clock.now()
    await deps.database.write((tx) => tx.update(transactions).set({ resendCount: row.resendCount + 1, submittedAt: now, updatedAt: now }).where(and(rowWhere(row), eq(transactions.txHash, row.txHash!))))
    await submitRaw(net, row.rawTx as Hex)
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
      const cur = await tx.select().from(transactions).where(rowWhere(row)).get()
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
      await tx.update(transactions).set(set).where(rowWhere(row))
      return { ...cur, ...set }
    })
    if (!resent) return (await deps.database.db.select().from(transactions).where(rowWhere(row)).get()) ?? row
    deps.logger.info('transaction resent with a higher fee', { transactionId: row.id, resendCount: resent.resendCount })
    await submitRaw(net, resent.rawTx as Hex)
    return resent
  } finally {
    secret.fill(0)
  }
}

/** The call a send record stands for (as signed at first). */
function callOf(row: TransactionRow): { to: Hex; value: bigint; data?: Hex } {
  return transferCall(row.tokenAddress, row.toAddress!, BigInt(row.amount))
}

/** The `tx.refresh` job: refresh, then run again later with backoff while still pending. */
/** The `tx.refresh` job (registered in jobs.ts): reads the chain, and schedules the next look while the transaction is pending. */
export async function runRefreshJob(deps: Deps, tenantId: string | null | undefined, payload: Record<string, unknown>) {
  const id = String(payload.transactionId)
  const attempt = Number(payload.attempt ?? 1)
  let row = tenantId ? await deps.database.db.select().from(transactions).where(and(eq(transactions.tenantId, tenantId), eq(transactions.id, id))).get() : undefined
  if (!row || row.status !== 'pending') return
  try {
    row = await refreshTransaction(deps, row)
  } catch (err) {
    // An RPC that is down is not the end: try again on the schedule.
    if (!(err instanceof AppError)) deps.logger.warn('transaction refresh failed', { transactionId: id, ...errorSummary(err) })
  }
  if (row.status !== 'pending') return
  const now = deps.clock.now()
  await deps.database.write((tx) => scheduleRefresh(tx, row!.id, row!.tenantId, attempt + 1, now))
}

/** `GET /v1/transactions/{id}/status`: reads the chain and saves any change. */
export async function transactionStatus(ctx: Ctx, id: string) {
  const row = await ownTransaction(ctx, id)
  if (row.status === 'awaiting_signature') return expireIfUnsigned(ctx.deps, row)
  return refreshTransaction(ctx.deps, row)
}

/** A send whose prepared transaction expired unbroadcast is `failed`: nothing can submit it any more. */
export async function expireIfUnsigned(deps: Deps, row: TransactionRow): Promise<TransactionRow> {
  const now = deps.clock.now()
  const p = await deps.database.db.select().from(preparedTransactions)
    .where(and(eq(preparedTransactions.tenantId, row.tenantId), eq(preparedTransactions.transactionId, row.id))).get()
  if (!p || p.status !== 'prepared' || p.expiresAt > now) return row
  const reason = 'expired: the prepared transaction was not broadcast in time'
  await deps.database.write((tx) => tx.update(transactions).set({ status: 'failed', failureReason: reason, updatedAt: now })
    .where(and(rowWhere(row), eq(transactions.status, 'awaiting_signature'))))
  return { ...row, status: 'failed', failureReason: reason, updatedAt: now }
}
