/**
 * Delivery attempts. Each attempt is one outbox job (`<deliveryId>:<round>:<attempt>`),
 * so the retry schedule lives in our own database: a failed attempt writes the next
 * attempt's job with `runAt` = now + the next delay in the same transaction that
 * records the failure. A restart loses nothing (due rows are dispatched again), and
 * an attempt job that runs twice (crash after sending, before recording) is at most
 * one extra POST of the same id: the handler only acts when the delivery is still at
 * that attempt, so a duplicate never forks the schedule.
 */
import { and, eq } from 'drizzle-orm'
import type { Deps } from '../../deps'
import type { JobRunner } from '../../jobs/runner'
import { scheduleJob } from '../../jobs/outbox'
import { newId } from '../../lib/ids'
import { unixSeconds } from '../../lib/clock'
import { attemptJobId, DELIVER_TOPIC, TEST_EVENT_TYPE, type DeliveryJobPayload } from './publish'
import { webhookDeliveries, webhookDeliveryAttempts, webhooks } from './schema'
import { deliveryHeaders } from './signature'
import { attemptDelivery, type AttemptOutcome } from './transport'
import { openSecret } from './secrets'

const SECOND = 1000
const MINUTE = 60 * SECOND
/** Delay after the nth failed attempt (spec: 30 s, then 1, 2, 4 ... 128 minutes; 10 attempts). */
export const RETRY_DELAYS_MS = [30 * SECOND, 1 * MINUTE, 2 * MINUTE, 4 * MINUTE, 8 * MINUTE, 16 * MINUTE, 32 * MINUTE, 64 * MINUTE, 128 * MINUTE]

export function registerWebhookJobs(runner: JobRunner) {
  runner.register(DELIVER_TOPIC, {
    // Delivery failures never throw (they are recorded and rescheduled above);
    // bunqueue's own retries only cover an unexpected error such as a database fault.
    attempts: 3,
    backoffMs: 1000,
    handler: (payload, ctx) => runAttempt(ctx.deps, payload as DeliveryJobPayload),
  })
  return runner
}

export async function runAttempt(deps: Deps, job: DeliveryJobPayload): Promise<void> {
  const { db } = deps.database
  const d = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, job.deliveryId)).get()
  if (!d || d.status !== 'queued' || d.round !== job.round || d.attempts !== job.attempt - 1) return
  // The webhook is read again at each attempt: a new secret signs, a removed or
  // disabled webhook, or one no longer asking for the type, stops the delivery.
  const hook = await db.select().from(webhooks).where(and(eq(webhooks.tenantId, d.tenantId), eq(webhooks.id, d.webhookId))).get()
  const isTest = d.type === TEST_EVENT_TYPE
  let stop: string | null = null
  if (!hook) stop = 'webhook removed'
  else if (!isTest && hook.status !== 'active') stop = 'webhook disabled'
  else if (!isTest && hook.eventTypes.length && !hook.eventTypes.includes(d.type)) stop = 'the webhook no longer asks for this type'
  if (stop || !hook) {
    const now = deps.clock.now()
    await deps.database.write((tx) => tx.update(webhookDeliveries)
      .set({ status: 'dropped', lastError: stop, nextAttemptAt: null, updatedAt: now })
      .where(and(eq(webhookDeliveries.id, d.id), eq(webhookDeliveries.status, 'queued'), eq(webhookDeliveries.round, d.round))))
    return
  }
  const secret = openSecret(deps, hook)
  const started = deps.clock.now()
  const headers = deliveryHeaders(secret, d.id, d.type, unixSeconds(started), d.body)
  const t0 = performance.now()
  let outcome: AttemptOutcome
  try {
    outcome = await attemptDelivery(deps, hook.url, headers, d.body)
  } catch (err) {
    outcome = { ok: false, statusCode: null, error: `delivery failed: ${(err as Error).message?.slice(0, 200)}` }
  }
  const durationMs = Math.round(performance.now() - t0)
  await recordAttempt(deps, d, job, outcome, started, durationMs)
}

async function recordAttempt(
  deps: Deps,
  d: typeof webhookDeliveries.$inferSelect,
  job: DeliveryJobPayload,
  outcome: AttemptOutcome,
  at: number,
  durationMs: number,
) {
  await deps.database.write(async (tx) => {
    const now = deps.clock.now()
    await tx.insert(webhookDeliveryAttempts).values({
      id: newId(), tenantId: d.tenantId, deliveryId: d.id, round: job.round, attempt: job.attempt, at,
      statusCode: outcome.statusCode, error: outcome.error, durationMs,
    })
    const last = job.attempt >= d.maxAttempts
    const nextAt = outcome.ok || last ? null : now + RETRY_DELAYS_MS[Math.min(job.attempt, RETRY_DELAYS_MS.length) - 1]!
    const updated = await tx.update(webhookDeliveries).set({
      status: outcome.ok ? 'done' : last ? 'failed' : 'queued',
      attempts: job.attempt,
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error,
      nextAttemptAt: nextAt,
      updatedAt: now,
    }).where(and(
      eq(webhookDeliveries.id, d.id), eq(webhookDeliveries.status, 'queued'),
      eq(webhookDeliveries.round, job.round), eq(webhookDeliveries.attempts, job.attempt - 1),
    )).returning({ id: webhookDeliveries.id })
    // Dropped or re-queued meanwhile: the attempt is logged, the schedule is not continued.
    if (!updated.length || nextAt === null) return
    const payload: DeliveryJobPayload = { deliveryId: d.id, round: job.round, attempt: job.attempt + 1 }
    await scheduleJob(tx, { topic: DELIVER_TOPIC, payload, tenantId: d.tenantId, runAt: nextAt, id: attemptJobId(d.id, job.round, job.attempt + 1) }, now)
  })
}
