/**
 * The one place where modules are handed their collaborators. `createApp` and the job
 * worker call `buildServices(deps)`; nothing is installed by side effect, so what
 * registration checks, or where the operators' user search finds wallet owners, is
 * read here and nowhere else. The registries are assembled here too, from what each
 * module exports: its background jobs (`registerJobs`) and the webhook event types it
 * publishes (`WEBHOOK_EVENT_TYPES`).
 */
import { withTransaction, type FeedSource, type RegistrationCollaborators, type SessionRevoker, type StepUpCheck, type WalletOwnerLookup } from './context'
import type { Deps } from './deps'
import type { JobRunner } from './jobs/runner'
import { registrationBreachCheck, revokeUserSessions } from './modules/auth'
import { AGENT_PAYMENTS_EVENT_TYPES, registerAgentPaymentJobs, registerMandateJobs } from './modules/agent-payments'
import { CARD_ONRAMP_EVENT_TYPES } from './modules/card-onramp'
import { GAS_EVENT_TYPES, registerGasSponsorshipJobs } from './modules/gas-sponsorship'
import { registerLendingJobs } from './modules/lending'
import { registerMailJobs } from './modules/mail'
import { mpcService, registerMpcJobs } from './modules/mpc'
import { registerNotificationJobs } from './modules/notifications'
import { requireApproval } from './modules/passkeys'
import { registerPasswordResetJobs } from './modules/password-reset'
import { registerPortfolioJobs } from './modules/portfolio'
import { RAMP_EVENT_TYPES, rampFeedSource, registerRampJobs } from './modules/ramp'
import { registerTransactionJobs } from './modules/transactions'
import { BalanceCache, registrationWallets, walletOwnerLookup } from './modules/wallets'
import { registerWebhookJobs } from './modules/webhooks'

export interface Services {
  /** what `POST /v1/auth/register` needs from other modules */
  registration: RegistrationCollaborators
  /** user ids by wallet address or id, for `GET /v1/users/advanced-search` */
  walletOwners: WalletOwnerLookup
  /** a deleted user's sessions ended, in the deleting write (the auth module's) */
  revokeSessions: SessionRevoker
  /** chain balances read in the last few seconds, shared by the balance routes */
  balances: BalanceCache
  /** other modules' movements in the unified feed: the bank ramp's deposits and payouts */
  feedSources: FeedSource[]
  /** every type a tenant webhook can ask for: the webhooks module checks and documents these */
  webhookEventTypes: readonly string[]
  /** the passkeys module's step-up check, on the routes that can empty a wallet (tenant setting passkeys.stepUp) */
  stepUp: StepUpCheck
}

/** Every type a tenant webhook can ask for (spec, Event types): each publishing module lists its own. */
export const WEBHOOK_EVENT_TYPES: readonly string[] = [...RAMP_EVENT_TYPES, ...CARD_ONRAMP_EVENT_TYPES, ...AGENT_PAYMENTS_EVENT_TYPES, ...GAS_EVENT_TYPES]

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
  registerGasSponsorshipJobs(runner)
  return runner
}

export function buildServices(deps: Deps): Services {
  return {
    registration: {
      // the breached-password rule, when the tenant turned it on for registration
      checkPassword: (tenant, password) => registrationBreachCheck(deps, tenant, password),
      wallets: registrationWallets(deps),
      mpc: {
        // the MPC flows, loaded by the first registration that needs them
        validate: (tenant, chain) => mpcService.validateRegistrationDkg(deps, tenant, chain),
        start: (ctx, user, chain) => withTransaction(ctx, (tx) => mpcService.registrationDkg(deps, tx, ctx.tenant, user, chain)),
      },
    },
    walletOwners: walletOwnerLookup(deps),
    revokeSessions: revokeUserSessions,
    balances: new BalanceCache(deps.clock),
    feedSources: [rampFeedSource(deps)],
    webhookEventTypes: WEBHOOK_EVENT_TYPES,
    stepUp: requireApproval,
  }
}
