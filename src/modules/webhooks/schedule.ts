/**
 * The delivery schedule, written once. Each attempt is one outbox job with the id
 * `<deliveryId>:<round>:<attempt>`, so the retry schedule lives in our own database
 * and a new round (an operator's re-queue) never collides with an old round's jobs.
 * Every attempt is scheduled through `scheduleAttempt`, in the transaction that
 * writes the delivery's new state.
 */
import type { Executor } from '../../db/client'
import { scheduleJob } from '../../jobs/outbox'
import { insertDelivery, type NewDelivery } from './repo'

export const DELIVER_TOPIC = 'webhook.deliver'
/** Attempts in a round of an event delivery (a test delivery has one). */
export const MAX_ATTEMPTS = 10

const SECOND = 1000
const MINUTE = 60 * SECOND
/** Delay after the nth failed attempt (spec: 30 s, then 1, 2, 4 ... 128 minutes; 10 attempts). */
export const RETRY_DELAYS_MS = [30 * SECOND, 1 * MINUTE, 2 * MINUTE, 4 * MINUTE, 8 * MINUTE, 16 * MINUTE, 32 * MINUTE, 64 * MINUTE, 128 * MINUTE]

export interface DeliveryJobPayload {
  deliveryId: string
  round: number
  attempt: number
  [key: string]: unknown
}

const attemptJobId = (deliveryId: string, round: number, attempt: number) => `${deliveryId}:${round}:${attempt}`

/** When the attempt after failed attempt `attempt` runs. */
export const retryAt = (attempt: number, now: number) => now + RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1]!

/** Schedules attempt `attempt` of `round` of a delivery at `runAt`. */
export async function scheduleAttempt(tx: Executor, tenantId: string, job: DeliveryJobPayload, runAt: number, now: number): Promise<void> {
  await scheduleJob(tx, { topic: DELIVER_TOPIC, payload: job, tenantId, runAt, id: attemptJobId(job.deliveryId, job.round, job.attempt) }, now)
}

/** A new delivery with its first attempt due now; false when the id exists (a repeated event: nothing is sent again). */
export async function queueDelivery(tx: Executor, tenantId: string, d: NewDelivery, now: number): Promise<boolean> {
  if (!(await insertDelivery(tx, tenantId, d, now))) return false
  await scheduleAttempt(tx, tenantId, { deliveryId: d.id, round: 1, attempt: 1 }, now, now)
  return true
}
