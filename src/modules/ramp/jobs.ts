/**
 * The bank ramp's background job: `ramp.payout.advance` follows a payout's transfer on its
 * chain and asks the partner for the sell once the transfer is mined (payout-run.ts). The
 * code behind it loads with the first job.
 */
import type { JobRunner } from '../../jobs/runner'
import { lazy } from '../../lib/lazy'
import { PAYOUT_ADVANCE_TOPIC } from './topics'

const run = lazy(() => import('./payout-run'))

export function registerRampJobs(runner: JobRunner) {
  runner.register(PAYOUT_ADVANCE_TOPIC, {
    attempts: 3,
    backoffMs: 1000,
    handler: async (payload, ctx) => (await run()).advancePayout(ctx.deps, ctx.tenantId, payload),
  })
  return runner
}
