/**
 * The `onchain` rail: an execution in `processing` sends its stablecoin from the agent's
 * custodial wallet to the merchant's `payTo` through the transactions module (nonce lock,
 * balance holds, status refresh), as the wallet's owner. The send's id and hash are stored;
 * the `agent_payments.execution.follow` job reads the send until it is mined: `succeeded`
 * with its hash, or `failed` with the reason (a failed execution no longer counts against
 * the limits, so its reservation is released). A send the module refuses at once
 * (INSUFFICIENT_BALANCE, a 4xx) makes the execution `failed` right away.
 */
import type { Tx } from '../../../db/client'
import type { Deps } from '../../../deps'
import { AppError } from '../../../lib/errors'
import { scheduleJob } from '../../../jobs/outbox'
import { errorSummary } from '../../../lib/logger'
import { lookupChain } from '../../tokens'
import { ownerContext } from '../../users'
import { findWallet } from '../../wallets'
import { systemScope, type Scope } from '../agents/credentials'
import { toUnits } from '../policies/policy'
import * as repo from '../repo'
import type { ExecutionRow } from '../schema'
import { APPROVAL_EXPIRE_TOPIC, CONFIRMATION_EXPIRE_TOPIC, EXECUTION_FOLLOW_TOPIC } from '../topics'
import { approvalView } from '../views'
import { recordChange } from '../changes'
import { tenantOf } from '../../tenants'
import { transactions } from '../../transactions'
import { holdIdOf, afterMandatePayment, moveExecution } from './moves'
import { CONSENT_REQUIRED, walletConsentRefusal } from '../agents/wallet-consent'
import { prose } from '../../../http/prose'

export { moveExecution }



const followJob = (tenantId: string, executionId: string, attempt: number, runAt: number) =>
  ({ id: `ap-execution-follow:${executionId}:${attempt}`, topic: EXECUTION_FOLLOW_TOPIC, tenantId, payload: { executionId, attempt }, runAt })

async function fail(deps: Deps, scope: Scope, id: string, reason: string): Promise<ExecutionRow> {
  const now = deps.clock.now()
  return deps.database.write(async (tx) => {
    const row = (await repo.findExecution(tx, scope.tenantId, id))!
    if (row.status !== 'processing') return row
    // a hold no send took over counts no more (one a send took over follows its send)
    await transactions.releaseHold(tx, scope.tenantId, holdIdOf(id), now)
    return moveExecution(tx, scope, row, { status: 'failed', failureReason: reason, completedAt: now }, 'failed', now)
  })
}

/** Sends an execution in `processing` that has no send yet; answers the execution as it is after. */
export async function payExecution(deps: Deps, tenantId: string, id: string, given?: Scope): Promise<ExecutionRow> {
  const scope = given ?? await systemScope(deps, tenantId, `ap-execution:${id}`)
  const db = deps.database.db
  const row = (await repo.findExecution(db, tenantId, id))!
  if (row.status === 'processing' && !row.transactionId && !row.x402?.authorization) {
    // no payment starts from a wallet whose owner has not consented (or withdrew it since the execution was judged)
    const agent = await repo.findAgent(db, tenantId, row.agentId)
    const refusal = agent ? await walletConsentRefusal(scope, db, agent) : 'The agent is gone'
    if (refusal) return fail(deps, scope, id, `${CONSENT_REQUIRED}: ${refusal}`)
  }
  if (row.rail === 'x402') return (await import('../x402/x402')).payX402(deps, tenantId, id, scope)
  if (row.status !== 'processing' || row.transactionId) return row
  const agent = await repo.findAgent(db, tenantId, row.agentId)
  const wallet = agent ? await findWallet(db, tenantId, agent.walletId) : undefined
  const ctx = wallet ? await ownerContext(deps, wallet.userId, `ap-execution:${id}`) : null
  if (!wallet || !ctx) return fail(deps, scope, id, 'The agent\'s wallet or its owner is gone (deleted, or its tenant disabled)')
  const token = lookupChain(row.network ?? '')?.network.tokens.find((tk) => tk.symbol === row.currency && tk.address !== null)
  if (!token || !row.payToAddress) return fail(deps, scope, id, `${row.currency} is not a token of ${row.network}`)
  const amount = toUnits(row.amount) / 10n ** BigInt(18 - token.decimals)
  // the amount held against the wallet under the execution's own hold id, before the send: the
  // watch job finds the send through it, or fails an execution whose send was never recorded
  const holdId = holdIdOf(id)
  let held: Awaited<ReturnType<typeof transactions.walletBalances>>
  try {
    held = await transactions.walletBalances(deps, tenantOf(ctx).settings, wallet, token.address)
  } catch (err) {
    deps.logger.warn('agent payment: the wallet\'s balance is unreadable', { executionId: id, ...errorSummary(err) })
    return fail(deps, scope, id, 'CHAIN_UNAVAILABLE: The wallet\'s balance could not be read; nothing was sent')
  }
  if (!held) return fail(deps, scope, id, `The agent's wallet is on a chain the registry does not know`)
  try {
    const placed = await deps.database.write(async (tx) => {
      const cur = (await repo.findExecution(tx, tenantId, id))!
      // another caller started this send (the hold's id is the execution's), or the watch job ended it
      if (cur.status !== 'processing' || cur.transactionId || (await transactions.findHold(tx, tenantId, holdId))) return false
      // the owner's consent again in the write that starts the send: one withdrawn since the check above refuses it here
      const current = await repo.findAgent(tx, tenantId, cur.agentId)
      const consent = current ? await walletConsentRefusal(scope, tx, current) : 'The agent is gone'
      if (consent) return consent
      await transactions.placeHold(tx, held.key, held.balances, { tokenAddress: token.address, amount, purpose: 'agent_payment', refId: id, id: holdId }, deps.clock.now())
      return true
    })
    if (typeof placed === 'string') return fail(deps, scope, id, `${CONSENT_REQUIRED}: ${placed}`)
    if (!placed) return (await repo.findExecution(db, tenantId, id))!
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return fail(deps, scope, id, `${err.code ?? err.label}: ${err.message}`)
    throw err
  }
  let sent: { id: string; txHash: string | null }
  try {
    const body = { walletId: wallet.id, chain: row.network!, toAddress: row.payToAddress, amount: amount.toString(), tokenAddress: token.address }
    // a wallet without gas money pays sponsored where the tenant's gas policy covers agent executions
    sent = await transactions.createTransaction(ctx, body, { holdId, sponsorAs: 'agent' })
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return fail(deps, scope, id, `${err.code ?? err.label}: ${err.message}`)
    // the send may or may not have been recorded: the execution stays `processing` (its amount reserved and held) and the
    // watch job decides by the hold: a send that took it over is followed, a hold never taken over fails the execution
    deps.logger.warn('agent payment send outcome unknown', { executionId: id, ...errorSummary(err) })
    const now = deps.clock.now()
    await deps.database.write((tx) => repo.updateExecution(tx, tenantId, id, { failureReason: prose`
      The send's outcome is unknown: the amount stays reserved until the watch job finds the send or
      releases it`, updatedAt: now }))
    return (await repo.findExecution(db, tenantId, id))!
  }
  const now = deps.clock.now()
  await deps.database.write(async (tx) => {
    await repo.updateExecution(tx, tenantId, id, { transactionId: sent.id, txHash: sent.txHash, updatedAt: now })
    await scheduleJob(tx, followJob(tenantId, id, 1, now + deps.config.txRefreshFirstMs), now)
  })
  return (await repo.findExecution(db, tenantId, id))!
}

/** The `agent_payments.execution.follow` job: the send's status, until it is mined. */
export async function followExecution(deps: Deps, tenantId: string | null | undefined, payload: Record<string, unknown>): Promise<void> {
  const id = String(payload.executionId)
  const attempt = Number(payload.attempt ?? 1)
  const row = tenantId ? await repo.findExecution(deps.database.db, tenantId, id) : undefined
  if (!tenantId || !row || row.status !== 'processing' || !row.transactionId) return
  const scope = await systemScope(deps, tenantId, `job:${EXECUTION_FOLLOW_TOPIC}:${id}`)
  const again = async () => {
    const now = deps.clock.now()
    await deps.database.write((tx) => scheduleJob(tx, followJob(tenantId, id, attempt + 1, now + Math.min(deps.config.txRefreshFirstMs * attempt, 15_000)), now))
  }
  let send
  try {
    send = await transactions.refreshedTransaction(deps, tenantId, row.transactionId)
  } catch (err) {
    if (!(err instanceof AppError)) deps.logger.warn('agent payment send status unreadable', { executionId: id, ...errorSummary(err) })
    return again()
  }
  if (!send) { await fail(deps, scope, id, 'The send was not found'); return }
  if (send.status === 'pending' || send.status === 'awaiting_signature') return again()
  if (send.status !== 'confirmed') { await fail(deps, scope, id, `The send failed: ${send.failureReason ?? send.status}`); return }
  const now = deps.clock.now()
  await deps.database.write(async (tx) => {
    const cur = (await repo.findExecution(tx, tenantId, id))!
    if (cur.status !== 'processing') return
    await moveExecution(tx, scope, cur, { status: 'succeeded', txHash: send.txHash, completedAt: now }, 'succeeded', now)
    if (cur.mandateId) await afterMandatePayment(tx, scope, cur.mandateId, now)
  })
}

/** The `agent_payments.approval.expire` job: an approval still pending at its `expiresAt` expires, and its execution with it. */
export async function expireApproval(deps: Deps, tenantId: string | null | undefined, payload: Record<string, unknown>) {
  if (!tenantId) return
  const id = String(payload.approvalId)
  const scope = await systemScope(deps, tenantId, `job:${APPROVAL_EXPIRE_TOPIC}:${id}`)
  const now = deps.clock.now()
  await deps.database.write(async (tx) => {
    const a = await repo.findApproval(tx, tenantId, id)
    if (!a || a.status !== 'pending' || now < a.expiresAt) return
    const row = (await repo.findExecution(tx, tenantId, a.executionId))!
    const after = { ...a, status: 'expired' as const, decidedAt: now }
    await repo.updateApproval(tx, tenantId, id, { status: 'expired', decidedAt: now })
    await recordChange(tx, scope, { resourceType: 'approval', resourceId: id, change: 'expired', before: approvalView(a), after: approvalView(after), environments: [row.environment] }, now)
    if (row.status === 'requires_approval') await moveExecution(tx, scope, row, { status: 'expired', completedAt: now }, 'expired', now)
  })
}

/** The `agent_payments.confirmation.expire` job: an execution still waiting for its human's confirmation at its deadline expires. */
export async function expireConfirmation(deps: Deps, tenantId: string | null | undefined, payload: Record<string, unknown>) {
  if (!tenantId) return
  const id = String(payload.executionId)
  const scope = await systemScope(deps, tenantId, `job:${CONFIRMATION_EXPIRE_TOPIC}:${id}`)
  const now = deps.clock.now()
  await deps.database.write(async (tx) => {
    const row = await repo.findExecution(tx, tenantId, id)
    if (!row || row.status !== 'requires_confirmation') return
    await moveExecution(tx, scope, row, { status: 'expired', completedAt: now }, 'expired', now)
  })
}

/** Schedules the expiry of an execution that now waits for its human's confirmation (in `tx`). */
export async function awaitConfirmation(tx: Tx, deps: Deps, tenantId: string, executionId: string, now: number) {
  await scheduleJob(tx, confirmationJob(deps, tenantId, executionId, now), now)
}

/** The expiry job of an execution waiting for its human's confirmation from `now`. */
export const confirmationJob = (deps: Deps, tenantId: string, executionId: string, now: number) =>
  ({ id: `ap-confirm-expire:${executionId}`, topic: CONFIRMATION_EXPIRE_TOPIC, tenantId, payload: { executionId }, runAt: now + deps.config.agentPaymentsApprovalTtlMs })
