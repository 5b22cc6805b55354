/**
 * What the wallets module adds to other modules' work, installed when its routes are
 * built: the custodial wallet created at registration (`wallet: { option: "create" }`),
 * and the user search by wallet address or id. The wallet services behind them are
 * loaded on first use, like the routes' (see lib/lazy.ts).
 */
import type { Deps } from '../../deps'
import { lazy } from '../../lib/lazy'
import * as repo from './repo'

const service = lazy(() => import('./service'))

export function installRegistrationHooks(deps: Deps) {
  deps.registrationHooks.validateWallet = async (_deps, tenant, wallet) => (await service()).validateRegistrationWallet(deps, tenant, wallet)
  deps.registrationHooks.createWallet = async (_deps, tx, tenant, user, chain) => (await service()).createRegistrationWallet(deps, tx, tenant, user, chain)
  deps.userLookup = async (d, tenantId, q) => repo.ownersMatching(d.database.db, tenantId, q.trim())
}
