/**
 * Every script in examples/ run as a user runs it, against the devnet: `scripts/devnet.ts` (the
 * chains and the x402 merchant) on free ports, a Slipway server reading its env file (with the
 * tests' MPC engine), tenants made with `slipway tenant create`, then each example as its own
 * process with the environment `tenant create` prints; its output is checked line by line.
 * Also: a failure is one line (a server that is not there), and a user made can be resumed.
 * The type-check and the docs' links: typecheck.test.ts.
 *
 * mpc.ts (its own tenant; a DKG and a signature across three parties, 10 s of the file's 23 s
 * when it ran last) starts as soon as its tenant exists and runs beside the other examples; its
 * test reads what it printed. The two tenants are made at once.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@tests/helpers/process'
import { ensureMpcEngine } from '@tests/helpers/mpc-engine'

const ROOT = join(import.meta.dir, '..', '..')
const dir = mkdtempSync(join(tmpdir(), 'slipway-examples-'))
const children: Array<ReturnType<typeof Bun.spawn>> = []
let env: Record<string, string> = {}
let baseUrl = ''
/** what `tenant create --sandbox --admin acme-admin` printed, and an mpc-mode tenant's */
let acme: Record<string, string> = {}
let mpcTenant: Record<string, string> = {}
/** examples/mpc.ts, started at the end of beforeAll */
let mpcRun: ReturnType<typeof example>

async function waitFor<T>(what: string, read: () => T | Promise<T>, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await read()
    if (v) return v
    if (Date.now() > end) throw new Error(`${what}: not in ${timeoutMs / 1000} s`)
    await Bun.sleep(100)
  }
}

async function cli(args: string[], extra: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, join(ROOT, 'src/index.ts'), ...args], { cwd: ROOT, env: { ...env, ...extra }, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) throw new Error(`slipway ${args.join(' ')} exited ${code}: ${err}`)
  return Object.fromEntries([...out.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!.replace(/^'|'$/g, '')]))
}

/** Runs `npx bun examples/<file> ...args` as a user does; answers its exit code and output. */
async function example(file: string, args: string[] = [], extra: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, join('examples', file), ...args], {
    cwd: ROOT, env: { ...process.env, SLIPWAY_URL: baseUrl, ...acme, ...extra }, stdout: 'pipe', stderr: 'pipe',
  })
  children.push(proc)
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) console.error(`examples/${file} exited ${code}\n${out}\n${err}`)
  return { code, out, err }
}

beforeAll(async () => {
  const envFile = join(dir, '.env.devnet')
  children.push(Bun.spawn([process.execPath, join(ROOT, 'scripts/devnet.ts'), '--port', '0', '--env-file', envFile, '--dir', join(dir, 'chains'), '--block-time', '0'], { cwd: ROOT, stdout: 'ignore', stderr: 'inherit' }))
  // the devnet starts two alto bundlers (Node processes) before it writes the file: up to a minute on a loaded machine
  const written: string = await waitFor('.env.devnet', () => (existsSync(envFile) ? readFileSync(envFile, 'utf8') : ''), 60_000)
  const devEnv = Object.fromEntries(written.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
  const port = freePort()
  baseUrl = `http://127.0.0.1:${port}`
  env = {
    ...process.env as Record<string, string>, ...devEnv, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: baseUrl,
    DATABASE_URL: `file:${join(dir, 'slipway.db')}`, DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'warn', NODE_ENV: 'development', MPC_ENGINE: ensureMpcEngine(),
  }
  children.push(Bun.spawn([process.execPath, join(ROOT, 'src/index.ts')], { cwd: ROOT, env, stdout: 'inherit', stderr: 'inherit' }))
  await waitFor('the server answers /health', () => fetch(`${baseUrl}/health`).then((r) => r.ok, () => false))
  ;[acme, mpcTenant] = await Promise.all([
    cli(['tenant', 'create', '--name', 'Acme', '--sandbox', '--admin', 'acme-admin'], { ADMIN_PASSWORD: 'Acme-Admin-passw0rd' }),
    cli(['tenant', 'create', '--name', 'Mpc Co', '--wallet-mode', 'mpc', '--sandbox']),
  ])
  acme.SLIPWAY_ADMIN_PASSWORD ??= 'Acme-Admin-passw0rd'
  acme.SLIPWAY_ADMIN_USERNAME ??= 'acme-admin'
  mpcRun = example('mpc.ts', [], { ...mpcTenant, MPC_ENGINE: env.MPC_ENGINE! })
}, 90_000)

afterAll(async () => {
  for (const c of children) c.kill('SIGTERM')
  await Promise.all(children.map((c) => c.exited))
  rmSync(dir, { recursive: true, force: true })
})

describe('examples/ against the devnet', () => {
  test('hello.ts registers a user and prints how to resume as it; --user resumes; Slipway not there: one line, exit 1', async () => {
    const first = await example('hello.ts')
    expect(first.code).toBe(0)
    const username = /^user (alice-[0-9a-f]{8}) registered \(password Str0ng-Passw0rd\); run again as this user: npx bun examples\/hello\.ts --user \1$/m.exec(first.out)?.[1]
    expect(username).toBeDefined()
    expect(first.out).toMatch(new RegExp(`^hello ${username}: user [0-9a-f-]{36} of this tenant, email ${username}@example.com$`, 'm'))
    const again = await example('hello.ts', ['--user', username!])
    expect(again.code).toBe(0)
    expect(again.out).toContain(`user ${username} signed in\nhello ${username}: user `)
    const down = freePort()
    const gone = await example('hello.ts', [], { SLIPWAY_URL: `http://127.0.0.1:${down}`, SLIPWAY_WAIT_MS: '800' })
    expect(gone.code).toBe(1)
    expect(gone.err.trim().split('\n')).toEqual([
      `waiting for Slipway at http://127.0.0.1:${down} (starting or restarting?)`,
      expect.stringMatching(new RegExp(`^hello: Slipway at http://127\\.0\\.0\\.1:${down} refused the connection for \\d s: is it running\\? \\(npm start\\)$`)),
    ])
    // a missing credential: one line naming where it comes from
    const bare = await example('hello.ts', [], { SLIPWAY_API_KEY: '' })
    expect([bare.code, bare.err.trim().split('\n').length]).toEqual([2, 1])
    expect(bare.err).toStartWith('SLIPWAY_API_KEY is not set: eval "$(npm run -s slipway -- tenant create')
  }, 60_000)

  test('webhooks-listener.ts verifies a delivery forwarded by `slipway webhooks listen` and prints it', async () => {
    const port = freePort()
    const listen = Bun.spawn([process.execPath, join(ROOT, 'src/index.ts'), 'webhooks', 'listen', '--tenant', acme.SLIPWAY_TENANT_ID!, '--forward-to', `http://127.0.0.1:${port}/`], { cwd: ROOT, env, stdout: 'ignore', stderr: 'pipe' })
    children.push(listen)
    let banner = ''
    const reader = (listen.stderr as ReadableStream<Uint8Array>).getReader()
    await waitFor('the listener is ready', async () => {
      const { value, done } = await reader.read()
      if (done) throw new Error(`webhooks listen stopped: ${banner}`)
      banner += new TextDecoder().decode(value)
      return banner.includes('Ready.')
    })
    const secret = /Signing secret: (whsec_\S+)/.exec(banner)![1]!
    const receiver = example('webhooks-listener.ts', [String(port), '--count', '1'], { SLIPWAY_WEBHOOK_SECRET: secret })
    await waitFor('the example listens', () => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).then((r) => r.status === 401, () => false))
    // a test delivery, sent by the tenant's administrator
    const { SlipwayClient, orThrow } = await import('@slipway/client')
    const admin = new SlipwayClient({ baseUrl, tenant: { apiKey: acme.SLIPWAY_API_KEY!, apiSecret: acme.SLIPWAY_API_SECRET! } })
    orThrow(await admin.login({ username: acme.SLIPWAY_ADMIN_USERNAME!, password: acme.SLIPWAY_ADMIN_PASSWORD! }))
    orThrow(await admin.api.POST('/v1/admin/tenants/{id}/webhooks/{environment}/test', { params: { path: { id: acme.SLIPWAY_TENANT_ID!, environment: 'sandbox' } } }))
    const got = await receiver
    listen.kill('SIGTERM')
    await listen.exited
    expect(got.code).toBe(0)
    expect(got.out).toContain(`listening on http://127.0.0.1:${port}/`)
    expect(got.out).toMatch(/^verified webhook\.test evt_[0-9a-f]+ \{.*"message":"This is a test delivery from Slipway\."/m)
  }, 60_000)

  test('bank-ramp.ts: KYC, a 100 EUR deposit credited as 106.92 USDC, a 50 USDC payout completed', async () => {
    const r = await example('bank-ramp.ts')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^wallet 0x[0-9a-fA-F]{40} on sepolia, with gas$/m)
    expect(r.out).toContain('kyc approved')
    expect(r.out).toMatch(/^deposit \S+ of 100 EUR to \S+: completed$/m)
    expect(r.out).toContain('the wallet holds 106.92 USDC')
    expect(r.out).toMatch(/^payout \S+: completed, [0-9.]+ EUR to the bank for 50 USDC$/m)
  }, 150_000)

  test('swaps.ts: on the devnet\'s gnosis-chiado (a testnet wallet), xDAI to USDC, then USDC to EURe with the router approved first', async () => {
    const r = await example('swaps.ts', [], { DEVNET_CHIADO_RPC: env.RPC_URL_GNOSIS_CHIADO! })
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^wallet 0x[0-9a-fA-F]{40} on the devnet's gnosis-chiado \(isTestnet: true\), 10 xDAI of gas$/m)
    expect(r.out).toMatch(/^swapped 2 xDAI for \d+ USDC units$/m)
    expect(r.out).toMatch(/^swapped 1 USDC for \d+ EURe units \(router approved first: true\)$/m)
  }, 120_000)

  test('card-onramp.ts: the enable step, a session paid and completed, the USDC delivered on chain', async () => {
    const r = await example('card-onramp.ts')
    expect(r.code).toBe(0)
    expect(r.out).toContain(`card onramp enabled for tenant ${acme.SLIPWAY_TENANT_ID} (sandbox connected)`)
    expect(r.out).toMatch(/^session \S+: initialized; the user opens http:\/\/127\.0\.0\.1:\d+\/sandbox\/card-onramp\/session\/cos_\w+$/m)
    expect(r.out).toMatch(/^session \S+: fulfillment_complete, [0-9.]+ USDC delivered in 0x[0-9a-f]{64}$/m)
  }, 120_000)

  test('x402.ts: the agent pays 0.01 USDC and gets the forecast', async () => {
    const r = await example('x402.ts')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^paid 0\.01 USDC in 0x[0-9a-f]{64}: \{"city":"Lisbon","forecast":"sunny","temperatureC":21\}$/m)
  }, 120_000)

  test('mpc.ts: create (DKG with the service party), fund, send, confirmed', async () => {
    const r = await mpcRun
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^created MPC wallet 0x[0-9a-fA-F]{40} on sepolia$/m)
    expect(r.out).toMatch(/^funded with [1-9]\d* wei$/m)
    expect(r.out).toMatch(/^sent 0\.001 ETH to 0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0002: 0x[0-9a-f]{64}, confirmed$/m)
  }, 120_000)
})
