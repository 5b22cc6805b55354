/** Webhook administration: save, read, remove, replace the secret, test, delivery log, re-queue. */
import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Tx } from '../../db/client'
import { AppError, NotFoundError, ConflictError, ValidationError } from '../../http/errors'
import { scheduleJob } from '../../jobs/outbox'
import { iso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { recordActivity } from '../activity/repo'
import type { Ctx } from '../../context'
import { operatorTenant, settingsOf } from '../tenants/service'
import { AddressRefused, normalizeWebhookUrl } from './address'
import { attemptJobId, DELIVER_TOPIC, eventBody, newEventId, TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES, type DeliveryJobPayload } from './publish'
import { webhookDeliveries, webhookDeliveryAttempts, webhooks, type WebhookEnvironment } from './schema'
import { newWebhookSecret, secretHint } from './signature'
import { sealSecret } from './secrets'

type WebhookRow = typeof webhooks.$inferSelect

export interface SaveWebhookInput {
  url?: string
  eventTypes?: string[]
  status?: 'active' | 'disabled'
}

export function webhookView(row: WebhookRow) {
  return {
    id: row.id,
    environment: row.environment,
    url: row.url,
    eventTypes: row.eventTypes,
    status: row.status,
    secretHint: row.secretHint,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  }
}

const invalidAddress = (reason: string, message: string) =>
  new AppError(400, 'BadRequestError', message, { details: { code: 'RAMP_WEBHOOK_INVALID', field: 'url', reason } })

async function findWebhook(db: Tx | Ctx['deps']['database']['db'], tenantId: string, environment: WebhookEnvironment) {
  return db.select().from(webhooks).where(and(eq(webhooks.tenantId, tenantId), eq(webhooks.environment, environment))).get()
}

async function requireWebhook(ctx: Ctx, tenantId: string, environment: WebhookEnvironment) {
  const tenant = await operatorTenant(ctx, tenantId)
  const hook = await findWebhook(ctx.deps.database.db, tenant.id, environment)
  if (!hook) throw new NotFoundError('Webhook not found')
  return { tenant, hook }
}

/** Drops the deliveries still waiting for an attempt (webhook disabled or removed). */
async function dropWaiting(tx: Tx, tenantId: string, webhookId: string, reason: string, now: number) {
  await tx.update(webhookDeliveries).set({ status: 'dropped', lastError: reason, nextAttemptAt: null, updatedAt: now })
    .where(and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.status, 'queued')))
}

export async function saveWebhook(ctx: Ctx, tenantId: string, environment: WebhookEnvironment, input: SaveWebhookInput) {
  const { deps } = ctx
  const tenant = await operatorTenant(ctx, tenantId)
  if (!settingsOf(ctx, tenant).bankRamp[environment].connected) {
    throw new AppError(503, 'RampApiError', `The bank ramp is not connected for this tenant in ${environment}`, { details: { code: 'RAMP_NOT_CONFIGURED', environment } })
  }
  let url: string | undefined
  if (input.url !== undefined) {
    try {
      url = normalizeWebhookUrl(input.url, new Set(Object.keys(deps.config.webhookDevRoutes)))
    } catch (err) {
      if (err instanceof AddressRefused) throw invalidAddress(err.reason, err.message)
      throw err
    }
  }
  if (input.eventTypes) {
    const unknown = input.eventTypes.map((type, i) => ({ type, i })).filter(({ type }) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type))
    if (unknown.length) throw new ValidationError(unknown.map(({ type, i }) => ({ path: `/eventTypes/${i}`, message: `Unknown event type ${type}; known types: ${WEBHOOK_EVENT_TYPES.join(', ')}` })))
  }
  const eventTypes = input.eventTypes ? [...new Set(input.eventTypes)] : undefined
  const now = deps.clock.now()
  return deps.database.write(async (tx) => {
    const existing = await findWebhook(tx, tenant.id, environment)
    if (!existing) {
      if (!url) throw invalidAddress('required', 'url is required when the webhook is first saved')
      const id = newId()
      const secret = newWebhookSecret()
      const row: WebhookRow = {
        id, tenantId: tenant.id, environment, url, eventTypes: eventTypes ?? [], status: input.status ?? 'active',
        secretSealed: sealSecret(deps, tenant.id, id, secret), secretHint: secretHint(secret), createdAt: now, updatedAt: now,
      }
      await tx.insert(webhooks).values(row)
      await recordActivity(tx, {
        tenantId: tenant.id, actor: ctx.actor, action: 'webhook.created', targetType: 'webhook', targetId: id,
        details: { environment, url, eventTypes: row.eventTypes, status: row.status }, requestId: ctx.requestId, at: now,
      })
      return { created: true, record: { ...webhookView(row), secret } }
    }
    const next: WebhookRow = {
      ...existing,
      url: url ?? existing.url,
      eventTypes: eventTypes ?? existing.eventTypes,
      status: input.status ?? existing.status,
      updatedAt: now,
    }
    const changed: Record<string, unknown> = {}
    if (next.url !== existing.url) changed.url = next.url
    if (JSON.stringify(next.eventTypes) !== JSON.stringify(existing.eventTypes)) changed.eventTypes = next.eventTypes
    if (next.status !== existing.status) changed.status = next.status
    await tx.update(webhooks).set({ url: next.url, eventTypes: next.eventTypes, status: next.status, updatedAt: now })
      .where(and(eq(webhooks.tenantId, tenant.id), eq(webhooks.id, existing.id)))
    // Spec: changes made while switched off are not sent later; waiting deliveries are dropped.
    if (existing.status === 'active' && next.status === 'disabled') await dropWaiting(tx, tenant.id, existing.id, 'webhook disabled', now)
    await recordActivity(tx, {
      tenantId: tenant.id, actor: ctx.actor, action: 'webhook.updated', targetType: 'webhook', targetId: existing.id,
      details: { environment, changed }, requestId: ctx.requestId, at: now,
    })
    return { created: false, record: webhookView(next) }
  })
}

export async function getWebhook(ctx: Ctx, tenantId: string, environment: WebhookEnvironment) {
  const { hook } = await requireWebhook(ctx, tenantId, environment)
  return webhookView(hook)
}

export async function removeWebhook(ctx: Ctx, tenantId: string, environment: WebhookEnvironment) {
  const { tenant, hook } = await requireWebhook(ctx, tenantId, environment)
  const now = ctx.deps.clock.now()
  await ctx.deps.database.write(async (tx) => {
    await dropWaiting(tx, tenant.id, hook.id, 'webhook removed', now)
    // The sealed secret goes with the row; a later save creates a new secret.
    await tx.delete(webhooks).where(and(eq(webhooks.tenantId, tenant.id), eq(webhooks.id, hook.id)))
    await recordActivity(tx, {
      tenantId: tenant.id, actor: ctx.actor, action: 'webhook.removed', targetType: 'webhook', targetId: hook.id,
      details: { environment, url: hook.url }, requestId: ctx.requestId, at: now,
    })
  })
}

export async function rotateWebhookSecret(ctx: Ctx, tenantId: string, environment: WebhookEnvironment) {
  const { deps } = ctx
  const { tenant, hook } = await requireWebhook(ctx, tenantId, environment)
  const now = deps.clock.now()
  const secret = newWebhookSecret()
  const row: WebhookRow = { ...hook, secretSealed: sealSecret(deps, tenant.id, hook.id, secret), secretHint: secretHint(secret), updatedAt: now }
  await deps.database.write(async (tx) => {
    await tx.update(webhooks).set({ secretSealed: row.secretSealed, secretHint: row.secretHint, updatedAt: now })
      .where(and(eq(webhooks.tenantId, tenant.id), eq(webhooks.id, hook.id)))
    await recordActivity(tx, {
      tenantId: tenant.id, actor: ctx.actor, action: 'webhook.secret_replaced', targetType: 'webhook', targetId: hook.id,
      details: { environment, secretHint: row.secretHint }, requestId: ctx.requestId, at: now,
    })
  })
  return { ...webhookView(row), secret }
}

/** A `webhook.test` delivery: one attempt, now, also while disabled, never retried. */
export async function sendTest(ctx: Ctx, tenantId: string, environment: WebhookEnvironment) {
  const { deps } = ctx
  const { tenant, hook } = await requireWebhook(ctx, tenantId, environment)
  const now = deps.clock.now()
  const id = newEventId()
  const data = { tenantId: tenant.id, webhookId: hook.id, message: 'This is a test delivery from Slipway.' }
  await deps.database.write(async (tx) => {
    await tx.insert(webhookDeliveries).values({
      id, tenantId: tenant.id, environment, webhookId: hook.id, type: TEST_EVENT_TYPE,
      body: eventBody(id, TEST_EVENT_TYPE, environment, now, now, data),
      status: 'queued', round: 1, attempts: 0, maxAttempts: 1, nextAttemptAt: now, createdAt: now, updatedAt: now,
    })
    const payload: DeliveryJobPayload = { deliveryId: id, round: 1, attempt: 1 }
    await scheduleJob(tx, { topic: DELIVER_TOPIC, payload, tenantId: tenant.id, runAt: now, id: attemptJobId(id, 1, 1) }, now)
    await recordActivity(tx, {
      tenantId: tenant.id, actor: ctx.actor, action: 'webhook.tested', targetType: 'webhook', targetId: hook.id,
      details: { environment, deliveryId: id }, requestId: ctx.requestId, at: now,
    })
  })
  return { id }
}

export async function listDeliveries(ctx: Ctx, tenantId: string, environment: WebhookEnvironment, limit: number, offset: number) {
  const { db } = ctx.deps.database
  const tenant = await operatorTenant(ctx, tenantId)
  // The log covers this environment's deliveries, including those of a webhook since removed.
  const where = and(eq(webhookDeliveries.tenantId, tenant.id), eq(webhookDeliveries.environment, environment))
  const [rows, [count]] = await Promise.all([
    db.select().from(webhookDeliveries).where(where).orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id)).limit(limit).offset(offset),
    db.select({ n: sql<number>`count(*)` }).from(webhookDeliveries).where(where),
  ])
  const attempts = rows.length
    ? await db.select().from(webhookDeliveryAttempts).where(and(eq(webhookDeliveryAttempts.tenantId, tenant.id), inArray(webhookDeliveryAttempts.deliveryId, rows.map((r) => r.id))))
      .orderBy(webhookDeliveryAttempts.at, webhookDeliveryAttempts.round, webhookDeliveryAttempts.attempt)
    : []
  const data = rows.map((r) => ({
    id: r.id,
    type: r.type,
    status: r.status,
    attempts: r.attempts,
    lastStatusCode: r.lastStatusCode,
    lastError: r.lastError,
    nextAttemptAt: r.nextAttemptAt === null ? null : iso(r.nextAttemptAt),
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
    attemptLog: attempts.filter((a) => a.deliveryId === r.id).map((a) => ({
      round: a.round, attempt: a.attempt, at: iso(a.at), statusCode: a.statusCode, error: a.error, durationMs: a.durationMs,
    })),
  }))
  return { data, total: Number(count?.n ?? 0) }
}

/** Re-queues a stopped (failed or dropped) delivery with the same id: a new round of up to 10 attempts. */
export async function requeueDelivery(ctx: Ctx, tenantId: string, environment: WebhookEnvironment, deliveryId: string) {
  const { deps } = ctx
  const { tenant, hook } = await requireWebhook(ctx, tenantId, environment)
  const now = deps.clock.now()
  return deps.database.write(async (tx) => {
    const d = await tx.select().from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.tenantId, tenant.id), eq(webhookDeliveries.environment, environment), eq(webhookDeliveries.id, deliveryId))).get()
    if (!d) throw new NotFoundError('Delivery not found')
    if (d.status === 'queued' || d.status === 'done') throw new ConflictError(`The delivery is ${d.status}; only a failed or dropped delivery can be re-queued`)
    if (d.type === TEST_EVENT_TYPE) throw new ConflictError('A test delivery is never retried; send a new test')
    const round = d.round + 1
    // The current webhook (a re-created one included) receives it; the body and id stay the same.
    await tx.update(webhookDeliveries).set({
      status: 'queued', round, attempts: 0, maxAttempts: 10, webhookId: hook.id, lastError: null, lastStatusCode: null, nextAttemptAt: now, updatedAt: now,
    }).where(and(eq(webhookDeliveries.tenantId, tenant.id), eq(webhookDeliveries.id, d.id)))
    const payload: DeliveryJobPayload = { deliveryId: d.id, round, attempt: 1 }
    await scheduleJob(tx, { topic: DELIVER_TOPIC, payload, tenantId: tenant.id, runAt: now, id: attemptJobId(d.id, round, 1) }, now)
    await recordActivity(tx, {
      tenantId: tenant.id, actor: ctx.actor, action: 'webhook.delivery_requeued', targetType: 'webhook_delivery', targetId: d.id,
      details: { environment, type: d.type }, requestId: ctx.requestId, at: now,
    })
    return { id: d.id, status: 'queued' as const }
  })
}
