/**
 * Delivery attempts. Each attempt is one outbox job (see schedule.ts): a failed attempt
 * schedules the next one at now + the next delay in the same transaction that records
 * the failure. A restart loses nothing (due rows are dispatched again), and an attempt
 * job that runs twice (crash after sending, before recording) is at most one extra POST
 * of the same id: the handler only acts when the delivery is still at that attempt, so
 * a duplicate never forks the schedule.
 */
import type { Deps } from '../../deps'
import type { JobRunner } from '../../jobs/runner'
import { unixSeconds } from '../../lib/clock'
import { TEST_EVENT_TYPE } from './events'
import { dropDelivery, findDelivery, findWebhookById, insertAttempt, settleAttempt, type DeliveryRow } from './repo'
import { DELIVER_TOPIC, retryAt, scheduleAttempt, type DeliveryJobPayload } from './schedule'
import { deliveryHeaders } from './signature'
import { attemptDelivery, type AttemptOutcome } from './transport'
import { openSecret } from './secrets'

export function registerWebhookJobs(runner: JobRunner) {
  runner.register(DELIVER_TOPIC, {
    // Delivery failures never throw (they are recorded and rescheduled below);
    // bunqueue's own retries only cover an unexpected error such as a database fault.
    attempts: 3,
    backoffMs: 1000,
    handler: async (payload, ctx) => {
      // Every attempt job is scheduled with the delivery's tenant (schedule.ts).
      if (ctx.tenantId) await runAttempt(ctx.deps, ctx.tenantId, payload as DeliveryJobPayload)
    },
  })
  return runner
}

async function runAttempt(deps: Deps, tenantId: string, job: DeliveryJobPayload): Promise<void> {
  const { db } = deps.database
  const d = await findDelivery(db, tenantId, job.deliveryId)
  if (!d || d.status !== 'queued' || d.round !== job.round || d.attempts !== job.attempt - 1) return
  // The webhook is read again at each attempt: a new secret signs, a removed or
  // disabled webhook, or one no longer asking for the type, stops the delivery.
  const hook = await findWebhookById(db, tenantId, d.webhookId)
  const isTest = d.type === TEST_EVENT_TYPE
  let stop: string | null = null
  if (!hook) stop = 'webhook removed'
  else if (!isTest && hook.status !== 'active') stop = 'webhook disabled'
  else if (!isTest && hook.eventTypes.length && !hook.eventTypes.includes(d.type)) stop = 'the webhook no longer asks for this type'
  if (stop || !hook) {
    const now = deps.clock.now()
    await deps.database.write((tx) => dropDelivery(tx, tenantId, d.id, d.round, stop, now))
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

async function recordAttempt(deps: Deps, d: DeliveryRow, job: DeliveryJobPayload, outcome: AttemptOutcome, at: number, durationMs: number) {
  await deps.database.write(async (tx) => {
    const now = deps.clock.now()
    await insertAttempt(tx, d.tenantId, { deliveryId: d.id, round: job.round, attempt: job.attempt, at, statusCode: outcome.statusCode, error: outcome.error, durationMs })
    const last = job.attempt >= d.maxAttempts
    const nextAt = outcome.ok || last ? null : retryAt(job.attempt, now)
    const settled = await settleAttempt(tx, d.tenantId, d.id, job.round, job.attempt, {
      status: outcome.ok ? 'done' : last ? 'failed' : 'queued',
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error,
      nextAttemptAt: nextAt,
    }, now)
    // Dropped or re-queued meanwhile: the attempt is logged, the schedule is not continued.
    if (!settled || nextAt === null) return
    await scheduleAttempt(tx, d.tenantId, { deliveryId: d.id, round: job.round, attempt: job.attempt + 1 }, nextAt, now)
  })
}
