/**
 * The MPC module's background job: `mpc.service.party` runs Slipway's service party (party 1)
 * of one relay session, over the relay's HTTP routes like any other party (service-party.ts),
 * so the worker role can run it on another machine (MPC_RELAY_URL). The protocol code loads
 * with the first job.
 */
import type { JobRunner } from '../../jobs/runner'
import { lazy } from '../../lib/lazy'
import { MPC_SERVICE_PARTY_TOPIC } from './topics'

const run = lazy(() => import('./service-party'))

export function registerMpcJobs(runner: JobRunner) {
  runner.register(MPC_SERVICE_PARTY_TOPIC, {
    // a protocol run cannot resume half-way: a failed run leaves the session to expire, and the device starts a new one
    attempts: 1,
    handler: async (payload, ctx) => (await run()).runServiceParty(ctx.deps, ctx.tenantId, payload),
  })
  return runner
}
