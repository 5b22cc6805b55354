/**
 * Reading a Solana send's fate from the network and saving any change: confirmed or failed
 * by its signature's status; with none, failed once the chain is past the blockhash's last
 * valid height (kept in the record's metadata): it can no longer land.
 */
import type { ChainEndpoint } from '../../../adapters/chain/port'
import type { Deps } from '../../../deps'
import { noticeSettled } from '../notices'
import { updateTransaction, type TransactionRow } from '../repo'

/** The status job's and the status endpoint's look at a Solana send. */
export async function refreshSolana(deps: Deps, endpoint: ChainEndpoint, row: TransactionRow): Promise<TransactionRow> {
  const rpc = await deps.chain.solanaRpc(endpoint)
  const st = await deps.chain.guard(endpoint, 'status', () => rpc.signatureStatus(row.txHash!))
  if (st && (st.confirmationStatus === 'confirmed' || st.confirmationStatus === 'finalized' || st.err)) {
    const blockTime = await deps.chain.guard(endpoint, 'blockTime', () => rpc.blockTime(st.slot)).catch(() => null)
    const set = {
      status: st.err ? 'failed' as const : 'confirmed' as const,
      failureReason: st.err ? `failed on chain: ${JSON.stringify(st.err).slice(0, 200)}` : null,
      // Finalized means at least 32 confirmations; the RPC reports null then.
      confirmations: st.confirmations ?? (st.confirmationStatus === 'finalized' ? 32 : 1),
      blockNumber: st.slot,
      blockTimestamp: blockTime ? blockTime * 1000 : null,
    }
    if (row.status === 'pending' || set.confirmations !== row.confirmations) {
      const now = deps.clock.now()
      await deps.database.write(async (tx) => {
        const changed = await updateTransaction(tx, row.tenantId, row.id, { ...set, updatedAt: now }, { status: row.status })
        // told once: only the write that moved it out of `pending`
        if (changed && row.status === 'pending') await noticeSettled(deps, tx, { ...row, ...set, updatedAt: now })
      })
      return { ...row, ...set, updatedAt: now }
    }
    return row
  }
  if (row.status !== 'pending') return row
  const lastValid = Number((row.metadata as { lastValidBlockHeight?: number } | null)?.lastValidBlockHeight ?? Infinity)
  const height = await deps.chain.guard(endpoint, 'blockHeight', () => rpc.blockHeight())
  if (height <= lastValid) return row
  const now = deps.clock.now()
  const reason = 'expired: its recent blockhash expired before the network confirmed it'
  await deps.database.write(async (tx) => {
    const changed = await updateTransaction(tx, row.tenantId, row.id, { status: 'failed', failureReason: reason, updatedAt: now }, { status: 'pending' })
    if (changed) await noticeSettled(deps, tx, { ...row, status: 'failed', failureReason: reason, updatedAt: now })
  })
  return { ...row, status: 'failed', failureReason: reason, updatedAt: now }
}
