/**
 * The outbox side of events: a module publishes an event inside the same write
 * transaction as the change it reports, so neither exists without the other. The
 * delivery row and its first attempt job are written right there too.
 */
import { randomBytes } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import type { Tx } from '../../db/client'
import { scheduleJob } from '../../jobs/outbox'
import { iso } from '../../lib/clock'
import { webhookDeliveries, webhooks, type WebhookEnvironment } from './schema'

export const DELIVER_TOPIC = 'webhook.deliver'
export const MAX_ATTEMPTS = 10
export const TEST_EVENT_TYPE = 'webhook.test'

/** Every type a webhook can ask for (spec, Event types). */
export const WEBHOOK_EVENT_TYPES = [
  'ramp.kyc.updated',
  'ramp.deposit.updated',
  'ramp.transaction.updated',
  'ramp.payout.updated',
  'ramp.card_session.updated',
] as const

export const newEventId = () => `evt_${randomBytes(16).toString('hex')}`
export const EVENT_ID = /^evt_[0-9a-f]{32}$/

export interface PublishedEvent {
  tenantId: string
  environment: WebhookEnvironment
  type: string
  data: Record<string, unknown>
  /** when the change happened per the source (Unix ms) */
  occurredAt: number
  /** a stable id for this event when the caller has one (repeats are then ignored) */
  id?: string
}

export interface DeliveryJobPayload {
  deliveryId: string
  round: number
  attempt: number
  [key: string]: unknown
}

export const attemptJobId = (deliveryId: string, round: number, attempt: number) => `${deliveryId}:${round}:${attempt}`

export function eventBody(id: string, type: string, environment: string, occurredAt: number, createdAt: number, data: Record<string, unknown>) {
  return JSON.stringify({ id, type, environment, occurredAt: iso(occurredAt), createdAt: iso(createdAt), data })
}

/**
 * Writes the event's delivery for the tenant's webhook in that environment when the
 * webhook is active and asks for the type, and schedules its first attempt. Answers
 * the event id, or null when no webhook takes it (nothing is stored then: a change
 * made while the webhook is off is not sent later). `now` is the caller's clock.
 */
export async function publishEvent(tx: Tx, event: PublishedEvent, now: number): Promise<string | null> {
  if (event.id !== undefined && !EVENT_ID.test(event.id)) throw new Error('event id must be evt_ followed by 32 hex characters')
  const hook = await tx.select().from(webhooks)
    .where(and(eq(webhooks.tenantId, event.tenantId), eq(webhooks.environment, event.environment))).get()
  if (!hook || hook.status !== 'active') return null
  if (hook.eventTypes.length && !hook.eventTypes.includes(event.type)) return null
  const id = event.id ?? newEventId()
  const inserted = await tx.insert(webhookDeliveries).values({
    id,
    tenantId: event.tenantId,
    environment: event.environment,
    webhookId: hook.id,
    type: event.type,
    body: eventBody(id, event.type, event.environment, event.occurredAt, now, event.data),
    status: 'queued',
    round: 1,
    attempts: 0,
    maxAttempts: MAX_ATTEMPTS,
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
  }).onConflictDoNothing().returning({ id: webhookDeliveries.id })
  // A repeated event id is a repeat of a delivery: nothing is sent again.
  if (!inserted.length) return id
  const payload: DeliveryJobPayload = { deliveryId: id, round: 1, attempt: 1 }
  await scheduleJob(tx, { topic: DELIVER_TOPIC, payload, tenantId: event.tenantId, runAt: now, id: attemptJobId(id, 1, 1) }, now)
  return id
}
