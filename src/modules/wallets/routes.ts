/**
 * The wallets module's routes, one Elysia instance per concern, composed here for
 * app.ts. Every wallet route acts on the caller's own wallets; another user's or
 * another tenant's wallet id answers 404. Route files import no chain library: the
 * services behind them load on the first request (handle.ts).
 */
import { Elysia } from 'elysia'
import type { StepUpCheck } from '../../context'
import type { Deps } from '../../deps'
import type { BalanceCache } from './balance-cache'
import { balanceRoutes } from './balance-routes'
import { custodyRoutes } from './custody-routes'
import { exportRoutes } from './export-routes'
import { walletCrudRoutes } from './wallet-routes'

export { userWalletRoutes } from './user-wallet-routes'

/** The `/v1/wallets` group; `balances` is the app's balance cache (made in src/services.ts). */
export function walletRoutes(deps: Deps, balances: BalanceCache, stepUp: StepUpCheck) {
  return new Elysia()
    .use(walletCrudRoutes(deps))
    .use(balanceRoutes(deps, balances))
    .use(custodyRoutes(deps))
    .use(exportRoutes(deps, stepUp))
}
