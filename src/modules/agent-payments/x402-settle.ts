/**
 * How an x402 payment ends (x402.ts pays it): `succeeded` only when the token shows its
 * authorization used, with the transaction that used it; otherwise it waits in `processing`
 * until the authorization expires, when the `agent_payments.x402.settle` job reads the token
 * again (used: `succeeded`; not: `failed`, its reservation and hold released).
 */
import type { Hex } from 'viem'
import type { Deps } from '../../deps'
import { AppError } from '../../http/errors'
import { scheduleJob } from '../../jobs/outbox'
import { errorSummary } from '../../lib/logger'
import { releaseHold, shortenHold } from '../transactions/holds'
import type { Scope } from './credentials'
import { afterMandatePayment, moveExecution } from './moves'
import * as repo from './repo'
import type { ExecutionRow, X402Record } from './schema'
import { X402_SETTLE_TOPIC } from './topics'
import { planOf, rpcOf, settleJob, systemScope, type Plan } from './x402-plan'

/** how long after an authorization's `validBefore` the job looks (a block or two to settle in) */
/**
 * How long a settled payment's hold still counts: a spend judged against balances read before the
 * settling block would not see the transfer (reads come just before their write, within an RPC time limit).
 */
const HOLD_AFTER_SETTLED_MS = 30_000
export const SETTLE_GRACE_MS = 5_000
/** how far back the transaction that used an authorization is searched */
const LOG_LOOKBACK_BLOCKS = 5_000n

/** Fails an execution still `processing`, keeping what the rail saw, its hold released (one transaction). */
export async function failX402(deps: Deps, scope: Scope, id: string, reason: string, record: X402Record | null): Promise<ExecutionRow> {
  const now = deps.clock.now()
  return deps.database.write(async (tx) => {
    const row = (await repo.findExecution(tx, scope.tenantId, id))!
    if (row.status !== 'processing') return row
    if (record?.holdId) await releaseHold(tx, scope.tenantId, record.holdId, now)
    return moveExecution(tx, scope, row, { status: 'failed', failureReason: reason, completedAt: now, x402: record }, 'failed', now)
  })
}

/** `succeeded`, with the transaction that used the authorization (the mandate consumed or exhausted with it). */
async function succeedX402(deps: Deps, scope: Scope, id: string, txHash: string, record: X402Record): Promise<ExecutionRow> {
  const now = deps.clock.now()
  return deps.database.write(async (tx) => {
    const row = (await repo.findExecution(tx, scope.tenantId, id))!
    if (row.status !== 'processing') return row
    // the transfer is on chain: the hold counts a little longer (HOLD_AFTER_SETTLED_MS), for balances read before its block
    if (record.holdId) await shortenHold(tx, scope.tenantId, record.holdId, now + HOLD_AFTER_SETTLED_MS)
    const after = await moveExecution(tx, scope, row, { status: 'succeeded', txHash, failureReason: null, completedAt: now, x402: record }, 'succeeded', now)
    if (row.mandateId) await afterMandatePayment(tx, scope, row.mandateId, now)
    return after
  })
}

/**
 * Whether the chain shows the authorization used, and by which transaction: then `succeeded`.
 * Otherwise the execution keeps `reason` and waits for the job at the authorization's expiry.
 */
export async function settleOrWait(deps: Deps, scope: Scope, plan: Plan, id: string, record: X402Record, reason: string): Promise<ExecutionRow> {
  const a = record.authorization!
  try {
    const { endpoint, rpc } = await rpcOf(deps, plan)
    const used = await deps.chain.guard(endpoint, 'authorization state', () => rpc.authorizationState(plan.token.address as Hex, a.from as Hex, a.nonce as Hex))
    if (used) {
      const head = await rpc.blockNumber()
      const byLog = await rpc.authorizationUsedBy(plan.token.address as Hex, a.from as Hex, a.nonce as Hex, head > LOG_LOOKBACK_BLOCKS ? head - LOG_LOOKBACK_BLOCKS : 0n).catch(() => null)
      const txHash = byLog ?? record.settlement?.transaction ?? null
      if (txHash) {
        const settlement = record.settlement?.success && record.settlement.transaction?.toLowerCase() === txHash.toLowerCase()
          ? record.settlement
          : { success: true, transaction: txHash, network: record.requirement?.network ?? null, payer: a.from, errorReason: null, source: 'chain' as const }
        return succeedX402(deps, scope, id, txHash, { ...record, settlement })
      }
    }
  } catch (err) {
    if (!(err instanceof AppError)) deps.logger.warn('x402 authorization state unreadable', { executionId: id, ...errorSummary(err) })
  }
  const now = deps.clock.now()
  const until = new Date(Number(a.validBefore) * 1000).toISOString()
  await deps.database.write((tx) => repo.updateExecution(tx, scope.tenantId, id, {
    x402: record, updatedAt: now, failureReason: `${reason}; the signed authorization can be settled until ${until}: the execution fails then unless it was`,
  }))
  return (await repo.findExecution(deps.database.db, scope.tenantId, id))!
}

/** The `agent_payments.x402.settle` job, at an authorization's expiry: used → `succeeded`, else `failed` and released. */
export async function settleX402(deps: Deps, tenantId: string | null | undefined, payload: Record<string, unknown>): Promise<void> {
  const id = String(payload.executionId)
  const row = tenantId ? await repo.findExecution(deps.database.db, tenantId, id) : undefined
  if (!tenantId || !row || row.status !== 'processing' || !row.x402?.authorization) return
  const scope = systemScope(deps, tenantId, `job:${X402_SETTLE_TOPIC}:${id}`)
  const plan = await planOf(deps, row)
  if ('stop' in plan) {
    await failX402(deps, scope, id, plan.stop, row.x402)
    return
  }
  const validUntil = Number(row.x402.authorization.validBefore) * 1000
  const reason = row.failureReason?.split('; the signed authorization')[0] ?? 'X402_NOT_SETTLED: The resource did not settle the payment'
  const after = await settleOrWait(deps, scope, plan, id, row.x402, reason)
  if (after.status !== 'processing') return
  const now = deps.clock.now()
  if (now < validUntil) {
    await deps.database.write((tx) => scheduleJob(tx, settleJob(tenantId, id, validUntil + SETTLE_GRACE_MS), now))
    return
  }
  // expired: read once more (settleOrWait answered `processing` only because it was unused or unreadable)
  try {
    const { endpoint, rpc } = await rpcOf(deps, plan)
    const a = row.x402.authorization
    const used = await deps.chain.guard(endpoint, 'authorization state', () => rpc.authorizationState(plan.token.address as Hex, a.from as Hex, a.nonce as Hex))
    if (used) throw new Error('used but its transaction was not found yet')
  } catch (err) {
    deps.logger.warn('x402 authorization not settled yet; looking again', { executionId: id, ...errorSummary(err) })
    await deps.database.write((tx) => scheduleJob(tx, settleJob(tenantId, id, now + 15_000), now))
    return
  }
  await failX402(deps, scope, id, reason, row.x402)
}
