/** How transactions and aggregated feed items are shown. */
import { t } from 'elysia'
import { iso } from '../../lib/clock'
import type { TransactionRow } from './schema'

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()])

export const TokenRef = t.Object({
  address: Nullable(t.String()),
  symbol: t.String(),
  decimals: t.Integer(),
}, { description: '`address` is null for the native coin' })

export const Transaction = t.Object({
  id: t.String({ format: 'uuid' }),
  walletId: t.String(),
  type: t.Union([t.Literal('send'), t.Literal('swap')]),
  chain: t.String(),
  isTestnet: t.Boolean(),
  status: t.Union([t.Literal('awaiting_signature'), t.Literal('pending'), t.Literal('confirmed'), t.Literal('failed')]),
  requiresClientSigning: t.Boolean(),
  txHash: Nullable(t.String()),
  fromAddress: t.String(),
  toAddress: Nullable(t.String()),
  amount: t.String({ description: 'smallest unit, integer string' }),
  token: TokenRef,
  nonce: Nullable(t.Integer()),
  confirmations: t.Integer(),
  blockNumber: Nullable(t.Integer()),
  blockTimestamp: Nullable(t.String({ format: 'date-time' })),
  feePaid: Nullable(t.String({ description: 'network fee paid once mined, smallest unit of the native coin' })),
  failureReason: Nullable(t.String()),
  resendCount: t.Integer(),
  simulation: t.Boolean(),
  quoteId: Nullable(t.String()),
  metadata: Nullable(t.Record(t.String(), t.Any())),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'Transaction' })

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
    simulation: r.simulation,
    quoteId: r.quoteId,
    metadata: r.metadata ?? null,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  }
}

export const TransactionStatus = t.Object({
  id: t.String(),
  txHash: Nullable(t.String()),
  status: Transaction.properties.status,
  confirmations: t.Integer(),
  blockNumber: Nullable(t.Integer()),
  blockTimestamp: Nullable(t.String({ format: 'date-time' })),
  failureReason: Nullable(t.String()),
}, { title: 'TransactionStatus' })

export function statusView(r: TransactionRow) {
  return {
    id: r.id, txHash: r.txHash, status: r.status, confirmations: r.confirmations, blockNumber: r.blockNumber,
    blockTimestamp: r.blockTimestamp === null ? null : iso(r.blockTimestamp), failureReason: r.failureReason,
  }
}

/**
 * One item of the unified feed: sends, swaps and (later) bank ramp movements in one
 * shape. `id` is `<source>:<record id>` so items of different sources never collide.
 */
export const FeedItem = t.Object({
  id: t.String({ description: '`tx:<transaction id>` (later `ramp:<id>` for bank ramp movements)' }),
  kind: t.Union([t.Literal('send'), t.Literal('swap'), t.Literal('deposit'), t.Literal('payout')]),
  direction: t.Union([t.Literal('out'), t.Literal('in'), t.Literal('swap')]),
  status: t.String({ description: '`awaiting_signature`, `pending`, `confirmed` or `failed` for chain records' }),
  chain: t.String(),
  isTestnet: t.Boolean(),
  amount: t.String({ description: 'smallest unit, integer string' }),
  token: TokenRef,
  counterparty: Nullable(t.String({ description: 'the other address (recipient of a send); null for swaps' })),
  txHash: Nullable(t.String()),
  walletId: Nullable(t.String()),
  simulation: t.Boolean(),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'FeedItem' })

export function feedItem(r: TransactionRow) {
  return {
    id: `tx:${r.id}`,
    kind: r.type,
    direction: r.type === 'swap' ? 'swap' as const : 'out' as const,
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
