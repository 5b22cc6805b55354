/**
 * The `agent_payments.execution.watch` job: no execution stays reserved for nothing. Scheduled
 * WATCH_AFTER_MS after an execution enters `processing` (in that transaction), it looks at one
 * that is still `processing` with nothing following it:
 * - onchain, no send yet: its hold (`holdIdOf`, placed before the send, taken over by it) says
 *   what happened. A send took it over: the send is adopted and followed (the process stopped
 *   after the send was recorded). A hold still counting: looked at again when it expires. No
 *   hold, or one released or expired with no send: nothing was sent, and the execution fails with
 *   its reservation released.
 * - x402, no authorization stored: nothing was sent (the authorization is stored before its
 *   header leaves), so it fails the same way; one with an authorization is the settle job's.
 * The decision and the move are one write transaction, so a payment starting at the same moment
 * either sees the execution failed (and sends nothing) or has placed its hold (which is seen).
 */
import type { Deps } from '../../../deps'
import { scheduleJob } from '../../../jobs/outbox'
import { transactions, findTransaction } from '../../transactions'
import { systemScope } from '../agents/credentials'
import { holdIdOf, moveExecution } from './moves'
import * as repo from '../repo'
import { EXECUTION_FOLLOW_TOPIC, EXECUTION_WATCH_TOPIC } from '../topics'

const NOT_SENT = 'AGENT_PAYMENT_NOT_SENT: The payment was never sent (its process stopped before the send was recorded); the reservation is released'

export async function watchExecution(deps: Deps, tenantId: string | null | undefined, payload: Record<string, unknown>): Promise<void> {
  const id = String(payload.executionId)
  if (!tenantId) return
  const row = await repo.findExecution(deps.database.db, tenantId, id)
  if (!row || row.status !== 'processing' || (row.rail === 'x402' ? row.x402?.authorization : row.transactionId)) return
  const scope = await systemScope(deps, tenantId, `job:${EXECUTION_WATCH_TOPIC}:${id}`)
  const now = deps.clock.now()
  const again = await deps.database.write(async (tx) => {
    const cur = (await repo.findExecution(tx, tenantId, id))!
    if (cur.status !== 'processing' || (cur.rail === 'x402' ? cur.x402?.authorization : cur.transactionId)) return null
    if (cur.rail === 'onchain') {
      const hold = await transactions.findHold(tx, tenantId, holdIdOf(id))
      if (hold?.transactionId) {
        const send = (await findTransaction(tx, tenantId, hold.transactionId))!
        await repo.updateExecution(tx, tenantId, id, { transactionId: send.id, txHash: send.txHash, failureReason: null, updatedAt: now })
        await scheduleJob(tx, { id: `ap-execution-follow:${id}:adopted`, topic: EXECUTION_FOLLOW_TOPIC, tenantId, payload: { executionId: id, attempt: 1 }, runAt: now }, now)
        deps.logger.warn('agent payment: a send its process did not record on the execution was adopted', { executionId: id, transactionId: send.id })
        return null
      }
      if (hold && hold.releasedAt === null && hold.expiresAt > now) return hold.expiresAt + 1000
      await transactions.releaseHold(tx, tenantId, holdIdOf(id), now)
    }
    await moveExecution(tx, scope, cur, { status: 'failed', failureReason: NOT_SENT, completedAt: now }, 'failed', now)
    return null
  })
  if (again !== null) {
    await deps.database.write((tx) => scheduleJob(tx, { id: `ap-execution-watch:${id}:${again}`, topic: EXECUTION_WATCH_TOPIC, tenantId, payload: { executionId: id }, runAt: again }, now))
  }
}
