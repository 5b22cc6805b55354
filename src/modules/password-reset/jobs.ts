/** Background half of forgot-password. */
import type { JobRunner } from '../../jobs/runner'
import type { Locale } from '../mail'
import { RESET_REQUEST_TOPIC, handleResetRequest } from './service'

export function registerPasswordResetJobs(runner: JobRunner) {
  runner.register(RESET_REQUEST_TOPIC, {
    attempts: 5,
    backoffMs: 1000,
    handler: (payload, { deps, id, tenantId }) => handleResetRequest(deps, id, tenantId, payload as { email: string; locale: Locale }),
  })
  return runner
}
