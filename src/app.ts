/**
 * createApp(deps): the plugins, then one `.use()` per module. Route errors, docs and
 * security all hang off the plugins in src/http.
 */
import { Elysia } from 'elysia'
import pkg from '../package.json'
import type { Deps } from './deps'
import { corePlugin, ErrorStyles } from './http/core'
import { docsPlugin } from './http/openapi'
import { authRoutes } from './modules/auth/routes'
import { healthRoutes } from './modules/health/routes'
import { tenantPublicRoutes } from './modules/tenants/public-routes'
import { tenantRoutes } from './modules/tenants/routes'
import { userRoutes } from './modules/users/routes'
import { tokenRoutes } from './modules/tokens/routes'
import { userWalletRoutes, walletRoutes } from './modules/wallets/routes'

export function createApp(deps: Deps) {
  const styles = new ErrorStyles()
  let app: { handle(r: Request): Promise<Response> } | undefined
  const built = new Elysia()
    .use(corePlugin(deps, styles))
    .use(docsPlugin(deps, pkg.version, (r) => app!.handle(r)))
    .use(healthRoutes())
    // platform
    .use(authRoutes(deps))
    .use(tenantRoutes(deps))
    .use(tenantPublicRoutes(deps))
    .use(userRoutes(deps))
    // wallets and tokens
    .use(walletRoutes(deps))
    .use(userWalletRoutes(deps))
    .use(tokenRoutes(deps))
  styles.build(built.routes)
  app = built
  return built
}

export type App = ReturnType<typeof createApp>
