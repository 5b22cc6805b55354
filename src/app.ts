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
import { passwordResetRoutes } from './modules/password-reset/routes'
import { socialRoutes } from './modules/social/routes'
import { tenantPublicRoutes } from './modules/tenants/public-routes'
import { tenantRoutes } from './modules/tenants/routes'
import { userRoutes } from './modules/users/routes'

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
    .use(passwordResetRoutes(deps))
    .use(socialRoutes(deps))
  styles.build(built.routes)
  app = built
  return built
}

export type App = ReturnType<typeof createApp>
