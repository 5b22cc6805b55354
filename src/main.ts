/**
 * Boot under Bun (loaded by src/index.ts): config → deps → app → listen, and the job
 * runner unless this is an API-only process. SLIPWAY_ROLE: `all` (default), `api` (HTTP, no queue) or `worker`
 * (queue, with only /health, /health/ready and /metrics over HTTP).
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { bunFetch, createApp } from './app'
import { ConfigError, loadConfig, type Config } from './config'
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
import { createAdmin, createTenantAdmin, ensureBootstrapAdmin, hasAdmin } from './modules/auth'
import { createTenant } from './modules/tenants'
import { version } from '../package.json'

function configOrExit(): Config {
  try {
    return loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message)
      process.exit(1)
    }
    throw err
  }
}

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

/**
 * How hints name this program: the compiled binary by the name it was started with
 * (`slipway`, `./slipway`, `/usr/local/bin/slipway`), a clone by its npm script.
 */
function cliName(): string {
  // a compiled binary's argv[1] is its embedded script (see src/lib/engine-memory.ts)
  return process.argv[1]?.startsWith('/$bunfs/') ? process.argv0 : 'npm run slipway --'
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
  // The bootstrap admin is made (its password hashed: 15-20 ms of CPU) while the server already
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

const usage = (cli: string) => `Usage: ${cli} [command]

With no command, serves the API (and runs background jobs; see SLIPWAY_ROLE). Every command
reads the same environment variables as the server (docs/configuration.md), so it acts on the
server's database.

Commands:
  tenant create --name <name> [--admin <username>] [--sandbox] [--wallet-mode <mode>]
                                create a tenant; prints its API key and secret as export lines
                                (SLIPWAY_API_KEY, SLIPWAY_API_SECRET) for the signing client. --admin also
                                creates its administrator (tenantadmin: webhooks, users, settings) with the
                                password in ADMIN_PASSWORD, or a generated one printed as SLIPWAY_ADMIN_PASSWORD.
                                --sandbox connects its bank ramp sandbox to the built-in simulator (docs/sandbox.md);
                                --wallet-mode custodial (default), non_custodial or mpc (docs/mpc.md)
  webhooks listen --tenant <tenantId> [--port <port>] [--forward-to <url>] [--json]
                                point the tenant's sandbox webhook at this machine until Ctrl-C and print
                                every event, its signature verified (docs/webhooks.md, "Local development")
  sandbox reset-user --tenant <tenantId> --user <userId>
                                forget the user's bank ramp sandbox (the simulator's customer and Slipway's
                                KYC, IBANs, deposits, payouts) so they onboard again (docs/bank-ramp.md)
  paymaster deposit --network <id> --amount <wei>
                                top up the network's paymaster deposit in EntryPoint v0.8 from a funded key
                                read from standard input (docs/gas-sponsorship.md)
  paymaster signer --network <id> [--generate] [--replace]
                                store the key the network's paymaster trusts, sealed in the database, read from
                                standard input or generated; prints its address (docs/gas-sponsorship.md)
  create-admin <username>       create a platform admin; the password is read from ADMIN_PASSWORD or stdin
  reseal [--check]              re-seal every secret under the current MASTER_KEY_VERSION; --check only
                                counts values per key version. Exit 0 when none is left under an old one
  healthcheck                   exit 0 when /health answers on PORT (Docker's HEALTHCHECK)
  --version, -v                 the version (${version})
  --licences [--json]           the licences of the dependencies this build ships, counted by licence, and
                                the notable ones (docs/operations.md, Licences)
  help, --help, -h              this text
`

/** Operator commands, in the binary too (see usage). */
async function command(name: string, args: string[]) {
  // an operator command is not a server's start: the normal JIT policy (scripts/build.ts, jitPolicy)
  Bun.unsafe.setJITPolicy(1)
  const cli = cliName()
  if (name === 'help' || name === '--help' || name === '-h') {
    console.log(usage(cli))
    process.exit(0)
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    console.log(version)
    process.exit(0)
  }
  if (name === '--licences' || name === '--licenses') {
    // computed at build time in the binary, from package-lock.json in a clone (src/ops/licences/shipped.ts)
    const [{ shippedLicences }, { formatReport }] = await Promise.all([import('./ops/licences/shipped'), import('./ops/licences/report')])
    const report = shippedLicences()
    console.log(args.includes('--json') ? JSON.stringify(report, null, 2) : formatReport(report, version))
    process.exit(0)
  }
  const config = configOrExit()
  if (name === 'healthcheck') {
    try {
      const res = await fetch(`http://127.0.0.1:${config.port}/health`, { signal: AbortSignal.timeout(3000) })
      process.exit(res.ok ? 0 : 1)
    } catch {
      process.exit(1)
    }
  }
  if (name === 'create-admin') {
    const username = args[0]
    const password = process.env.ADMIN_PASSWORD ?? (await new Response(Bun.stdin.stream()).text()).trim()
    if (!username || password.length < 8) {
      console.error(`usage: ${cli} create-admin <username>  (password of at least 8 characters in ADMIN_PASSWORD or on stdin)`)
      process.exit(2)
    }
    const deps = await buildDeps(config, { migrate: applyMigrations })
    try {
      const id = await createAdmin(deps, username, password)
      console.log(`platform admin ${username} created (${id})`)
    } catch (err) {
      console.error((err as Error).message)
      process.exitCode = 1
    } finally {
      deps.database.close()
    }
    process.exit()
  }
  if (name === 'reseal') {
    const deps = await buildDeps(config, { migrate: applyMigrations })
    try {
      // loaded here only: the wallet key code it uses pulls in the chain libraries
      const { reseal, sealedVersions } = await import('./ops/reseal')
      const report = args[0] === '--check' ? await sealedVersions(deps) : await reseal(deps)
      console.log(JSON.stringify(report, null, 2))
      process.exitCode = report.remaining === 0 ? 0 : 1
    } finally {
      deps.database.close()
    }
    process.exit()
  }
  if (name === 'webhooks' && args[0] === 'listen') {
    const { webhooksListen } = await import('./ops/webhooks-listen')
    process.exit(await webhooksListen(config, args.slice(1)))
  }
  if (name === 'paymaster' && args[0] === 'signer') {
    const deps = await buildDeps(config, { migrate: applyMigrations })
    try {
      const { paymasterSigner } = await import('./ops/paymaster-signer')
      process.exitCode = await paymasterSigner(deps, args.slice(1), () => new Response(Bun.stdin.stream()).text())
    } finally {
      deps.database.close()
    }
    process.exit()
  }
  if (name === 'paymaster' && args[0] === 'deposit') {
    const { paymasterDeposit } = await import('./ops/paymaster-deposit')
    process.exit(await paymasterDeposit(config, args.slice(1), () => new Response(Bun.stdin.stream()).text()))
  }
  if (name === 'sandbox' && args[0] === 'reset-user') process.exit(await (await import('./ops/sandbox-reset-user')).sandboxResetUser(config, args.slice(1)))
  if (name === 'tenant' && args[0] === 'create') {
    const name = optionValue(args.slice(1), '--name')
    const adminName = optionValue(args.slice(1), '--admin')
    // --sandbox: the bank ramp sandbox connected to the built-in simulator, every function on
    const sandbox = args.includes('--sandbox')
    const walletMode = optionValue(args.slice(1), '--wallet-mode')
    const badName = !name || name.length > 200
    const badAdmin = adminName !== undefined && !/^[A-Za-z0-9_-]{3,100}$/.test(adminName)
    const badMode = walletMode !== undefined && !['custodial', 'non_custodial', 'mpc'].includes(walletMode)
    if (badName || badAdmin || badMode) {
      console.error(
        `usage: ${cli} tenant create --name <name> [--admin <username>] [--sandbox] [--wallet-mode custodial|non_custodial|mpc]`
          + '  (name: 1 to 200 characters; username: 3 to 100 letters, digits, _ or -)',
      )
      process.exit(2)
    }
    const adminPassword = process.env.ADMIN_PASSWORD ?? randomBytes(18).toString('base64url')
    if (adminName !== undefined && adminPassword.length < 8) {
      console.error('ADMIN_PASSWORD must have at least 8 characters')
      process.exit(2)
    }
    const deps = await buildDeps(config, { migrate: applyMigrations })
    try {
      const tenant = await createTenant({ deps, actor: null, tenant: null, requestId: 'cli' }, {
        name,
        settings: {
          ...(sandbox ? { bankRamp: { sandbox: { connected: true, functions: { kyc: true, payin: true, payout: true } } } } : {}),
          ...(walletMode ? { walletMode: walletMode as 'custodial' | 'non_custodial' | 'mpc' } : {}),
        },
      })
      // the export lines alone on stdout, so `eval "$(slipway tenant create --name Acme)"` works
      console.error(
        `tenant ${tenant.name} created (${tenant.id}); the secret is shown once, and again with GET /v1/admin/tenants/{id}/api-secret`
          + (sandbox ? '; its bank ramp sandbox is the built-in simulator' : '')
          + (walletMode ? `; wallet mode ${walletMode}` : ''),
      )
      const lines = [`export SLIPWAY_TENANT_ID=${tenant.id}`, `export SLIPWAY_API_KEY=${tenant.apiKey}`, `export SLIPWAY_API_SECRET=${tenant.apiSecret}`]
      if (adminName !== undefined) {
        await createTenantAdmin(deps, tenant.id, adminName, adminPassword)
        console.error(
          `tenant administrator ${adminName} created: it signs in with the tenant-signed POST /v1/auth/login`
            + ' and manages the tenant\'s webhooks (docs/webhooks.md)'
            + (process.env.ADMIN_PASSWORD ? ' with the password in ADMIN_PASSWORD' : '; its generated password is shown once'),
        )
        lines.push(`export SLIPWAY_ADMIN_USERNAME=${adminName}`)
        if (!process.env.ADMIN_PASSWORD) lines.push(`export SLIPWAY_ADMIN_PASSWORD=${adminPassword}`)
      }
      console.log(lines.join('\n'))
    } finally {
      deps.database.close()
    }
    process.exit()
  }
  console.error(`unknown command: ${[name, ...args].join(' ')}\n\n${usage(cli)}`)
  process.exit(2)
}

/** `--name Acme` or `--name=Acme`. */
function optionValue(args: string[], option: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === option) return args[i + 1]?.trim()
    if (args[i]!.startsWith(`${option}=`)) return args[i]!.slice(option.length + 1).trim()
  }
  return undefined
}

/** With no command, serve; otherwise an operator command (usage). */
export function run(cmd: string | undefined, rest: string[]): Promise<void> {
  return cmd ? command(cmd, rest) : main()
}
