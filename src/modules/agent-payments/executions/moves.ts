/** An execution's moves, each audited and published in the write transaction that makes it (shared by both rails). */
import type { Tx } from '../../../db/client'
import { scheduleJob } from '../../../jobs/outbox'
import { EXECUTION_WATCH_TOPIC } from '../topics'
import type { Scope } from '../agents/credentials'
import { recordChange } from '../changes'
import { mandateAfterPayment } from '../mandates/mandate-check'
import { transitionMandate } from '../mandates/mandates'
import { fromUnits, toUnits } from '../policies/policy'
import * as repo from '../repo'
import type { ExecutionRow } from '../schema'
import { executionChangeView } from '../views'
import { RESERVED_STATUSES } from '../record-types'

/** The hold an onchain execution's send takes over: one per execution (its primary key makes a second send impossible). */
export const holdIdOf = (executionId: string) => `ap-exec:${executionId}`

/**
 * How long after an execution enters `processing` the watch job looks at it: past the time a
 * hold no send took over counts (HOLD_UNSENT_TTL_MS, 2 minutes) and every request's limits.
 */
export const WATCH_AFTER_MS = 180_000

/** Schedules the watch of an execution entering `processing` (in its transaction): paid, adopted or failed, never left reserved. */
export async function watchPayment(tx: Tx, tenantId: string, executionId: string, now: number) {
  await scheduleJob(tx, watchJob(tenantId, executionId, now), now)
}

/** The watch job of an execution entering `processing` at `now`. */
export const watchJob = (tenantId: string, executionId: string, now: number) =>
  ({ id: `ap-execution-watch:${executionId}:${now}`, topic: EXECUTION_WATCH_TOPIC, tenantId, payload: { executionId }, runAt: now + WATCH_AFTER_MS })

/** An execution's move, audited and published in the transaction that makes it. */
export async function moveExecution(tx: Tx, scope: Scope, before: ExecutionRow, changes: Partial<ExecutionRow>, change: string, now: number): Promise<ExecutionRow> {
  const after: ExecutionRow = { ...before, ...changes, updatedAt: now }
  await repo.updateExecution(tx, scope.tenantId, before.id, { ...changes, updatedAt: now })
  if (changes.status === 'processing' && before.status !== 'processing') await watchPayment(tx, scope.tenantId, before.id, now)
  await recordChange(
    tx, scope,
    { resourceType: 'execution', resourceId: before.id, change, before: executionChangeView(before), after: executionChangeView(after), environments: [before.environment] },
    now,
  )
  return after
}

/** A paid execution under a mandate: a cart mandate is consumed, a budget or occurrences used up exhausts it (in the payment's transaction). */
export async function afterMandatePayment(tx: Tx, scope: Scope, mandateId: string, now: number) {
  const mandate = await repo.findMandate(tx, scope.tenantId, mandateId)
  if (!mandate || mandate.status !== 'active') return
  // what payments used up (a payment still waiting holds its room but has not used it: it must stay payable)
  const used = await repo.mandateExecutions(tx, scope.tenantId, mandateId, RESERVED_STATUSES)
  const next = mandateAfterPayment(mandate, { spentUnderMandate: fromUnits(used.reduce((sum, e) => sum + toUnits(e.amount), 0n)), occurrencesUsed: used.length })
  if (next !== mandate.status) await transitionMandate(tx, scope, mandate, next, now)
}
