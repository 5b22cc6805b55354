/**
 * The one place where modules are handed their collaborators. `createApp` and the job
 * worker call `buildServices(deps)`; nothing is installed by side effect, so what
 * registration checks, or where the operators' user search finds wallet owners, is
 * read here and nowhere else.
 */
import type { FeedSource, RegistrationCollaborators, WalletOwnerLookup } from './context'
import type { Deps } from './deps'
import { registrationBreachCheck } from './modules/auth/breach-check'
import { lazy } from './lib/lazy'
import { rampFeedSource } from './modules/ramp/feed'
import { BalanceCache } from './modules/wallets/balance-cache'
import { registrationWallets, walletOwnerLookup } from './modules/wallets/registration'

export interface Services {
  /** what `POST /v1/auth/register` needs from other modules */
  registration: RegistrationCollaborators
  /** user ids by wallet address or id, for `GET /v1/users/advanced-search` */
  walletOwners: WalletOwnerLookup
  /** chain balances read in the last few seconds, shared by the balance routes */
  balances: BalanceCache
  /** other modules' movements in the unified feed: the bank ramp's deposits and payouts */
  feedSources: FeedSource[]
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
  }
}
