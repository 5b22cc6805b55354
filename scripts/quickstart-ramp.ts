/**
 * The README's bank ramp path, run end to end on one offline machine, so it cannot rot
 * (tests/ops/quickstart-ramp.test.ts runs it in `npm test`):
 *
 *   1. the devnet (scripts/devnet/chain.ts) and a Slipway server reading its settings;
 *   2. `slipway tenant create --name Acme --sandbox --admin acme-admin`: a tenant whose bank
 *      ramp sandbox is the built-in simulator, and its administrator;
 *   3. `slipway webhooks listen --tenant <id> --json`: the tenant's sandbox webhook delivered to
 *      this machine, every event's signature checked;
 *   4. a user with a custodial testnet wallet, gas from `POST /v1/sandbox/faucet`;
 *   5. KYC on the simulator's hosted page (the approve button), a virtual IBAN, a sandbox
 *      deposit of 100 EUR, and the stablecoin credited on chain;
 *   6. Slipway restarted (nothing changes for the user: the KYC status, the IBAN payin/initiate
 *      answers and the deposits list read the same before and after);
 *   7. a payout of 50 USDC to a bank account, completed.
 * The webhook events of each step must reach the listener, verified.
 *
 * Two ways to run it (it exits 0 when every step passed, and prints each step):
 * - `npm run -s quickstart-ramp`: steps 4 to 7 as a user, against the Slipway the README
 *   starts (SLIPWAY_URL, default http://localhost:3000; SLIPWAY_API_KEY and SLIPWAY_API_SECRET
 *   from `tenant create --sandbox`); the events show in the `webhooks listen` terminal.
 * - `bun scripts/quickstart-ramp.ts --self-contained`: all of it, each part started here on
 *   free ports and a temporary folder, the listener's events checked (what CI runs).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, erc20Abi, http, type Address } from 'viem'
import { SlipwayClient } from '../src/client'
import { DEVNET_USDC, startDevnet } from './devnet/chain'
import { oneLineOnError, quickstartSteps } from './quickstart-steps'

const ROOT = join(import.meta.dir, '..')
let dir = ''
const children: Array<ReturnType<typeof Bun.spawn>> = []
const cleanup = () => {
  for (const c of children) c.kill('SIGKILL')
  if (dir) rmSync(dir, { recursive: true, force: true })
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => { cleanup(); process.exit(130) })

const { step, fail, until, elapsed, freePort } = quickstartSteps('quickstart-ramp')

const selfContained = process.argv.includes('--self-contained')
if (!selfContained) {
  // against the server the README starts: npm run devnet, npm start, tenant create --sandbox
  const apiKey = process.env.SLIPWAY_API_KEY
  const apiSecret = process.env.SLIPWAY_API_SECRET
  if (!apiKey || !apiSecret) {
    console.error('SLIPWAY_API_KEY and SLIPWAY_API_SECRET are not set: eval "$(npm run -s slipway -- tenant create --name Acme --sandbox --admin acme-admin)" first (or run with --self-contained)')
    process.exit(2)
  }
  await oneLineOnError('quickstart-ramp', () => userPath({ baseUrl: process.env.SLIPWAY_URL ?? 'http://localhost:3000', tenant: { apiKey, apiSecret }, events: false }))
  console.log('\nquickstart-ramp: every step passed; the webhook events are in the terminal of `slipway webhooks listen`')
  process.exit(0)
}

dir = mkdtempSync(join(tmpdir(), 'slipway-quickstart-ramp-'))
const devnet = await startDevnet({ port: 0, dbPath: join(dir, 'chain') })
const port = freePort()
const baseUrl = `http://127.0.0.1:${port}`
const env = { ...process.env, ...devnet.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: baseUrl, DATABASE_URL: `file:${join(dir, 'slipway.db')}`, LOG_LEVEL: 'warn', NODE_ENV: 'development' }
/** An operator command, run without blocking this process (the devnet runs in it and must answer). */
async function cli(args: string[], extra: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, join(ROOT, 'src/index.ts'), ...args], { cwd: ROOT, env: { ...env, ...extra }, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) fail(`slipway ${args.join(' ')} exited ${code}: ${err}`)
  process.stderr.write(err)
  return out
}

let server: ReturnType<typeof Bun.spawn> | undefined
async function startServer() {
  server = Bun.spawn([process.execPath, join(ROOT, 'src/index.ts')], { cwd: ROOT, env, stdout: 'inherit', stderr: 'inherit' })
  children.push(server)
  await until('the server answers /health', () => fetch(`${baseUrl}/health`).then((r) => r.ok, () => false), (ok) => ok, 30_000)
}

/** The listener's verified events, one JSON object per line on its stdout. */
const received: Array<{ verified: boolean; type: string; id: string; data: Record<string, unknown> }> = []
function listen(tenantId: string) {
  const proc = Bun.spawn([process.execPath, join(ROOT, 'src/index.ts'), 'webhooks', 'listen', '--tenant', tenantId, '--json'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
  children.push(proc)
  // its banner goes to stderr and ends with "Ready." once the webhook points at it
  let banner = ''
  const ready = (async () => {
    const decoder = new TextDecoder()
    const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader()
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return false
      const text = decoder.decode(value, { stream: true })
      process.stderr.write(text)
      banner += text
      if (banner.includes('Ready.')) {
        void (async () => { for (;;) { const r = await reader.read(); if (r.done) break; process.stderr.write(r.value) } })()
        return true
      }
    }
  })()
  void (async () => {
    const decoder = new TextDecoder()
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader()
    let buffer = ''
    for (;;) {
      const { value: chunk, done } = await reader.read()
      if (done) break
      buffer += decoder.decode(chunk, { stream: true })
      let nl: number
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).trim()
        buffer = buffer.slice(nl + 1)
        if (!line.startsWith('{')) continue
        try {
          received.push(JSON.parse(line))
        } catch { /* not an event line */ }
      }
    }
  })()
  return ready
}
const eventSeen = (type: string, match: (data: Record<string, unknown>) => boolean) =>
  until(`the listener receives a verified ${type}`, async () => received.find((e) => e.type === type && match(e.data)), (e) => !!e, 60_000).then((e) => {
    if (!e!.verified) fail(`${type} reached the listener with a bad signature`)
    return e!
  })

/** The user's side of the path, against a running Slipway. */
async function userPath(o: { baseUrl: string; tenant: { apiKey: string; apiSecret: string }; events: boolean; chainUrl?: string; restart?: () => Promise<void> }) {
  step('a user with a custodial Sepolia wallet, and gas from the sandbox faucet')
  const username = `alice-${crypto.randomUUID().slice(0, 8)}`
  const slipway = new SlipwayClient({ baseUrl: o.baseUrl, tenant: o.tenant })
  const reg = await slipway.register({ username, email: `${username}@example.com`, password: 'Str0ng-Passw0rd' })
  if (reg.error) fail(`register: ${JSON.stringify(reg.error)}`)
  console.log(`user ${username} registered (password Str0ng-Passw0rd)`)
  const wallet = await slipway.api.POST('/v1/wallets/', { body: { chain: 'ethereum', isTestnet: true } })
  if (!wallet.data) fail(`create wallet: ${JSON.stringify(wallet.error)}`)
  const walletId = wallet.data!.id
  const address = wallet.data!.address as Address
  const gas = await slipway.api.POST('/v1/sandbox/faucet', { body: { walletId } })
  if (!gas.data) fail(`faucet: ${JSON.stringify(gas.error)}`)
  console.log(`wallet ${address}: gas ${gas.data!.native?.amount ?? 0} wei`)

  step('KYC on the hosted page (approve)')
  const session = await slipway.api.POST('/v1/ramp/bank/payin/onboard-session', { body: { isTestnet: true } })
  if (!session.data) fail(`onboard-session: ${JSON.stringify(session.error)}`)
  if (!(await fetch(session.data!.url)).ok) fail('the hosted page did not open')
  const decided = await fetch(`${session.data!.url}/decision`, { method: 'POST', body: new URLSearchParams({ decision: 'approve' }) })
  if (!decided.ok) fail(`approve: ${decided.status}`)
  await until('KYC approved', async () => (await slipway.api.GET('/v1/ramp/bank/payin/onboarding-status', { params: { query: { isTestnet: 'true' } } })).data, (s) => s?.kycStatus === 'approved', 30_000)
  if (o.events) await eventSeen('ramp.kyc.updated', (d) => d.kycStatus === 'approved')
  console.log(`kyc approved${o.events ? ' (ramp.kyc.updated received and verified)' : ''}`)

  step('a virtual IBAN and a sandbox deposit of 100 EUR, credited on chain')
  const iban = await slipway.api.POST('/v1/ramp/bank/payin/initiate', { body: { walletId, isTestnet: true } })
  if (!iban.data) fail(`payin/initiate: ${JSON.stringify(iban.error)}`)
  const deposit = await slipway.api.POST('/v1/ramp/bank/payin/sandbox/simulate-deposit', { body: { amount: 100 } })
  if (!deposit.data) fail(`simulate-deposit: ${JSON.stringify(deposit.error)}`)
  console.log(`deposit ${deposit.data!.depositId} sent  (${elapsed()})`)
  await until('the deposit completes', async () => (await slipway.api.GET('/v1/ramp/bank/payin/deposits', { params: { query: { isTestnet: 'true' } } })).data?.deposits.find((d) => d.id === deposit.data!.depositId), (d) => d?.status === 'completed', 60_000)
  const usdc = async () => BigInt((await slipway.api.GET('/v1/wallets/{id}/balance', { params: { path: { id: walletId } } })).data?.tokens.find((t) => t.symbol === 'USDC')?.rawBalance ?? '0')
  console.log(`deposit completed  (${elapsed()})`)
  const credited = o.chainUrl
    ? await until('the stablecoin reaches the wallet', () => createPublicClient({ transport: http(o.chainUrl) }).readContract({ address: DEVNET_USDC, abi: erc20Abi, functionName: 'balanceOf', args: [address] }), (b) => b > 0n)
    : await until('the stablecoin reaches the wallet (balances are cached up to 15 s)', usdc, (b) => b > 0n)
  if (o.events) await eventSeen('ramp.deposit.updated', (d) => d.status === 'completed')
  console.log(`credited ${credited} (6 decimals) to ${address}${o.events ? '; ramp.deposit.updated received and verified' : ''}`)

  if (o.restart) {
    // what the user sees before and after: the onboarding (KYC) status, the IBAN payin/initiate
    // answers for the wallet, and the deposits list, each read the same way both times
    const seen = async () => ({
      onboarding: (await slipway.api.GET('/v1/ramp/bank/payin/onboarding-status', { params: { query: { isTestnet: 'true' } } })).data ?? null,
      iban: (await slipway.api.POST('/v1/ramp/bank/payin/initiate', { body: { walletId, isTestnet: true } })).data ?? null,
      deposits: (await slipway.api.GET('/v1/ramp/bank/payin/deposits', { params: { query: { isTestnet: 'true' } } })).data ?? null,
    })
    const before = await seen()
    if (!before.onboarding || !before.iban || !before.deposits) fail(`before the restart: ${JSON.stringify(before)}`)
    if (before.iban!.iban !== iban.data!.iban) fail(`payin/initiate answered another IBAN before the restart: ${before.iban!.iban}, not ${iban.data!.iban}`)
    step('Slipway restarts')
    await o.restart()
    const after = await seen()
    for (const key of ['onboarding', 'iban', 'deposits'] as const) {
      const [b, a] = [JSON.stringify(before[key]), JSON.stringify(after[key])]
      if (a !== b) fail(`after the restart, ${key} changed:\n  before ${b}\n  after  ${a}`)
    }
    console.log(`after the restart: the same KYC status (${after.onboarding!.kycStatus}), IBAN (${after.iban!.iban}) and deposits (${after.deposits!.deposits.length})`)
  }

  step('a payout of 50 USDC to a bank account')
  const channels = await slipway.api.POST('/v1/ramp/bank/payout/channels/search', { body: { isTestnet: true, country: 'DE', fiatCurrency: 'EUR' } })
  const channel = channels.data?.channels.find((c) => c.paymentMethodType === 'BankSepa') ?? fail(`no SEPA channel: ${JSON.stringify(channels.error)}`)
  const payout = await slipway.api.POST('/v1/ramp/bank/payout/initiate', {
    body: { channelId: channel.channelId, walletId, cryptoAmount: '50000000', form: { AccountHolderName: 'Alice Example', IBAN: 'DE89370400440532013000' }, isTestnet: true },
  })
  if (!payout.data) fail(`payout/initiate: ${JSON.stringify(payout.error)}`)
  const done = await until('the payout completes', async () => (await slipway.api.GET('/v1/ramp/bank/payout/payouts/{payoutId}', { params: { path: { payoutId: payout.data!.id }, query: { isTestnet: 'true' } } })).data, (p) => p?.status === 'completed' || p?.status === 'failed', 90_000)
  if (done!.status !== 'completed') fail(`the payout ended ${done!.status}: ${done!.failureReason}`)
  if (o.events) await eventSeen('ramp.payout.updated', (d) => d.payoutId === payout.data!.id && d.status === 'completed')
  console.log(`payout ${done!.id}: ${done!.fiatAmount} ${done!.fiatCurrency} for ${done!.cryptoAuthorizedAmount} USDC units${o.events ? '; ramp.payout.updated received and verified' : ''}`)
}

try {
  step(`devnet at ${devnet.url}; Slipway at ${baseUrl}`)
  await startServer()

  step('slipway tenant create --name Acme --sandbox --admin acme-admin')
  const exported = await cli(['tenant', 'create', '--name', 'Acme', '--sandbox', '--admin', 'acme-admin'], { ADMIN_PASSWORD: 'Acme-Admin-passw0rd' })
  const vars = Object.fromEntries([...exported.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]))
  const tenantId = vars.SLIPWAY_TENANT_ID ?? fail('tenant create printed no SLIPWAY_TENANT_ID')
  const tenant = { apiKey: vars.SLIPWAY_API_KEY ?? fail('no SLIPWAY_API_KEY'), apiSecret: vars.SLIPWAY_API_SECRET ?? fail('no SLIPWAY_API_SECRET') }

  step('slipway webhooks listen --tenant <id> --json')
  if (!(await listen(tenantId))) fail('slipway webhooks listen stopped before it was ready')

  await userPath({
    baseUrl, tenant, events: true, chainUrl: devnet.url,
    restart: async () => {
      server!.kill('SIGTERM')
      await server!.exited
      await startServer()
    },
  })
  console.log(`\nquickstart-ramp: every step passed (${received.length} webhook events received, all verified)`)
} finally {
  for (const c of children) c.kill('SIGTERM')
  await Promise.all(children.map((c) => c.exited))
  await devnet.stop()
  rmSync(dir, { recursive: true, force: true })
}
