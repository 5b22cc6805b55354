/**
 * The operator commands (`slipway tenant create`, `create-admin`, `reseal`...; the usage text
 * below), in the binary too: src/main.ts runs one when the process is started with a command.
 */
import { randomBytes } from 'node:crypto'
import { ConfigError, loadConfig, type Config } from './config'
import { applyMigrations } from './db/migrate'
import { buildDeps } from './deps'
import { createAdmin, createTenantAdmin } from './modules/auth'
import { createTenant } from './modules/tenants'
import { version } from '../package.json'

export function configOrExit(): Config {
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
 * How hints name this program: the compiled binary by the name it was started with
 * (`slipway`, `./slipway`, `/usr/local/bin/slipway`), a clone by its npm script.
 */
export function cliName(): string {
  // a compiled binary's argv[1] is its embedded script (see src/lib/engine-memory.ts)
  return process.argv[1]?.startsWith('/$bunfs/') ? process.argv0 : 'npm run slipway --'
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
export async function command(name: string, args: string[]) {
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

