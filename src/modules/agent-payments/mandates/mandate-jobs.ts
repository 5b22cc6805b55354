/** The mandates' background job: `agent_payments.mandate.expire`, scheduled at creation for `expiresAt`. */
import type { JobRunner } from '../../../jobs/runner'
import { lazy } from '../../../lib/lazy'
import { MANDATE_EXPIRE_TOPIC } from './mandate-topics'

const run = lazy(() => import('./mandates'))

export function registerMandateJobs(runner: JobRunner) {
  runner.register(MANDATE_EXPIRE_TOPIC, {
    attempts: 3,
    backoffMs: 1000,
    handler: async (payload, ctx) => (await run()).expireMandate(ctx.deps, ctx.tenantId, payload, ctx.id),
  })
  return runner
}
