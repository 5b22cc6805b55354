/**
 * Approvals (routes 44-47): an execution its policy sent for approval waits for a tenant
 * admin, holding its amount in the windows it was judged in; approving judges the policy and the
 * mandate again in the approving transaction, in the windows containing now, where it counts from
 * then on (`countedAt`), then pays it, or makes it wait for its
 * human's confirmation under a human-present mandate; rejecting ends it.
 */
import type { Tx } from '../../../db/client'
import { ConflictError, NotFoundError } from '../../../lib/errors'
import { recordChange } from '../changes'
import type { Scope } from '../agents/credentials'
import { judgeAgain } from '../policies/judging'
import { awaitConfirmation, moveExecution, payExecution } from './pay'
import * as repo from '../repo'
import type { ApprovalRow, ExecutionRow } from '../schema'
import type { ApprovalStatus } from '../record-types'
import { approvalView } from '../views'

const approvalNotFound = () => new NotFoundError('Approval not found')

export async function moveApproval(tx: Tx, scope: Scope, before: ApprovalRow, changes: Partial<ApprovalRow>, change: ApprovalStatus, environment: ExecutionRow['environment'], now: number) {
  const after: ApprovalRow = { ...before, ...changes, status: change }
  await repo.updateApproval(tx, scope.tenantId, before.id, { ...changes, status: change })
  await recordChange(tx, scope, { resourceType: 'approval', resourceId: before.id, change, before: approvalView(before), after: approvalView(after), environments: [environment] }, now)
  return after
}

async function visibleApproval(scope: Scope, id: string) {
  const row = await repo.findApproval(scope.deps.database.db, scope.tenantId, id)
  if (!row) throw approvalNotFound()
  return row
}

export async function listApprovals(scope: Scope, q: { status?: ApprovalStatus; limit?: number; offset?: number }) {
  const { rows, total } = await repo.listApprovals(scope.deps.database.db, scope.tenantId, { status: q.status, limit: q.limit ?? 50, offset: q.offset ?? 0 })
  return { data: rows.map(approvalView), total }
}

export async function getApproval(scope: Scope, id: string) {
  return approvalView(await visibleApproval(scope, id))
}

/**
 * Route 46: the execution proceeds. The limits are judged again in the approving transaction,
 * in the windows containing now (past the policy's midnight, a new day's): a deny answers 409
 * `APPROVAL_LIMIT_EXCEEDED` with the reasons and leaves the approval pending (still holding its
 * amount where it was judged); else the execution counts from now in those windows
 * (`processing`) and is paid.
 */
export async function approve(scope: Scope, id: string, input: { note?: string }) {
  await visibleApproval(scope, id)
  const now = scope.deps.clock.now()
  const { approval, execution } = await scope.deps.database.write(async (tx) => {
    const a = (await repo.findApproval(tx, scope.tenantId, id))!
    if (a.status !== 'pending') throw new ConflictError(`The approval is ${a.status}`, { code: 'APPROVAL_STATE_INVALID' })
    const row = (await repo.findExecution(tx, scope.tenantId, a.executionId))!
    // judged again now, in the windows containing now, and counted there from now on (`countedAt`)
    const j = await judgeAgain(tx, scope.tenantId, row, now)
    if (j.decision === 'deny') throw new ConflictError('The payment no longer passes its policy or mandate', { code: 'APPROVAL_LIMIT_EXCEEDED', details: { reasons: j.reasons } })
    const approval = await moveApproval(tx, scope, a, { note: input.note ?? null, decidedBy: scope.actor.id, decidedAt: now }, 'approved', row.environment, now)
    // under a human-present mandate, an approved payment still waits for that human's confirmation
    const human = row.mandateId ? (await repo.findMandate(tx, scope.tenantId, row.mandateId))?.humanPresent === true : false
    const next = human ? 'requires_confirmation' as const : 'processing' as const
    const execution = await moveExecution(tx, scope, row, { status: next, policyId: j.policy?.id ?? null, policyVersion: j.policy?.version ?? null, countedAt: now }, next, now)
    if (human) await awaitConfirmation(tx, scope.deps, scope.tenantId, row.id, now)
    return { approval, execution }
  })
  if (execution.status === 'processing') await payExecution(scope.deps, scope.tenantId, execution.id, scope)
  return approvalView(approval)
}

/** Route 47: the execution is `rejected`. */
export async function reject(scope: Scope, id: string, input: { reason?: string }) {
  await visibleApproval(scope, id)
  const now = scope.deps.clock.now()
  const approval = await scope.deps.database.write(async (tx) => {
    const a = (await repo.findApproval(tx, scope.tenantId, id))!
    if (a.status !== 'pending') throw new ConflictError(`The approval is ${a.status}`, { code: 'APPROVAL_STATE_INVALID' })
    const row = (await repo.findExecution(tx, scope.tenantId, a.executionId))!
    const out = await moveApproval(tx, scope, a, { note: input.reason ?? null, decidedBy: scope.actor.id, decidedAt: now }, 'rejected', row.environment, now)
    await moveExecution(tx, scope, row, {
      status: 'rejected', completedAt: now, reasons: [...row.reasons, { code: 'APPROVAL_REJECTED', message: input.reason ?? 'Rejected by a tenant admin' }],
    }, 'rejected', now)
    return out
  })
  return approvalView(approval)
}
