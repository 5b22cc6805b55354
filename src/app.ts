/**
 * createApp(deps): the plugins, then one `.use()` per module. Route errors, docs and
 * security all hang off the plugins in src/http.
 */
import { Elysia } from 'elysia'
import pkg from '../package.json' with { type: 'json' }
import type { Deps } from './deps'
import { corePlugin, ErrorStyles, observed } from './http/core'
import { fixedAnswer } from './http/server-routes'
import { docsPlugin, scalarFromSource, type DocsScript } from './http/openapi'
import { setSocketSource, stateOf } from './http/request-state'
import { inRequestScope, placementOf } from './db/placement'
import { asRequest } from './db/deadline'
import { authRoutes } from './modules/auth'
import { healthRoutes, LIVENESS } from './modules/health'
import type { JobRunner } from './jobs/runner'
import { buildServices } from './services'
import { passwordResetRoutes } from './modules/password-reset'
import { socialRoutes } from './modules/social'
import { passkeyRoutes } from './modules/passkeys'
import { tenantPublicRoutes, tenantRoutes } from './modules/tenants'
import { userRoutes } from './modules/users'
import { webhookRoutes } from './modules/webhooks'
import { queueDashboardRoutes } from './jobs/dashboard/routes'
import { tokenRoutes } from './modules/tokens'
import { userWalletRoutes, walletRoutes } from './modules/wallets'
import { transactionRoutes } from './modules/transactions'
import { swapRoutes } from './modules/swaps'
import { rampRoutes } from './modules/ramp'
import { mpcRoutes } from './modules/mpc'
import { cardOnrampRoutes } from './modules/card-onramp'
import { notificationRoutes } from './modules/notifications'
import { lendingRoutes } from './modules/lending'
import { dappRoutes } from './modules/dapps'
import { portfolioRoutes } from './modules/portfolio'
import { agentPaymentRoutes } from './modules/agent-payments'
import { EMBEDDED_SIMULATOR_PATH } from './sandbox/bank-ramp/embedded'
import { gasSponsorshipRoutes } from './modules/gas-sponsorship'
import { faucetRoutes } from './modules/faucet'
import { CARD_SANDBOX_PATH } from './sandbox/card-onramp/provider'
import { SANDBOX_SWAP_AGGREGATOR_PATH } from './sandbox/swap-aggregator/embedded'
import { SANDBOX_PRICES_PATH } from './sandbox/prices/provider'

export interface AppOptions {
  /** the docs UI script; the compiled binary passes its embedded copy */
  scalarScript?: DocsScript
  /** this process's job runner: /health/ready probes it, the queue dashboard reads it */
  queue?: JobRunner
  /** worker processes serve only /health, /health/ready and /metrics */
  opsOnly?: boolean
}

/** What the servers need of the app: web-standard request handling. */
export interface App {
  /** may answer without a promise (a synchronous route) */
  fetch(request: Request): Response | Promise<Response>
  handle(request: Request): Promise<Response>
  /** the routes as Elysia registered them (method, path, hooks with their schemas): for tests that read them */
  readonly routes: ReadonlyArray<{ method: string; path: string; hooks?: unknown }>
  /**
   * Answers a server may give from its own router, before `fetch` (Bun.serve's `routes`:
   * matched natively, the query ignored), each the same answer the app gives for that path
   * and method, with the request id, log line and metric (fixedAnswer). `GET /health`, the
   * probe load balancers call most, skips the app's routing and request state this way.
   */
  readonly serverRoutes: Readonly<Record<string, { GET: (request: Request, start?: number) => Response }>>
}

export function createApp(deps: Deps, opts: AppOptions = {}): App {
  const styles = new ErrorStyles()
  const services = buildServices(deps)
  const serverRoutes = { '/health': { GET: fixedAnswer(deps, '/health', LIVENESS) } }
  if (opts.opsOnly) {
    const ops = new Elysia().use(corePlugin(deps, styles)).use(healthRoutes(deps, opts.queue))
    return { ...observed(deps, ops), routes: ops.routes, serverRoutes }
  }
  let app: App | undefined
  const built = new Elysia()
    .use(corePlugin(deps, styles))
    .use(docsPlugin(deps, pkg.version, (r) => app!.handle(r), opts.scalarScript ?? scalarFromSource()))
    .use(healthRoutes(deps, opts.queue))
    // platform
    .use(authRoutes(deps, services.registration))
    .use(tenantRoutes(deps))
    .use(tenantPublicRoutes(deps))
    .use(userRoutes(deps, services.walletOwners, services.revokeSessions, services.stepUp))
    .use(webhookRoutes(deps, services.webhookEventTypes))
    .use(queueDashboardRoutes(deps, opts.queue))
    // wallets and tokens
    .use(walletRoutes(deps, services.balances, services.stepUp))
    .use(userWalletRoutes(deps))
    .use(tokenRoutes(deps))
    .use(passwordResetRoutes(deps))
    .use(socialRoutes(deps))
    .use(passkeyRoutes(deps))
    .use(transactionRoutes(deps, services.stepUp, services.feedSources))
    .use(swapRoutes(deps))
    .use(rampRoutes(deps, services.stepUp))
    .use(mpcRoutes(deps))
    .use(cardOnrampRoutes(deps))
    .use(notificationRoutes(deps))
    .use(lendingRoutes(deps))
    .use(dappRoutes(deps))
    .use(portfolioRoutes(deps, services.balances))
    .use(agentPaymentRoutes(deps, services.stepUp))
    .use(gasSponsorshipRoutes(deps))
  // the sandbox faucet, where sandboxes run (src/sandbox/policy.ts)
  if (deps.config.sandboxFaucet === 'embedded') built.use(faucetRoutes(deps, deps.faucet))
  // the built-in bank ramp sandbox (docs/bank-ramp.md): hosted pages and the partner API, raw requests
  const sim = deps.bankRampSimulator
  // (the body parser may have read the body: the simulator gets the same bytes again)
  if (sim) {
    built.all(`${EMBEDDED_SIMULATOR_PATH}/*`, ({ request }) => sim.fetch(request.bodyUsed
      ? new Request(request.url, { method: request.method, headers: request.headers, body: stateOf(request).raw as BodyInit | undefined })
      : request), { detail: { hide: true } })
  }
  // the built-in swap aggregator sandbox (docs/swaps.md): LI.FI's quote API; reads no body
  const swapSandbox = deps.sandboxSwapAggregator
  if (swapSandbox) built.all(`${SANDBOX_SWAP_AGGREGATOR_PATH}/*`, ({ request }) => swapSandbox.fetch(request), { detail: { hide: true } })
  // the built-in price provider sandbox (docs/portfolio.md): CoinGecko's simple/price; reads no body
  const pricesSandbox = deps.sandboxPrices
  if (pricesSandbox) built.all(`${SANDBOX_PRICES_PATH}/*`, ({ request }) => pricesSandbox.fetch(request), { detail: { hide: true } })
  // the built-in card onramp sandbox (docs/card-onramp.md): Stripe's onramp API and the hosted page
  const cardSandbox = deps.cardOnrampSandbox
  if (cardSandbox) {
    built.all(`${CARD_SANDBOX_PATH}/*`, ({ request }) => cardSandbox.fetch(request.bodyUsed
      ? new Request(request.url, { method: request.method, headers: request.headers, body: stateOf(request).raw as BodyInit | undefined })
      : request), { detail: { hide: true } })
  }
  styles.build(built.routes)
  withoutBodyParsers(built.routes)
  app = deadlined(deps, requestScoped(deps, { ...observed(deps, built), routes: built.routes, serverRoutes }))
  sim?.attach((r) => app!.handle(r))
  cardSandbox?.attach((r) => app!.handle(r))
  return app
}


/**
 * With tenants placed on databases of their own (docs/scaling.md), each request runs in a
 * scope that its credential check points at the caller's tenant's database; without, the
 * app is returned as it is (no scope, nothing added to a request).
 */
function requestScoped(deps: Deps, app: App): App {
  if (!placementOf(deps.database)) return app
  const { fetch, handle } = app
  return {
    routes: app.routes,
    serverRoutes: app.serverRoutes,
    fetch: (request) => inRequestScope(deps.database, () => fetch(request)),
    handle: (request) => inRequestScope(deps.database, () => handle(request)),
  }
}

/**
 * Against a server or a replica, a request that may write (not GET or HEAD) counts its writes' deadline from its own
 * start (src/db/deadline.ts): it answers, a 503 included, within DATABASE_TIMEOUT_MS of arriving. GETs and a local
 * file (no timeouts) are left as they are.
 */
function deadlined(deps: Deps, app: App): App {
  if (deps.database.mode === 'local') return app
  const { fetch, handle } = app
  const reads = (request: Request) => request.method === 'GET' || request.method === 'HEAD'
  return {
    routes: app.routes,
    serverRoutes: app.serverRoutes,
    fetch: (request) => (reads(request) ? fetch(request) : asRequest(() => fetch(request))),
    handle: (request) => (reads(request) ? handle(request) : asRequest(() => handle(request))),
  }
}

/**
 * The body parser is set for every route (corePlugin), and Elysia compiles any route
 * with a parser as an async function, even a GET that never reads a body: every answer
 * then waits on a promise. Routes that take no body drop it before their first request
 * compiles them, so `/health` answers synchronously (tests/platform/http-basics.test.ts).
 */
function withoutBodyParsers(routes: ReadonlyArray<{ method: string; hooks?: unknown }>) {
  for (const r of routes) if (r.method === 'GET' || r.method === 'HEAD') delete (r.hooks as { parse?: unknown }).parse
}

/**
 * A fetch handler for Bun.serve that records the socket's address for client-IP rules,
 * and counts requests in flight so a shutdown can drain them: once `draining` is set,
 * answers carry `Connection: close`, so no client sends another request on a connection
 * the server is about to close. Its `routes` (the app's server routes) go beside it, in
 * Bun.serve's `routes`.
 */
export function bunFetch(app: App) {
  const state = { inFlight: 0, lastRequestAt: 0, draining: false }
  const done = (res: Response) => {
    state.inFlight--
    if (state.draining) res.headers.set('connection', 'close')
    return res
  }
  const failed = (err: unknown): never => {
    state.inFlight--
    throw err
  }
  // not async: a route that answers synchronously reaches Bun.serve without a promise
  const handler = (request: Request, server: { requestIP(r: Request): { address: string } | null }): Response | Promise<Response> => {
    // the request's state is made here, with its start time: the same clock reading serves for idleness
    state.lastRequestAt = setSocketSource(request, server).start
    state.inFlight++
    let out: Response | Promise<Response>
    try {
      out = app.fetch(request)
    } catch (err) {
      return failed(err)
    }
    return out instanceof Promise ? out.then(done, failed) : done(out)
  }
  // the app's server routes (App.serverRoutes), answered synchronously: counted for draining the same way
  const routes: Record<string, { GET: (request: Request) => Response }> = {}
  for (const [path, { GET: answer }] of Object.entries(app.serverRoutes)) {
    routes[path] = {
      GET: (request) => {
        // one clock reading: the answer's start is the last request's time
        const res = answer(request, (state.lastRequestAt = performance.now()))
        if (state.draining) res.headers.set('connection', 'close')
        return res
      },
    }
  }
  return Object.assign(handler, { state, routes })
}
