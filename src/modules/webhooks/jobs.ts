/**
 * Delivery attempts. Each attempt is one outbox job (see schedule.ts): a failed attempt
 * schedules the next one at now + the next delay in the same transaction that records
 * the failure (attempt-log.ts: attempts that finish together share one transaction, and
 * each job returns only once its own record is committed). A restart loses nothing (due
 * rows are dispatched again), and an attempt job that runs twice (crash after sending,
 * before recording) is at most one extra POST of the same id: the handler only acts when
 * the delivery is still at that attempt, so a duplicate never forks the schedule.
 */
import type { Deps } from '../../deps'
import type { JobRunner } from '../../jobs/runner'
import { unixSeconds } from '../../lib/clock'
import { TEST_EVENT_TYPE } from './events'
import { AttemptLog, type FinishedAttempt } from './attempt-log'
import { dropDelivery, findDeliveryWithWebhook } from './repo'
import { DELIVER_TOPIC, type DeliveryJobPayload } from './schedule'
import { deliveryHeaders } from './signature'
import { attemptDelivery, type AttemptOutcome } from './transport'
import { secretOpener } from './secrets'

export function registerWebhookJobs(runner: JobRunner) {
  const log = new AttemptLog(runner.deps)
  const openSecret = secretOpener(runner.deps)
  runner.register(DELIVER_TOPIC, {
    // Delivery failures never throw (they are recorded and rescheduled below);
    // bunqueue's own retries only cover an unexpected error such as a database fault.
    attempts: 3,
    backoffMs: 1000,
    // the attempts a dispatch pass claims run as one bunqueue job (src/jobs/batch.ts): one POST each, and bunqueue's per-job writes were a third of the CPU
    batch: true,
    handler: async (payload, ctx) => {
      // Every attempt job is scheduled with the delivery's tenant (schedule.ts).
      if (!ctx.tenantId) return
      log.begin()
      let finished: FinishedAttempt | null
      try {
        finished = await runAttempt(ctx.deps, ctx.tenantId, payload as DeliveryJobPayload, openSecret)
      } catch (err) {
        log.abandon()
        throw err
      }
      if (!finished) return log.abandon()
      // The job ends only once its attempt is committed (see attempt-log.ts).
      await log.record(finished)
    },
  })
  return runner
}

/** Sends the attempt when it is still due; answers what to record, or null when there is nothing to record. */
async function runAttempt(deps: Deps, tenantId: string, job: DeliveryJobPayload, openSecret: ReturnType<typeof secretOpener>): Promise<FinishedAttempt | null> {
  // The webhook is read again at each attempt, with the delivery in one query: a new
  // secret signs, a removed or disabled webhook, or one no longer asking for the type,
  // stops the delivery.
  const found = await findDeliveryWithWebhook(deps.database, tenantId, job.deliveryId)
  if (!found) return null
  const { delivery: d, webhook: hook } = found
  if (d.status !== 'queued' || d.round !== job.round || d.attempts !== job.attempt - 1) return null
  const isTest = d.type === TEST_EVENT_TYPE
  let stop: string | null = null
  if (!hook) stop = 'webhook removed'
  else if (!isTest && hook.status !== 'active') stop = 'webhook disabled'
  else if (!isTest && hook.eventTypes.length && !hook.eventTypes.includes(d.type)) stop = 'the webhook no longer asks for this type'
  if (stop || !hook) {
    const now = deps.clock.now()
    await deps.database.write((tx) => dropDelivery(tx, tenantId, d.id, d.round, stop, now))
    return null
  }
  const secret = openSecret(hook)
  const started = deps.clock.now()
  const headers = deliveryHeaders(secret, d.id, d.type, unixSeconds(started), d.body)
  const t0 = performance.now()
  let outcome: AttemptOutcome
  try {
    outcome = await attemptDelivery(deps, hook.url, headers, d.body, { tenantId, environment: d.environment })
  } catch (err) {
    outcome = { ok: false, statusCode: null, error: `delivery failed: ${(err as Error).message?.slice(0, 200)}` }
  }
  const durationMs = Math.round(performance.now() - t0)
  return { delivery: d, job, outcome, at: started, durationMs }
}
