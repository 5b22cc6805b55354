/** How transactions and aggregated feed items are shown (the schemas are in model.ts). */
import { iso } from '../../lib/clock'
import type { TransactionRow } from './schema'

export function transactionView(r: TransactionRow) {
  return {
    id: r.id,
    walletId: r.walletId,
    type: r.type,
    chain: r.chain,
    isTestnet: r.isTestnet,
    status: r.status,
    requiresClientSigning: r.requiresClientSigning,
    txHash: r.txHash,
    userOpHash: r.userOpHash,
    fromAddress: r.fromAddress,
    toAddress: r.toAddress,
    amount: r.amount,
    token: { address: r.tokenAddress, symbol: r.tokenSymbol, decimals: r.tokenDecimals },
    nonce: r.nonce,
    confirmations: r.confirmations,
    blockNumber: r.blockNumber,
    blockTimestamp: r.blockTimestamp === null ? null : iso(r.blockTimestamp),
    feePaid: r.feePaid,
    failureReason: r.failureReason,
    resendCount: r.resendCount,
    replacedHashes: r.previousHashes,
    simulation: r.simulation,
    quoteId: r.quoteId,
    metadata: r.metadata ?? null,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  }
}

export function statusView(r: TransactionRow) {
  return {
    id: r.id, txHash: r.txHash, status: r.status, confirmations: r.confirmations, blockNumber: r.blockNumber,
    blockTimestamp: r.blockTimestamp === null ? null : iso(r.blockTimestamp), failureReason: r.failureReason,
    replacedHashes: r.previousHashes,
  }
}

export function feedItem(r: TransactionRow) {
  return {
    id: `tx:${r.id}`,
    kind: r.type,
    // a lending withdraw brings the token back to the wallet
    direction: r.type === 'swap' ? 'swap' as const : r.type === 'withdraw' ? 'in' as const : 'out' as const,
    status: r.status,
    chain: r.chain,
    isTestnet: r.isTestnet,
    amount: r.amount,
    token: { address: r.tokenAddress, symbol: r.tokenSymbol, decimals: r.tokenDecimals },
    counterparty: r.type === 'swap' ? null : r.toAddress,
    txHash: r.txHash,
    walletId: r.walletId,
    simulation: r.simulation,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  }
}
