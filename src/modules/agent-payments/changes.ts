/**
 * Every change of the group goes through `recordChange`, inside the write transaction that
 * makes it: one audit entry (who, what, before and after) and one tenant webhook event
 * `agent_payments.<resource>.<change>` per environment it concerns, so none exists without
 * the others; the group's own enabled subscriptions whose types match get it as well
 * (publishToOwned). A subscription's own changes (`webhook`) are audited only. The views passed in never hold a secret or a key hash (views.ts).
 */
import type { Executor, InStatement, Tx } from '../../db/client'
import { newId } from '../../lib/ids'
import { eventStatements, publishEvent, publishToOwned, type EventTargets } from '../webhooks'
import type { Scope } from './agents/credentials'
import { insertAudit, insertAuditStatement } from './repo'
import type { ApEnvironment } from './record-types'

export { AGENT_PAYMENTS_EVENT_TYPES } from './event-types'

export type ResourceType = 'agent' | 'agent_api_key' | 'policy' | 'merchant' | 'merchant_api_key' | 'mandate' | 'execution' | 'approval' | 'shopper' | 'webhook'


/**
 * Where events go: agents and merchants (and their keys) to the environment of their money
 * (their `environment`); a policy is not bound to one, so its events go to both.
 */
export const BOTH_ENVIRONMENTS: ApEnvironment[] = ['production', 'sandbox']

export interface Change {
  resourceType: ResourceType
  resourceId: string
  change: string
  before: Record<string, unknown> | null
  after: Record<string, unknown> | null
  environments: ApEnvironment[]
}

const auditRow = (scope: Scope, c: Change, action: string, now: number) => ({
  id: newId(), tenantId: scope.tenantId, actorType: scope.actor.type, actorId: scope.actor.id, action,
  resourceType: c.resourceType, resourceId: c.resourceId, before: c.before, after: c.after, requestId: scope.requestId, createdAt: now,
})
const eventData = (scope: Scope, c: Change) => ({ ...(c.after ?? c.before ?? {}), actor: { type: scope.actor.type, id: scope.actor.id } })

export async function recordChange(tx: Tx, scope: Scope, c: Change, now: number) {
  const action = `${c.resourceType}.${c.change}`
  await insertAudit(tx, auditRow(scope, c, action, now))
  const data = eventData(scope, c)
  for (const environment of c.environments) {
    const event = { tenantId: scope.tenantId, environment, type: `agent_payments.${action}`, data, occurredAt: now }
    await publishEvent(tx, event, now)
    // the group's own subscriptions (routes 48-53) get it too, same transaction
    await publishToOwned(tx, 'agent_payments', event, now)
  }
}

/**
 * `recordChange` as statements of a write batch (`Database.writeBatch`): the audit entry and each
 * environment's events to the webhooks read before the batch (`eventTargets(db, tenant, environments,
 * 'agent_payments')`). The caller calls `jobsScheduled()` once the batch committed.
 */
export function changeStatements(db: Executor, scope: Scope, c: Change, targets: EventTargets, now: number): InStatement[] {
  const action = `${c.resourceType}.${c.change}`
  const data = eventData(scope, c)
  return [
    insertAuditStatement(db, auditRow(scope, c, action, now)),
    ...c.environments.flatMap((environment) => eventStatements(db, targets, { tenantId: scope.tenantId, environment, type: `agent_payments.${action}`, data, occurredAt: now }, now)),
  ]
}
