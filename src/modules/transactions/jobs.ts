/**
 * The transactions module's background job: `tx.refresh` reads a pending transaction's
 * status from its chain (resending or failing a dropped one). The code behind it, and
 * the chain libraries, load with the first job (see lib/lazy.ts).
 */
import type { JobRunner } from '../../jobs/runner'
import { lazy } from '../../lib/lazy'
import { REFRESH_TOPIC } from './topics'

const refresh = lazy(() => import('./refresh'))

export function registerTransactionJobs(runner: JobRunner) {
  runner.register(REFRESH_TOPIC, {
    attempts: 3,
    backoffMs: 1000,
    handler: async (payload, ctx) => (await refresh()).runRefreshJob(ctx.deps, ctx.tenantId, payload),
  })
  return runner
}
