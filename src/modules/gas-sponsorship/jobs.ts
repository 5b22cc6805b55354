/**
 * The gas sponsorship module's background job: each ERC-7677 sponsorship settled at what it
 * cost or released when it expired unused (settle.ts). Its code and viem load with the first job.
 */
import type { JobRunner } from '../../jobs/runner'
import { lazy } from '../../lib/lazy'
import { SETTLE_TOPIC } from './topics'

const settle = lazy(() => import('./settle'))

export function registerGasSponsorshipJobs(runner: JobRunner) {
  runner.register(SETTLE_TOPIC, {
    attempts: 5,
    backoffMs: 5000,
    handler: async (payload, ctx) => {
      await (await settle()).settleErc7677(ctx.deps, ctx.tenantId!, String(payload.id), Number(payload.checks ?? 0))
    },
  })
  return runner
}
