/**
 * The webhooks module's entry point for producers: a module that reports a change to
 * tenants calls `publishEvent` and nothing else of this module, inside the same write
 * transaction as the change (`deps.database.write(async (tx) => { ...change...;
 * await publishEvent(tx, event, now) })`), so neither exists without the other. The
 * delivery row and its first attempt job are written right there too.
 */
import { sql, type SQL } from 'drizzle-orm'
import type { Executor, InStatement, Tx } from '../../db/client'
import { scheduleJobStatement } from '../../jobs/outbox'
import { EVENT_ID, eventBody, newEventId } from './events'
import { activeOwnedWebhooks, eventWebhooks, eventWebhooksFingerprint, eventWebhooksFingerprintOf, findWebhook, insertDeliveryStatement, type WebhookRow } from './repo'
import { DELIVER_TOPIC, MAX_ATTEMPTS, queueDelivery } from './schedule'
import type { WebhookEnvironment, WebhookOwner } from './schema'


export interface PublishedEvent {
  tenantId: string
  environment: WebhookEnvironment
  /** one of the catalogue's types (WEBHOOK_EVENT_TYPES in src/services.ts) */
  type: string
  data: Record<string, unknown>
  /** when the change happened per the source (Unix ms) */
  occurredAt: number
  /** a stable id for this event when the caller has one (repeats are then ignored) */
  id?: string
}

/**
 * Writes the event's delivery for the tenant's webhook in that environment when the
 * webhook is active and asks for the type, and schedules its first attempt. Answers
 * the event id, or null when no webhook takes it (nothing is stored then: a change
 * made while the webhook is off is not sent later). `now` is the caller's clock.
 */
export async function publishEvent(tx: Tx, event: PublishedEvent, now: number): Promise<string | null> {
  if (event.id !== undefined && !EVENT_ID.test(event.id)) throw new Error('event id must be evt_ followed by 32 hex characters')
  const hook = await findWebhook(tx, event.tenantId, event.environment)
  if (!hook || hook.status !== 'active') return null
  if (hook.eventTypes.length && !hook.eventTypes.includes(event.type)) return null
  const id = event.id ?? newEventId()
  await queueDelivery(tx, event.tenantId, {
    id,
    environment: event.environment,
    webhookId: hook.id,
    type: event.type,
    body: eventBody(id, event.type, event.environment, event.occurredAt, now, event.data),
    maxAttempts: MAX_ATTEMPTS,
  }, now)
  // A repeated event id is a repeat of a delivery: nothing is sent again, and the id is answered.
  return id
}

/**
 * Fans an event out to the tenant's active webhooks of another owner (the agent payments
 * group's subscriptions) whose types match (empty: every type), in the caller's
 * transaction: one delivery per subscription, each with its own event id (the delivery
 * id is the `X-Webhook-Id`), delivered, signed, retried and logged like the platform's.
 * Answers the event ids queued.
 */
export async function publishToOwned(tx: Tx, owner: Exclude<WebhookOwner, 'platform'>, event: Omit<PublishedEvent, 'id'>, now: number): Promise<string[]> {
  const hooks = await activeOwnedWebhooks(tx, event.tenantId, owner)
  const ids: string[] = []
  for (const hook of hooks) {
    if (hook.eventTypes.length && !hook.eventTypes.includes(event.type)) continue
    const id = newEventId()
    await queueDelivery(tx, event.tenantId, {
      id, environment: event.environment, owner, webhookId: hook.id, type: event.type,
      body: eventBody(id, event.type, event.environment, event.occurredAt, now, event.data), maxAttempts: MAX_ATTEMPTS,
    }, now)
    ids.push(id)
  }
  return ids
}

/**
 * For a write sent as one batch (`Database.writeBatch`): the webhooks that take a tenant's events,
 * read before the batch (the platform's of each environment, and the active ones of `owner`).
 */
export interface EventTargets { platform: Map<WebhookEnvironment, WebhookRow | undefined>; owned: WebhookRow[] }

export async function eventTargets(
  db: Executor, tenantId: string, environments: WebhookEnvironment[], owner?: Exclude<WebhookOwner, 'platform'>,
): Promise<EventTargets> {
  return eventTargetsOf(await eventWebhooks(db, tenantId, environments, owner), environments, owner)
}

/** `eventTargets`' read as a query, to send with other reads (`readAll`); `eventTargetsOf` reads its rows. */
export const eventTargetsQuery = eventWebhooks

/**
 * A condition of a write batch that the webhooks `eventTargetsQuery` read (`rows`, with the same
 * arguments) are still those: none added, removed, disabled or given other event types since.
 */
export const eventTargetsAsRead = (tenantId: string, rows: WebhookRow[], environments: WebhookEnvironment[], owner?: Exclude<WebhookOwner, 'platform'>): SQL =>
  sql`${eventWebhooksFingerprint(tenantId, environments, owner)} IS ${eventWebhooksFingerprintOf(rows)}`

export function eventTargetsOf(rows: WebhookRow[], environments: WebhookEnvironment[], owner?: Exclude<WebhookOwner, 'platform'>): EventTargets {
  const platform = rows.filter((w) => w.owner === 'platform')
  return { platform: new Map(environments.map((e) => [e, platform.find((w) => w.environment === e)])), owned: rows.filter((w) => owner && w.owner === owner) }
}

/**
 * What `publishEvent` and `publishToOwned` (with the targets' owner) write for one event, as
 * statements of the caller's write batch: each delivery with its first attempt's job. Call
 * `jobsScheduled()` (jobs/outbox.ts) once the batch committed.
 */
export function eventStatements(db: Executor, targets: EventTargets, event: Omit<PublishedEvent, 'id'>, now: number): InStatement[] {
  const out: InStatement[] = []
  const add = (hook: WebhookRow, owner: WebhookOwner | undefined) => {
    if (hook.eventTypes.length && !hook.eventTypes.includes(event.type)) return
    const id = newEventId()
    out.push(insertDeliveryStatement(db, event.tenantId, {
      id, environment: event.environment, ...(owner ? { owner } : {}), webhookId: hook.id, type: event.type,
      body: eventBody(id, event.type, event.environment, event.occurredAt, now, event.data), maxAttempts: MAX_ATTEMPTS,
    }, now))
    out.push(scheduleJobStatement(db, { topic: DELIVER_TOPIC, payload: { deliveryId: id, round: 1, attempt: 1 }, tenantId: event.tenantId, runAt: now, id: `${id}:1:1` }, now))
  }
  const platform = targets.platform.get(event.environment)
  if (platform && platform.status === 'active') add(platform, undefined)
  for (const hook of targets.owned) add(hook, hook.owner)
  return out
}
