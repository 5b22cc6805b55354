/**
 * The one place where modules are handed their collaborators. `createApp` and the job
 * worker call `buildServices(deps)`; nothing is installed by side effect, so what
 * registration checks, or where the operators' user search finds wallet owners, is
 * read here and nowhere else. The registries are assembled here too, from what each
 * module exports: its background jobs (`registerJobs`) and the webhook event types it
 * publishes (`WEBHOOK_EVENT_TYPES`).
 */
import type { FeedSource, RegistrationCollaborators, WalletOwnerLookup } from './context'
import type { Deps } from './deps'
import type { JobRunner } from './jobs/runner'
import { registrationBreachCheck } from './modules/auth/breach-check'
import { lazy } from './lib/lazy'
import { AGENT_PAYMENTS_EVENT_TYPES } from './modules/agent-payments/event-types'
import { registerAgentPaymentJobs } from './modules/agent-payments/jobs'
import { registerMandateJobs } from './modules/agent-payments/mandate-jobs'
import { CARD_ONRAMP_EVENT_TYPES } from './modules/card-onramp/event-types'
import { registerLendingJobs } from './modules/lending/jobs'
import { registerMailJobs } from './modules/mail/jobs'
import { registerMpcJobs } from './modules/mpc/jobs'
import { registerNotificationJobs } from './modules/notifications/jobs'
import { registerPasswordResetJobs } from './modules/password-reset/jobs'
import { registerPortfolioJobs } from './modules/portfolio/jobs'
import { RAMP_EVENT_TYPES } from './modules/ramp/event-types'
import { rampFeedSource } from './modules/ramp/feed'
import { registerRampJobs } from './modules/ramp/jobs'
import { registerTransactionJobs } from './modules/transactions/jobs'
import { BalanceCache } from './modules/wallets/balance-cache'
import { registrationWallets, walletOwnerLookup } from './modules/wallets/registration'
import { registerWebhookJobs } from './modules/webhooks/jobs'

export interface Services {
  /** what `POST /v1/auth/register` needs from other modules */
  registration: RegistrationCollaborators
  /** user ids by wallet address or id, for `GET /v1/users/advanced-search` */
  walletOwners: WalletOwnerLookup
  /** chain balances read in the last few seconds, shared by the balance routes */
  balances: BalanceCache
  /** other modules' movements in the unified feed: the bank ramp's deposits and payouts */
  feedSources: FeedSource[]
  /** every type a tenant webhook can ask for: the webhooks module checks and documents these */
  webhookEventTypes: readonly string[]
}

/** Every type a tenant webhook can ask for (spec, Event types): each publishing module lists its own. */
export const WEBHOOK_EVENT_TYPES: readonly string[] = [...RAMP_EVENT_TYPES, ...CARD_ONRAMP_EVENT_TYPES, ...AGENT_PAYMENTS_EVENT_TYPES]

/** Every module's background jobs, registered on the runner: one line per module that has background work. */
export function registerJobs(runner: JobRunner): JobRunner {
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

/** the MPC flows, loaded by the first registration that needs them */
const mpc = lazy(() => import('./modules/mpc/service'))

export function buildServices(deps: Deps): Services {
  return {
    registration: {
      // the breached-password rule, when the tenant turned it on for registration
      checkPassword: (tenant, password) => registrationBreachCheck(deps, tenant, password),
      wallets: registrationWallets(deps),
      mpc: {
        validate: async (tenant, chain) => (await mpc()).validateRegistrationDkg(deps, tenant, chain),
        start: async (tx, tenant, user, chain) => (await mpc()).registrationDkg(deps, tx, tenant, user, chain),
      },
    },
    walletOwners: walletOwnerLookup(deps),
    balances: new BalanceCache(deps.clock),
    feedSources: [rampFeedSource(deps)],
    webhookEventTypes: WEBHOOK_EVENT_TYPES,
  }
}
