/** Every module's background jobs, registered on the runner in one place. */
import type { JobRunner } from './runner'
import { registerMailJobs } from '../modules/mail/jobs'
import { registerPasswordResetJobs } from '../modules/password-reset/jobs'
import { registerWebhookJobs } from '../modules/webhooks/jobs'
import { registerTransactionJobs } from '../modules/transactions/jobs'
import { registerRampJobs } from '../modules/ramp/jobs'
import { registerMpcJobs } from '../modules/mpc/jobs'
import { registerNotificationJobs } from '../modules/notifications/jobs'
import { registerLendingJobs } from '../modules/lending/jobs'
import { registerPortfolioJobs } from '../modules/portfolio/jobs'
import { registerMandateJobs } from '../modules/agent-payments/mandate-jobs'
import { registerAgentPaymentJobs } from '../modules/agent-payments/jobs'

export function registerJobs(runner: JobRunner) {
  // One line per module that has background work, e.g. `registerMailJobs(runner)`.
  registerWebhookJobs(runner)
  registerMailJobs(runner)
  registerPasswordResetJobs(runner)
  registerTransactionJobs(runner)
  registerRampJobs(runner)
  registerMpcJobs(runner)
  registerNotificationJobs(runner)
  registerLendingJobs(runner)
  registerPortfolioJobs(runner)
  registerAgentPaymentJobs(runner)
  registerMandateJobs(runner)
  return runner
}
