/** The events' vocabulary: the types a webhook can ask for, event ids, and the body every attempt sends. */
import { randomBytes } from 'node:crypto'
import { iso } from '../../lib/clock'
import { AGENT_PAYMENTS_EVENT_TYPES } from '../agent-payments/event-types'

/** Every type a webhook can ask for (spec, Event types). */
export const WEBHOOK_EVENT_TYPES = [
  'ramp.kyc.updated',
  'ramp.deposit.updated',
  'ramp.transaction.updated',
  'ramp.payout.updated',
  'ramp.card_session.updated',
  ...AGENT_PAYMENTS_EVENT_TYPES,
] as const

export const TEST_EVENT_TYPE = 'webhook.test'

export const newEventId = () => `evt_${randomBytes(16).toString('hex')}`
export const EVENT_ID = /^evt_[0-9a-f]{32}$/

export function eventBody(id: string, type: string, environment: string, occurredAt: number, createdAt: number, data: Record<string, unknown>) {
  return JSON.stringify({ id, type, environment, occurredAt: iso(occurredAt), createdAt: iso(createdAt), data })
}
