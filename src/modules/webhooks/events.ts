/**
 * The events' vocabulary: event ids and the body every attempt sends. The types a webhook
 * can ask for are each publishing module's own, listed together in src/services.ts and
 * handed to the routes (webhookRoutes) and the save verb.
 */
import { randomBytes } from 'node:crypto'
import { iso } from '../../lib/clock'

export const TEST_EVENT_TYPE = 'webhook.test'

export const newEventId = () => `evt_${randomBytes(16).toString('hex')}`
export const EVENT_ID = /^evt_[0-9a-f]{32}$/

export function eventBody(id: string, type: string, environment: string, occurredAt: number, createdAt: number, data: Record<string, unknown>) {
  return JSON.stringify({ id, type, environment, occurredAt: iso(occurredAt), createdAt: iso(createdAt), data })
}
