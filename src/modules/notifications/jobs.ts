/**
 * The notifications module's background job: `notifications.push` sends one notification to
 * the user's device (push.ts). Its own retries are new outbox jobs with FCM's delays; the
 * runner's few attempts cover a failure of the handler itself (the database unreachable).
 */
import type { JobRunner } from '../../jobs/runner'
import { lazy } from '../../lib/lazy'
import { PUSH_TOPIC } from './topics'

const run = lazy(() => import('./push'))

export function registerNotificationJobs(runner: JobRunner) {
  runner.register(PUSH_TOPIC, {
    attempts: 3,
    backoffMs: 2000,
    handler: async (payload, ctx) => (await run()).runPushJob(ctx.deps, ctx.tenantId, payload),
  })
  return runner
}
