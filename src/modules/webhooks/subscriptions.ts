/**
 * Webhooks owned by another module (today the agent payments group's own subscriptions,
 * owner `agent_payments`): stored in the `webhooks` table with their owner, delivered by
 * the same pipeline as the tenant's platform webhook (schedule.ts, jobs.ts: signing,
 * retries, address checks at every attempt, the delivery log). The owning module checks
 * who may act and audits; these verbs only store, and write inside the caller's
 * transaction so the owner's audit entry commits with the change.
 */
import type { Deps } from '../../deps'
import type { Executor, Tx } from '../../db/client'
import { newId } from '../../lib/ids'
import { normalizeWebhookUrl } from './address'
import * as repo from './repo'
import type { DeliveryRow, WebhookRow } from './repo'
import type { WebhookOwner } from './schema'
import { sealSecret } from './secrets'
import { newWebhookSecret, secretHint } from './signature'

export type { WebhookRow, DeliveryRow, AttemptRow } from './repo'
export { AddressRefused } from './address'

/** An address checked by the platform webhook's rules (https, public DNS name, no reserved domain but WEBHOOK_DEV_ROUTES hosts). Throws AddressRefused. */
export function checkSubscriptionUrl(deps: Pick<Deps, 'config'>, raw: string): string {
  return normalizeWebhookUrl(raw, new Set(Object.keys(deps.config.webhookDevRoutes)))
}

/** A new subscription with a fresh secret, answered once (only its sealed form and hint are kept). */
export async function insertSubscription(tx: Tx, deps: Pick<Deps, 'sealer'>, tenantId: string, owner: WebhookOwner, input: { url: string; eventTypes: string[]; enabled: boolean }, now: number) {
  const id = newId()
  const secret = newWebhookSecret()
  const row: WebhookRow = {
    id, tenantId, owner, environment: 'production', url: input.url, eventTypes: input.eventTypes, status: input.enabled ? 'active' : 'disabled',
    secretSealed: sealSecret(deps, tenantId, id, secret), secretHint: secretHint(secret), createdAt: now, updatedAt: now,
  }
  await repo.insertWebhook(tx, tenantId, row)
  return { row, secret }
}

export const findSubscription = (db: Executor, tenantId: string, owner: WebhookOwner, id: string) => repo.findOwnedWebhook(db, tenantId, owner, id)

export const listSubscriptions = (db: Executor, tenantId: string, owner: WebhookOwner, limit: number, offset: number) => repo.listOwnedWebhooks(db, tenantId, owner, limit, offset)

/** Changes url, types or status; a subscription switched off drops its waiting deliveries (changes made meanwhile are not sent later). */
export async function updateSubscription(tx: Tx, tenantId: string, before: WebhookRow, next: Pick<WebhookRow, 'url' | 'eventTypes' | 'status'>, now: number) {
  await repo.updateWebhook(tx, tenantId, before.id, { ...next, updatedAt: now })
  if (before.status === 'active' && next.status === 'disabled') await repo.dropWaitingDeliveries(tx, tenantId, before.id, 'webhook disabled', now)
  return { ...before, ...next, updatedAt: now }
}

/** Removes the subscription and its sealed secret; waiting deliveries are dropped (the log keeps them). */
export async function removeSubscription(tx: Tx, tenantId: string, row: WebhookRow, now: number) {
  await repo.dropWaitingDeliveries(tx, tenantId, row.id, 'webhook removed', now)
  await repo.deleteWebhook(tx, tenantId, row.id)
}

/** One page of the subscription's deliveries, newest first, each with its attempts. */
export async function subscriptionDeliveries(db: Executor, tenantId: string, owner: WebhookOwner, webhookId: string, limit: number, offset: number) {
  const { rows, total } = await repo.listWebhookDeliveries(db, tenantId, owner, webhookId, limit, offset)
  const attempts = await repo.attemptsOf(db, tenantId, rows.map((r: DeliveryRow) => r.id))
  return { rows: rows.map((r) => ({ ...r, attemptLog: attempts.filter((a) => a.deliveryId === r.id) })), total }
}
