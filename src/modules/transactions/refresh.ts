/**
 * Reading a transaction's fate from the chain and saving any change: the status
 * endpoint and the `tx.refresh` job both come here; the chain family reads the chain
 * (families/evm-refresh.ts resends dropped EVM transactions).
 */
import type { Deps } from '../../deps'
import { AppError } from '../../lib/errors'
import { errorSummary } from '../../lib/logger'
import type { Ctx } from '../../context'
import { findTenant, settingsOf } from '../tenants'
import { endpointFor } from '../tokens'
import { familyOf } from './families'
import { findPreparedFor, findTransaction, updateTransaction, type TransactionRow } from './repo'
import { ownTransaction } from './service'
import { scheduleRefresh } from './shared'

async function settingsFor(deps: Deps, tenantId: string) {
  const t = await findTenant(deps.database.db, tenantId)
  return t ? settingsOf({ deps }, t) : null
}

/** Reads the chain for `row` and saves what changed; answers the saved row. */
async function refreshTransaction(deps: Deps, row: TransactionRow): Promise<TransactionRow> {
  if (row.simulation || (!row.txHash && !row.userOpHash) || row.status === 'awaiting_signature') return row
  if (row.status === 'failed') return row
  const settings = await settingsFor(deps, row.tenantId)
  const { endpoint } = endpointFor(deps.config, settings, row.chain, row.isTestnet)
  return familyOf(endpoint.family).refresh(deps, endpoint, row)
}

/** A send's row read from its chain now (saved when changed); undefined when the tenant has no such transaction. */
export async function refreshedTransaction(deps: Deps, tenantId: string, id: string): Promise<TransactionRow | undefined> {
  const row = await findTransaction(deps.database.db, tenantId, id)
  return row && row.status === 'pending' ? refreshTransaction(deps, row) : row
}

/** The `tx.refresh` job (registered in jobs.ts): reads the chain, and schedules the next look while the transaction is pending. */
export async function runRefreshJob(deps: Deps, tenantId: string | null | undefined, payload: Record<string, unknown>) {
  const id = String(payload.transactionId)
  const attempt = Number(payload.attempt ?? 1)
  let row = tenantId ? await findTransaction(deps.database.db, tenantId, id) : undefined
  if (!row || row.status !== 'pending') return
  try {
    row = await refreshTransaction(deps, row)
  } catch (err) {
    // An RPC that is down is not the end: try again on the schedule.
    if (!(err instanceof AppError)) deps.logger.warn('transaction refresh failed', { transactionId: id, ...errorSummary(err) })
  }
  if (row.status !== 'pending') return
  const now = deps.clock.now()
  await deps.database.write((tx) => scheduleRefresh(tx, row!.id, row!.tenantId, attempt + 1, now, deps.config.txRefreshFirstMs))
}

/** `GET /v1/transactions/{id}/status`: reads the chain and saves any change. */
export async function transactionStatus(ctx: Ctx, id: string) {
  const row = await ownTransaction(ctx, id)
  if (row.status === 'awaiting_signature') return expireIfUnsigned(ctx.deps, row)
  return refreshTransaction(ctx.deps, row)
}

/** A send whose prepared transaction expired unbroadcast is `failed`: nothing can submit it any more. */
async function expireIfUnsigned(deps: Deps, row: TransactionRow): Promise<TransactionRow> {
  const now = deps.clock.now()
  const p = await findPreparedFor(deps.database.db, row.tenantId, row.id)
  if (!p || p.status !== 'prepared' || p.expiresAt > now) return row
  const reason = 'expired: the prepared transaction was not broadcast in time'
  await deps.database.write((tx) => updateTransaction(tx, row.tenantId, row.id, { status: 'failed', failureReason: reason, updatedAt: now }, { status: 'awaiting_signature' }))
  return { ...row, status: 'failed', failureReason: reason, updatedAt: now }
}
