/**
 * Webhook administration: save, read, remove, replace the secret, test, delivery log,
 * re-queue. Each verb takes the request context, then the webhook it acts on (the
 * tenant and environment of the path), then its input.
 */
import { AppError, NotFoundError, ConflictError, ValidationError } from '../../lib/errors'
import type { Executor } from '../../db/client'
import { iso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { recordActivity } from '../activity'
import type { Actor, Ctx, VerbContext } from '../../context'
import { operatorTenant, settingsOf } from '../tenants'
import type { TenantRow } from '../tenants'
import { AddressRefused, normalizeWebhookUrl } from './address'
import { eventBody, newEventId, TEST_EVENT_TYPE } from './events'
import type { DeliveryTarget, SaveWebhook, WebhookTarget } from './model'
import * as repo from './repo'
import type { WebhookRow } from './repo'
import type { WebhookEnvironment } from './schema'
import { MAX_ATTEMPTS, queueDelivery, scheduleAttempt } from './schedule'
import { newWebhookSecret, secretHint } from './signature'
import { sealSecret } from './secrets'

function webhookView(row: WebhookRow) {
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

async function requireWebhook(ctx: Ctx, target: WebhookTarget) {
  const tenant = await operatorTenant(ctx, target.id)
  const hook = await repo.findWebhook(ctx.deps.database.db, tenant.id, target.environment)
  if (!hook) throw new NotFoundError('Webhook not found')
  return { tenant, hook }
}

/**
 * A verb's context when an operator's command on the server acts (`slipway webhooks
 * listen`): no signed-in actor, recorded as such in the activity log.
 */
export type CommandCtx = VerbContext<Actor | null>

/** `known`: the event types a webhook can ask for (WEBHOOK_EVENT_TYPES, src/services.ts). */
export async function saveWebhook(ctx: Ctx, target: WebhookTarget, input: SaveWebhook, known: readonly string[]) {
  const tenant = await operatorTenant(ctx, target.id)
  return saveTenantWebhook(ctx, tenant, target.environment, input, known)
}

/**
 * The hosts an address may use under a reserved top-level domain: WEBHOOK_DEV_ROUTES, and
 * for the sandbox (never under NODE_ENV=production) the tenant's own stored development routes.
 */
async function devHostsFor(ctx: CommandCtx, tenantId: string, environment: WebhookEnvironment): Promise<Set<string>> {
  const hosts = new Set(Object.keys(ctx.deps.config.webhookDevRoutes))
  if (environment === 'sandbox' && ctx.deps.config.nodeEnv !== 'production') {
    for (const host of await repo.devRouteHosts(ctx.deps.database.db, tenantId)) hosts.add(host)
  }
  return hosts
}

/**
 * `saveWebhook` for a tenant already found (the route's operator check done, or an operator's
 * command). Without `known`, no event type is known: a command that saves only the address
 * passes none, and types given anyway are refused rather than taken unchecked.
 */
export async function saveTenantWebhook(ctx: CommandCtx, tenant: TenantRow, environment: WebhookEnvironment, input: SaveWebhook, known: readonly string[] = []) {
  const { deps } = ctx
  // events come from the bank ramp and the card onramp: one of them must be connected in the environment
  const settings = settingsOf(ctx, tenant)
  const card = settings.cardOnramp.enabled && settings.cardOnramp[environment].connected
  if (!settings.bankRamp[environment].connected && !card) {
    throw new AppError(503, 'RampApiError', `Neither the bank ramp nor the card onramp is connected for this tenant in ${environment}`, { details: { code: 'RAMP_NOT_CONFIGURED', environment } })
  }
  let url: string | undefined
  if (input.url !== undefined) {
    try {
      url = normalizeWebhookUrl(input.url, await devHostsFor(ctx, tenant.id, environment))
    } catch (err) {
      if (err instanceof AddressRefused) throw invalidAddress(err.reason, err.message)
      throw err
    }
  }
  if (input.eventTypes) {
    const unknown = input.eventTypes.map((type, i) => ({ type, i })).filter(({ type }) => !known.includes(type))
    if (unknown.length) {
      throw new ValidationError(unknown.map(({ type, i }) => ({ path: `/eventTypes/${i}`, message: `Unknown event type ${type}; known types: ${known.join(', ')}` })))
    }
  }
  const eventTypes = input.eventTypes ? [...new Set(input.eventTypes)] : undefined
  const now = deps.clock.now()
  return deps.database.write(async (tx) => {
    const existing = await repo.findWebhook(tx, tenant.id, environment)
    if (!existing) {
      if (!url) throw invalidAddress('required', 'url is required when the webhook is first saved')
      const id = newId()
      const secret = newWebhookSecret()
      const row: WebhookRow = {
        id, tenantId: tenant.id, owner: 'platform', environment, url, eventTypes: eventTypes ?? [], status: input.status ?? 'active',
        secretSealed: sealSecret(deps, tenant.id, id, secret), secretHint: secretHint(secret), createdAt: now, updatedAt: now,
      }
      await repo.insertWebhook(tx, tenant.id, row)
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
    await repo.updateWebhook(tx, tenant.id, existing.id, { url: next.url, eventTypes: next.eventTypes, status: next.status, updatedAt: now })
    // Spec: changes made while switched off are not sent later; waiting deliveries are dropped.
    if (existing.status === 'active' && next.status === 'disabled') await repo.dropWaitingDeliveries(tx, tenant.id, existing.id, 'webhook disabled', now)
    await recordActivity(tx, {
      tenantId: tenant.id, actor: ctx.actor, action: 'webhook.updated', targetType: 'webhook', targetId: existing.id,
      details: { environment, changed }, requestId: ctx.requestId, at: now,
    })
    return { created: false, record: webhookView(next) }
  })
}

export async function getWebhook(ctx: Ctx, target: WebhookTarget) {
  const { hook } = await requireWebhook(ctx, target)
  return webhookView(hook)
}

export async function removeWebhook(ctx: Ctx, target: WebhookTarget) {
  const { tenant, hook } = await requireWebhook(ctx, target)
  await removeTenantWebhook(ctx, tenant.id, hook)
}

/** `removeWebhook` for a webhook already found (the route's operator check done, or an operator's command). */
export async function removeTenantWebhook(ctx: CommandCtx, tenantId: string, hook: WebhookRow) {
  const now = ctx.deps.clock.now()
  await ctx.deps.database.write(async (tx) => {
    await repo.dropWaitingDeliveries(tx, tenantId, hook.id, 'webhook removed', now)
    // The sealed secret goes with the row; a later save creates a new secret.
    await repo.deleteWebhook(tx, tenantId, hook.id)
    await recordActivity(tx, {
      tenantId, actor: ctx.actor, action: 'webhook.removed', targetType: 'webhook', targetId: hook.id,
      details: { environment: hook.environment, url: hook.url }, requestId: ctx.requestId, at: now,
    })
  })
}

export async function rotateWebhookSecret(ctx: Ctx, target: WebhookTarget) {
  const { deps } = ctx
  const { tenant, hook } = await requireWebhook(ctx, target)
  const now = deps.clock.now()
  const secret = newWebhookSecret()
  const row: WebhookRow = { ...hook, secretSealed: sealSecret(deps, tenant.id, hook.id, secret), secretHint: secretHint(secret), updatedAt: now }
  await deps.database.write(async (tx) => {
    await repo.updateWebhook(tx, tenant.id, hook.id, { secretSealed: row.secretSealed, secretHint: row.secretHint, updatedAt: now })
    await recordActivity(tx, {
      tenantId: tenant.id, actor: ctx.actor, action: 'webhook.secret_replaced', targetType: 'webhook', targetId: hook.id,
      details: { environment: target.environment, secretHint: row.secretHint }, requestId: ctx.requestId, at: now,
    })
  })
  return { ...webhookView(row), secret }
}

/** A `webhook.test` delivery: one attempt, now, also while disabled, never retried. */
export async function sendTest(ctx: Ctx, target: WebhookTarget) {
  const { deps } = ctx
  const { environment } = target
  const { tenant, hook } = await requireWebhook(ctx, target)
  const now = deps.clock.now()
  const id = newEventId()
  const data = { tenantId: tenant.id, webhookId: hook.id, message: 'This is a test delivery from Slipway.' }
  await deps.database.write(async (tx) => {
    await queueDelivery(tx, tenant.id, {
      id, environment, webhookId: hook.id, type: TEST_EVENT_TYPE, body: eventBody(id, TEST_EVENT_TYPE, environment, now, now, data), maxAttempts: 1,
    }, now)
    await recordActivity(tx, {
      tenantId: tenant.id, actor: ctx.actor, action: 'webhook.tested', targetType: 'webhook', targetId: hook.id,
      details: { environment, deliveryId: id }, requestId: ctx.requestId, at: now,
    })
  })
  return { id }
}

export async function listDeliveries(ctx: Ctx, target: WebhookTarget, page: { limit: number; offset: number }) {
  const { db } = ctx.deps.database
  const tenant = await operatorTenant(ctx, target.id)
  // The log covers this environment's deliveries, including those of a webhook since removed.
  const { rows, total } = await repo.listDeliveries(db, tenant.id, target.environment, page.limit, page.offset)
  const attempts = await repo.attemptsOf(db, tenant.id, rows.map((r) => r.id))
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
  return { data, total }
}

/** Re-queues a stopped (failed or dropped) delivery with the same id: a new round of up to MAX_ATTEMPTS attempts. */
export async function requeueDelivery(ctx: Ctx, target: DeliveryTarget) {
  const { deps } = ctx
  const { environment } = target
  const { tenant, hook } = await requireWebhook(ctx, target)
  const now = deps.clock.now()
  return deps.database.write(async (tx) => {
    const d = await repo.findDeliveryIn(tx, tenant.id, environment, target.deliveryId)
    if (!d) throw new NotFoundError('Delivery not found')
    if (d.status === 'queued' || d.status === 'done') throw new ConflictError(`The delivery is ${d.status}; only a failed or dropped delivery can be re-queued`)
    if (d.type === TEST_EVENT_TYPE) throw new ConflictError('A test delivery is never retried; send a new test')
    const round = d.round + 1
    // The current webhook (a re-created one included) receives it; the body and id stay the same.
    await repo.startRound(tx, tenant.id, d.id, { round, webhookId: hook.id, maxAttempts: MAX_ATTEMPTS }, now)
    await scheduleAttempt(tx, tenant.id, { deliveryId: d.id, round, attempt: 1 }, now, now)
    await recordActivity(tx, {
      tenantId: tenant.id, actor: ctx.actor, action: 'webhook.delivery_requeued', targetType: 'webhook_delivery', targetId: d.id,
      details: { environment, type: d.type }, requestId: ctx.requestId, at: now,
    })
    return { id: d.id, status: 'queued' as const }
  })
}

/** Platform-wide, for the platform admins' summary page: deliveries per status and the `latest` changed last. Never a secret. */
export async function deliverySummary(db: Executor, latest: number) {
  const [byStatus, rows] = await Promise.all([repo.deliveryCountsByStatus(db), repo.latestDeliveries(db, latest)])
  return { byStatus, latest: rows }
}
