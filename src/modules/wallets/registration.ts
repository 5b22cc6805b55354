/**
 * What the wallets module offers other modules, wired in src/services.ts: the custodial
 * wallet created at registration (`wallet: { option: "create" }`), and the user search
 * by wallet address or id. The wallet services behind them are loaded on first use,
 * like the routes' (see handle.ts).
 */
import { withTransaction, type RegistrationCollaborators, type WalletOwnerLookup } from '../../context'
import type { Deps } from '../../deps'
import { wallets } from './handle'
import * as repo from './repo'

export function registrationWallets(deps: Deps): RegistrationCollaborators['wallets'] {
  return {
    validate: async (tenant, wallet) => wallets.validateRegistrationWallet(deps, tenant, wallet),
    create: async (ctx, user, chain) => withTransaction(ctx, (tx) => wallets.createRegistrationWallet(deps, tx, ctx.tenant, user, chain)),
  }
}

export function walletOwnerLookup(deps: Deps): WalletOwnerLookup {
  return (tenantId, q) => repo.ownersMatching(deps.database.db, tenantId, q.trim())
}
