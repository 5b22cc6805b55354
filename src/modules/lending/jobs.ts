/**
 * The lending module's background job: `lending.rate.sample` samples a followed reserve's
 * supply rate once per `AAVE_RATE_SAMPLE_SECONDS` slot (reserves.ts). The chain code loads with the first job.
 */
import type { JobRunner } from '../../jobs/runner'
import { lazy } from '../../lib/lazy'
import { RATE_SAMPLE_TOPIC } from './topics'

const reserves = lazy(() => import('./reserves'))

export function registerLendingJobs(runner: JobRunner) {
  runner.register(RATE_SAMPLE_TOPIC, {
    attempts: 3,
    backoffMs: 5000,
    handler: async (payload, ctx) => (await reserves()).runRateSampleJob(ctx.deps, ctx.tenantId, payload),
  })
  return runner
}
