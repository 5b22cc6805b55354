/**
 * createApp(deps): the plugins, then one `.use()` per module. Route errors, docs and
 * security all hang off the plugins in src/http.
 */
import { Elysia } from 'elysia'
import pkg from '../package.json' with { type: 'json' }
import type { Deps } from './deps'
import { corePlugin, ErrorStyles } from './http/core'
import { docsPlugin, scalarFromNodeModules } from './http/openapi'
import { setSocketIp } from './http/request-state'
import { authRoutes } from './modules/auth/routes'
import { healthRoutes } from './modules/health/routes'
import { passwordResetRoutes } from './modules/password-reset/routes'
import { socialRoutes } from './modules/social/routes'
import { tenantPublicRoutes } from './modules/tenants/public-routes'
import { tenantRoutes } from './modules/tenants/routes'
import { userRoutes } from './modules/users/routes'

export interface AppOptions {
  /** the docs UI script; the compiled binary passes its embedded copy */
  scalarScript?: () => Blob | Uint8Array
}

export function createApp(deps: Deps, opts: AppOptions = {}) {
  const styles = new ErrorStyles()
  let app: { handle(r: Request): Promise<Response> } | undefined
  const built = new Elysia()
    .use(corePlugin(deps, styles))
    .use(docsPlugin(deps, pkg.version, (r) => app!.handle(r), opts.scalarScript ?? scalarFromNodeModules()))
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

/** A fetch handler for Bun.serve that records the socket's address for client-IP rules. */
export function bunFetch(app: App) {
  return (request: Request, server: { requestIP(r: Request): { address: string } | null }) => {
    setSocketIp(request, server.requestIP(request)?.address)
    return app.fetch(request)
  }
}
