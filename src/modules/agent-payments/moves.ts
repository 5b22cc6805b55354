/** An execution's moves, each audited and published in the write transaction that makes it (shared by both rails). */
import type { Tx } from '../../db/client'
import type { Scope } from './credentials'
import { recordChange } from './changes'
import { mandateAfterPayment } from './mandate-check'
import { transitionMandate } from './mandates'
import { fromUnits, toUnits } from './policy'
import * as repo from './repo'
import type { ExecutionRow } from './schema'
import { executionView } from './views'

/** An execution's move, audited and published in the transaction that makes it. */
export async function moveExecution(tx: Tx, scope: Scope, before: ExecutionRow, changes: Partial<ExecutionRow>, change: string, now: number): Promise<ExecutionRow> {
  const after: ExecutionRow = { ...before, ...changes, updatedAt: now }
  await repo.updateExecution(tx, scope.tenantId, before.id, { ...changes, updatedAt: now })
  await recordChange(tx, scope, { resourceType: 'execution', resourceId: before.id, change, before: executionView(before), after: executionView(after), environments: [before.environment] }, now)
  return after
}

/** A paid execution under a mandate: a cart mandate is consumed, a budget or occurrences used up exhausts it (in the payment's transaction). */
export async function afterMandatePayment(tx: Tx, scope: Scope, mandateId: string, now: number) {
  const mandate = await repo.findMandate(tx, scope.tenantId, mandateId)
  if (!mandate || mandate.status !== 'active') return
  const used = await repo.mandateExecutions(tx, scope.tenantId, mandateId)
  const next = mandateAfterPayment(mandate, { spentUnderMandate: fromUnits(used.reduce((sum, e) => sum + toUnits(e.amount), 0n)), occurrencesUsed: used.length })
  if (next !== mandate.status) await transitionMandate(tx, scope, mandate, next, now)
}
