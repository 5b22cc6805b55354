/**
 * What the status job tells users when it settles a transaction (docs/notifications.md):
 * called in the write transaction that moved a send or swap from `pending` to `confirmed` or
 * `failed`, and only when that conditional write changed the row, so each change is told once.
 *
 * - The owner of a send or swap: `transaction.confirmed` or `transaction.failed`. Approvals
 *   (a swap's first step) are not told: the swap that follows is.
 * - A confirmed send to an address that is a live wallet of another user of the same tenant,
 *   on the same chain and network type: that user gets `transfer.incoming`. Transfers that
 *   did not go through Slipway (sent from elsewhere) are not seen, as nothing watches the chain
 *   for them.
 */
import type { Tx } from '../../db/client'
import type { Deps } from '../../deps'
import { notify } from '../notifications'
import { chainByFamily } from '../tokens'
import { findByAddress } from '../wallets'
import type { TransactionRow } from './repo'

const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' ? String(v) : null)

/** `row` as it now is (its new status and hash applied). */
export async function noticeSettled(deps: Deps, tx: Tx, row: TransactionRow): Promise<void> {
  if (row.status !== 'confirmed' && row.status !== 'failed') return
  if (row.type !== 'send' && row.type !== 'swap') return
  const meta = row.metadata ?? {}
  // what the sender and a recipient are both told of the movement
  const moved = {
    chain: row.chain, network: row.network, txHash: row.txHash, amount: row.amount,
    decimals: String(row.tokenDecimals), symbol: row.tokenSymbol, tokenAddress: row.tokenAddress,
  }
  await notify(deps, tx, {
    tenantId: row.tenantId,
    userId: row.userId,
    kind: row.status === 'confirmed' ? 'transaction.confirmed' : 'transaction.failed',
    data: {
      transactionId: row.id,
      type: row.type,
      ...moved,
      toAddress: row.type === 'send' ? row.toAddress : null,
      ...(row.type === 'swap' ? { toSymbol: text(meta.toTokenSymbol), toAmount: text(meta.toAmount), toDecimals: text(meta.toTokenDecimals) } : {}),
      failureReason: row.failureReason,
    },
  })
  if (row.status !== 'confirmed' || row.type !== 'send' || !row.toAddress) return
  const family = chainByFamily(row.chain)?.family
  // EVM addresses are kept lower-cased for lookups; base58 (Solana) is case-sensitive
  const key = family === 'evm' ? row.toAddress.toLowerCase() : row.toAddress
  const recipient = await findByAddress(tx, row.tenantId, row.chain, row.isTestnet, key)
  if (!recipient || recipient.userId === row.userId) return
  await notify(deps, tx, {
    tenantId: row.tenantId,
    userId: recipient.userId,
    kind: 'transfer.incoming',
    data: {
      walletId: recipient.id,
      ...moved,
      fromAddress: row.fromAddress,
    },
  })
}
