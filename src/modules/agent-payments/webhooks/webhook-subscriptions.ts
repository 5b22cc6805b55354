/**
 * The group's own webhook subscriptions (routes 48-53). Stored and delivered by the
 * webhooks module (owner `agent_payments`, webhooks/subscriptions.ts): the same signing,
 * retries, address checks and delivery log as the tenant's platform webhook. Every change
 * is audited (`webhook`) in its transaction; the events themselves are fanned out by
 * recordChange (changes.ts).
 */
import { BadRequestError, NotFoundError } from '../../../lib/errors'
import { iso } from '../../../lib/clock'
import * as subs from '../../webhooks'
import type { WebhookRow } from '../../webhooks'
import { recordChange } from '../changes'
import type { Scope } from '../agents/credentials'
import type { CreateApWebhook, UpdateApWebhook } from './webhook-model'

const OWNER = 'agent_payments'

function webhookView(row: WebhookRow) {
  return {
    id: row.id, url: row.url, eventTypes: row.eventTypes, enabled: row.status === 'active', secretHint: row.secretHint,
    createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt),
  }
}

function checkUrl(scope: Scope, raw: string) {
  try {
    return subs.checkSubscriptionUrl(scope.deps, raw)
  } catch (err) {
    if (err instanceof subs.AddressRefused) throw new BadRequestError(err.message, { code: 'AGENT_PAYMENTS_WEBHOOK_INVALID', details: { field: 'url', reason: err.reason } })
    throw err
  }
}

async function visibleWebhook(scope: Scope, webhookId: string) {
  const row = await subs.findSubscription(scope.deps.database.db, scope.tenantId, OWNER, webhookId)
  if (!row) throw new NotFoundError('Webhook not found')
  return row
}

export async function createWebhook(scope: Scope, input: CreateApWebhook) {
  const url = checkUrl(scope, input.url)
  const now = scope.deps.clock.now()
  return scope.deps.database.write(async (tx) => {
    const { row, secret } = await subs.insertSubscription(tx, scope.deps, scope.tenantId, OWNER, { url, eventTypes: [...new Set(input.eventTypes)], enabled: true }, now)
    await recordChange(tx, scope, { resourceType: 'webhook', resourceId: row.id, change: 'created', before: null, after: webhookView(row), environments: [] }, now)
    return { ...webhookView(row), secret }
  })
}

export async function listWebhooks(scope: Scope, q: { limit?: number; offset?: number }) {
  const { rows, total } = await subs.listSubscriptions(scope.deps.database.db, scope.tenantId, OWNER, q.limit ?? 50, q.offset ?? 0)
  return { data: rows.map(webhookView), total }
}

export async function getWebhook(scope: Scope, webhookId: string) {
  return webhookView(await visibleWebhook(scope, webhookId))
}

export async function updateWebhook(scope: Scope, webhookId: string, input: UpdateApWebhook) {
  const url = input.url === undefined ? undefined : checkUrl(scope, input.url)
  const now = scope.deps.clock.now()
  return scope.deps.database.write(async (tx) => {
    const before = await subs.findSubscription(tx, scope.tenantId, OWNER, webhookId)
    if (!before) throw new NotFoundError('Webhook not found')
    const next = {
      url: url ?? before.url,
      eventTypes: input.eventTypes ? [...new Set(input.eventTypes)] : before.eventTypes,
      status: input.enabled === undefined ? before.status : input.enabled ? 'active' as const : 'disabled' as const,
    }
    const after = await subs.updateSubscription(tx, scope.tenantId, before, next, now)
    await recordChange(tx, scope, { resourceType: 'webhook', resourceId: before.id, change: 'updated', before: webhookView(before), after: webhookView(after), environments: [] }, now)
    return webhookView(after)
  })
}

export async function removeWebhook(scope: Scope, webhookId: string) {
  const now = scope.deps.clock.now()
  await scope.deps.database.write(async (tx) => {
    const row = await subs.findSubscription(tx, scope.tenantId, OWNER, webhookId)
    if (!row) throw new NotFoundError('Webhook not found')
    await subs.removeSubscription(tx, scope.tenantId, row, now)
    await recordChange(tx, scope, { resourceType: 'webhook', resourceId: row.id, change: 'deleted', before: webhookView(row), after: null, environments: [] }, now)
  })
}

export async function listDeliveries(scope: Scope, webhookId: string, q: { limit?: number; offset?: number }) {
  // a removed subscription answers 404: its deliveries stay in the platform's log tables only
  const hook = await visibleWebhook(scope, webhookId)
  const { rows, total } = await subs.subscriptionDeliveries(scope.deps.database.db, scope.tenantId, OWNER, hook.id, q.limit ?? 50, q.offset ?? 0)
  return {
    data: rows.map((r) => ({
      id: r.id, type: r.type, environment: r.environment, status: r.status, attempts: r.attempts, lastStatusCode: r.lastStatusCode, lastError: r.lastError,
      nextAttemptAt: r.nextAttemptAt === null ? null : iso(r.nextAttemptAt), createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt),
      attemptLog: r.attemptLog.map((a) => ({ attempt: a.attempt, at: iso(a.at), statusCode: a.statusCode, error: a.error, durationMs: a.durationMs })),
    })),
    total,
  }
}
