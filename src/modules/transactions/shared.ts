/**
 * Helpers every part of the module uses (the verbs, both chain families, the refresh
 * job): who signs, opening a custodial key, the row a send starts from, and scheduling
 * the status job. It imports no other file of the module but the repo and the topics,
 * so nothing here can close an import cycle.
 */
import type { Deps } from '../../deps'
import type { Executor } from '../../db/client'
import { newId } from '../../lib/ids'
import { scheduleJob } from '../../jobs/outbox'
import type { Ctx } from '../../context'
import { openKey } from '../wallets'
import type { SendPlan, WalletRow } from './families/port'
import { REFRESH_TOPIC, refreshDelayMs } from './topics'

/** Wallets whose key the service holds sign here; the others sign on the client. */
export const isCustodial = (w: WalletRow) => (w.keyManagementScheme === 'aes_single' || w.keyManagementScheme === 'client_side_pending' || w.keyManagementScheme === 'sss_2of2_akv') && !!w.keySealed

/** The wallet's private key, opened for one signature: the caller zeroes it once signed. */
export function walletSecret(deps: Deps, w: WalletRow): Uint8Array {
  return openKey(deps.sealer, { tenantId: w.tenantId, walletId: w.id, address: w.address }, { dataKeyWrapped: w.dataKeyWrapped!, keySealed: w.keySealed! })
}

/** The columns of a send record that do not depend on the family or on who signs. */
export function sendRow(ctx: Ctx, p: SendPlan, now: number) {
  return {
    id: newId(), tenantId: p.tenantId, userId: ctx.actor.userId, walletId: p.wallet.id, type: p.record?.type ?? 'send' as const, chain: p.wallet.chain,
    isTestnet: p.wallet.isTestnet, network: p.network, fromAddress: p.wallet.address, toAddress: p.to, amount: p.amount.toString(),
    tokenAddress: p.token.address, tokenSymbol: p.token.symbol, tokenDecimals: p.token.decimals, previousHashes: [] as string[],
    confirmations: 0, resendCount: 0, simulation: false, quoteId: p.record?.quoteId ?? null, metadata: p.record?.metadata ?? null, feePaid: null, blockNumber: null, blockTimestamp: null,
    failureReason: null, createdAt: now, updatedAt: now,
  }
}

/** Schedules the `tx.refresh` job for the transaction (in the caller's write transaction); `firstMs` is TX_REFRESH_FIRST_MS. */
export async function scheduleRefresh(tx: Executor, transactionId: string, tenantId: string, attempt: number, now: number, firstMs: number) {
  const runAt = now + refreshDelayMs(attempt, firstMs)
  await scheduleJob(tx, { id: `tx-refresh:${transactionId}:${attempt}`, topic: REFRESH_TOPIC, tenantId, payload: { transactionId, attempt }, runAt }, now)
}
