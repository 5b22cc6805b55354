/**
 * Boot under Bun (loaded by src/index.ts): config → deps → app → listen, and the job
 * runner unless this is an API-only process. SLIPWAY_ROLE: `all` (default), `api` (HTTP, no queue) or `worker`
 * (queue, with only /health, /health/ready and /metrics over HTTP).
 */
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { bunFetch, createApp } from './app'
import type { Config } from './config'
import { applyMigrations } from './db/migrate'
import { buildDeps, type Deps } from './deps'
import { SERVER_MAX_REQUEST_BODY_SIZE } from './http/core'
import { scalarScript } from './http/scalar-asset'
import { registerJobs } from './services'
import { engineRamInEffect } from './lib/engine-memory'
import { errorSummary } from './lib/logger'
import { mark } from './lib/start-trace'
import { devnetNotice } from './ops/devnet-notice'
import { JobRunner } from './jobs/runner'
import { ensureBootstrapAdmin, hasAdmin } from './modules/auth'
import { cliName, command, configOrExit } from './cli'

/**
 * The durable queue: beside a file database (or an embedded replica), in DATA_DIR for a
 * remote one (a worker near the primary must not lose queued jobs in a crash), and in
 * memory for an in-memory database.
 */
function queuePath(config: Config): string | undefined {
  if (config.databaseUrl === ':memory:' || config.databaseUrl.includes(':memory:')) return undefined
  const dir = config.databaseUrl.startsWith('file:') ? dirname(config.databaseUrl.slice('file:'.length).split('?')[0]!) : config.dataDir
  const path = join(dir, 'queue.sqlite')
  mkdirSync(dirname(path), { recursive: true })
  return path
}

/** Answers while the server is starting: not ready yet (so /health too). */
const starting = () => Response.json({ statusCode: 503, error: 'Service Unavailable', message: 'Starting' }, { status: 503, headers: { 'retry-after': '1' } })

/** One line for a port that cannot be taken, naming the setting to change. */
export function listenError(err: unknown, config: Pick<Config, 'host' | 'port'>): string {
  const where = `cannot listen on ${config.host}:${config.port}`
  switch ((err as { code?: string }).code) {
    case 'EADDRINUSE': return `slipway: ${where}: the port is in use (another Slipway?); set PORT to a free port, or 0 for any`
    case 'EACCES': return `slipway: ${where}: permission denied (ports below 1024 need privileges); set PORT to 1024 or above`
    case 'EADDRNOTAVAIL': return `slipway: ${where}: the address is not one of this machine's; check HOST`
    default: return `slipway: ${where}: ${err instanceof Error ? err.message : String(err)}`
  }
}

/**
 * The port is taken first, before anything is written (the database file, master.key, the
 * queue folder): a server started on a port in use stops with one line and leaves its
 * folder as it was. Until the app is ready, the port answers 503.
 */
function listenOrExit(config: Config) {
  try {
    return Bun.serve({ port: config.port, hostname: config.host, fetch: starting, maxRequestBodySize: SERVER_MAX_REQUEST_BODY_SIZE })
  } catch (err) {
    console.error(listenError(err, config))
    process.exit(1)
  }
}

/** How long after the server answers its background work starts (main). */
const BACKGROUND_START_DELAY_MS = 100

/** The sandboxes' work a stopped server left owed, resumed where background work runs. */
function resumeSandboxes(deps: Deps) {
  // the sandbox simulator's deposits a stopped server left mid-way (docs/bank-ramp.md)
  deps.bankRampSimulator?.resume().then(
    (count) => count && deps.logger.info('bank ramp simulator: deposits resumed', { count }),
    (err) => deps.logger.warn('bank ramp simulator: deposits not resumed', { ...errorSummary(err) }),
  )
  // the card onramp sandbox's deliveries and events a stopped server left owed (docs/card-onramp.md)
  deps.cardOnrampSandbox?.resume().then(
    (count) => count && deps.logger.info('card onramp sandbox: sessions resumed', { count }),
    (err) => deps.logger.warn('card onramp sandbox: sessions not resumed', { ...errorSummary(err) }),
  )
}

async function main() {
  mark('loaded')
  const config = configOrExit()
  const server = listenOrExit(config)
  mark('listening')
  const deps = await buildDeps(config, { migrate: applyMigrations })
  mark('deps')
  // The bootstrap admin is made (its password hashed by Bun's argon2: about 35 ms of CPU, off the event loop) while the server already
  // answers /health; every other request waits for it (below), so none is served before it exists.
  const bootstrap = config.bootstrapAdminUsername && config.bootstrapAdminPassword
    ? ensureBootstrapAdmin(deps, config.bootstrapAdminUsername, config.bootstrapAdminPassword)
    : undefined
  if (!bootstrap && config.role !== 'worker' && !(await hasAdmin(deps))) {
    deps.logger.warn('no platform admin yet', {
      howTo: `${cliName()} create-admin <username> (password in ADMIN_PASSWORD or on stdin), or start once with BOOTSTRAP_ADMIN_USERNAME and BOOTSTRAP_ADMIN_PASSWORD`,
      docs: `${config.publicBaseUrl}/v1/docs`,
    })
  }
  mark('admin')
  const runner = config.role === 'api' ? undefined : registerJobs(new JobRunner(deps, { queueName: 'slipway', dataPath: queuePath(config), claimLeaseMs: config.jobClaimLeaseMs }))
  const app = createApp(deps, { scalarScript, queue: runner, opsOnly: config.role === 'worker' })
  mark('app')
  const fetch = bunFetch(app)
  const made = bootstrap?.then((result) => {
    if (result === 'created') deps.logger.info('bootstrap admin created', { username: config.bootstrapAdminUsername })
  }, (err) => {
    // as before the server answered: a start that cannot make its bootstrap admin stops
    console.error(err instanceof Error ? (err.stack ?? err.message) : err)
    process.exit(1)
  })
  if (made) {
    server.reload({ fetch: (request: Request, srv: Parameters<typeof fetch>[1]) => made.then(() => fetch(request, srv)), routes: fetch.routes })
    void made.then(() => server.reload({ fetch, routes: fetch.routes }))
  } else {
    server.reload({ fetch, routes: fetch.routes })
  }
  let stopping = false
  // Background work (the job runner, the sandboxes' resumed work) starts a moment after the
  // server answers, so the first requests do not wait behind it (the event loop is one thread).
  const background = setTimeout(() => {
    if (stopping) return
    if (runner) {
      runner.start()
      resumeSandboxes(deps)
    }
    // What the start left (the migrations' text, the route builders' and compilers' temporaries)
    // collected once the bootstrap admin exists, not whenever the engine next collects: an idle
    // server holds less (docs/operations.md, Memory).
    void (made ?? Promise.resolve()).then(() => Bun.gc(true))
  }, BACKGROUND_START_DELAY_MS)
  deps.logger.info('listening', {
    url: `http://${server.hostname}:${server.port}`,
    publicBaseUrl: config.publicBaseUrl,
    docs: `${config.publicBaseUrl}/v1/docs`,
    role: config.role,
    engineRamMib: engineRamInEffect() ?? 'machine',
  })
  const devnet = devnetNotice(config)
  if (devnet) deps.logger[devnet.level](devnet.message, devnet.fields)
  deps.logger.flush()
  mark('ready')
  // The binary starts with JavaScriptCore's tier-up thresholds scaled (scripts/build.ts, jitPolicy), so
  // code that runs once at start stays in the interpreter; from the first request on, the normal policy.
  Bun.unsafe.setJITPolicy(1)

  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    clearTimeout(background)
    deps.logger.info('shutting down', { signal })
    // Drain: answer what arrives with `Connection: close` until nothing is in flight and
    // nothing new came for a moment (a load balancer has stopped sending), within the grace
    // period; then close the listener and the idle connections.
    fetch.state.draining = true
    const deadline = performance.now() + config.shutdownGraceMs
    while (performance.now() < deadline && (fetch.state.inFlight > 0 || performance.now() - fetch.state.lastRequestAt < 250)) await Bun.sleep(25)
    const timedOut = fetch.state.inFlight > 0
    await server.stop(timedOut)
    // Running jobs finish; queued ones stay durable in the queue and the outbox for the next start.
    await runner?.stop()
    deps.database.close()
    deps.logger.info('stopped', { signal, forcedConnections: timedOut })
    deps.logger.flush()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

/** With no command, serve; otherwise an operator command (usage). */
export function run(cmd: string | undefined, rest: string[]): Promise<void> {
  return cmd ? command(cmd, rest) : main()
}
