/**
 * An execution judged and reserved the interactive way: its inputs read inside one write
 * transaction (BEGIN IMMEDIATE, so concurrent executions cannot together pass a limit), the
 * judgement made there and the rows written in it. The way of a refusal the batch does not write
 * (a deny judged with the spend or under a mandate, or no consent of the wallet's owner: 409
 * `AGENT_WALLET_CONSENT_REQUIRED`, nothing stored), and of a batch whose conditions kept failing (reserve.ts).
 */
import { scheduleJob } from '../../../jobs/outbox'
import { ConflictError } from '../../../lib/errors'
import { newId } from '../../../lib/ids'
import type { Scope } from '../agents/credentials'
import { CONSENT_REQUIRED, walletConsentRefusal } from '../agents/wallet-consent'
import { recordChange } from '../changes'
import { judgeIn, withMandate } from '../policies/judging'
import * as repo from '../repo'
import type { ExecutionStatus } from '../record-types'
import type { AgentRow, ApprovalRow, ExecutionRow, MandateRow, MerchantRow } from '../schema'
import { APPROVAL_EXPIRE_TOPIC } from '../topics'
import { approvalView, executionChangeView } from '../views'
import type { CreateExecution } from './execution-model'
import { watchPayment } from './moves'
import { awaitConfirmation } from './pay'

export interface InTransactionInput {
  input: CreateExecution
  key: string | undefined
  agent0: AgentRow
  merchant0: MerchantRow | undefined
  mandate0: MandateRow | undefined
  network: string
  /** the execution row at `now` but for what the judgement decides */
  rowAt: (agent: AgentRow, now: number) => Omit<ExecutionRow, 'policyId' | 'policyVersion' | 'status' | 'decision' | 'reasons' | 'completedAt'>
}

/** `fresh` false: an execution with the idempotency key was there already (answered as it is). */
export async function reserveInTransaction(scope: Scope, x: InTransactionInput): Promise<{ row: ExecutionRow; fresh: boolean }> {
  const { input, key, agent0, merchant0, mandate0, network } = x
  const now = scope.deps.clock.now()
  return scope.deps.database.write(async (tx) => {
    if (key) {
      const again = await repo.findExecutionByKey(tx, scope.tenantId, key)
      if (again) return { row: again, fresh: false }
    }
    // judge and reserve: the agent, policy, merchant and the windows' sums read in this transaction
    const agent = (await repo.findAgent(tx, scope.tenantId, agent0.id))!
    // the wallet's owner consented (or the tenant manages its users' wallets), read in this write: else nothing is stored or paid
    const refusal = await walletConsentRefusal(scope, tx, agent)
    if (refusal) throw new ConflictError(refusal, { code: CONSENT_REQUIRED })
    const merchant = merchant0 ? await repo.findMerchant(tx, scope.tenantId, merchant0.id) : undefined
    const policyJudgement = await judgeIn(tx, scope.tenantId, { agent, merchant, amount: input.amount, currency: input.currency, rail: input.rail, network, now })
    const j = mandate0 ? (await withMandate(
      tx, scope.tenantId, mandate0.id, policyJudgement,
      { agentId: agent.id, merchantId: merchant0?.id ?? null, merchantCategory: merchant?.category ?? null, amount: input.amount, currency: input.currency, now },
    )) : policyJudgement
    // a human-present mandate: allowed payments wait for that human's confirmation (route 40)
    const status: ExecutionStatus = j.decision === 'deny' ? 'rejected' : j.decision === 'require_approval' ? 'requires_approval' : mandate0?.humanPresent ? 'requires_confirmation' : 'processing'
    const r: ExecutionRow = {
      ...x.rowAt(agent, now), policyId: j.policy?.id ?? null, policyVersion: j.policy?.version ?? null,
      status, decision: j.decision, reasons: j.reasons, completedAt: status === 'rejected' ? now : null,
    }
    await repo.insertExecution(tx, r)
    await recordChange(tx, scope, { resourceType: 'execution', resourceId: r.id, change: 'created', before: null, after: executionChangeView(r), environments: [r.environment] }, now)
    if (status === 'processing') await watchPayment(tx, scope.tenantId, r.id, now)
    if (status === 'requires_confirmation') await awaitConfirmation(tx, scope.deps, scope.tenantId, r.id, now)
    if (status === 'requires_approval') {
      const a: ApprovalRow = {
        id: newId(), tenantId: scope.tenantId, executionId: r.id, agentId: r.agentId, status: 'pending',
        reasons: j.reasons, note: null, decidedBy: null,
        expiresAt: now + scope.deps.config.agentPaymentsApprovalTtlMs, createdAt: now, decidedAt: null,
      }
      await repo.insertApproval(tx, a)
      await recordChange(tx, scope, { resourceType: 'approval', resourceId: a.id, change: 'created', before: null, after: approvalView(a), environments: [r.environment] }, now)
      await scheduleJob(tx, { id: `ap-approval-expire:${a.id}`, topic: APPROVAL_EXPIRE_TOPIC, tenantId: scope.tenantId, payload: { approvalId: a.id }, runAt: a.expiresAt }, now)
    }
    return { row: r, fresh: true }
  })
}
