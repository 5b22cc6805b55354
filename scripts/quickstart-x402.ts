/**
 * docs/agent-payments.md's x402 example, run end to end on one offline machine so it cannot rot
 * (tests/ops/quickstart-x402.test.ts runs it in `npm test`): an agent pays for a resource over
 * x402 on the devnet.
 *
 *   1. `npm run devnet`: the chains and the devnet's x402 merchant (scripts/devnet/x402.ts), and
 *      `.env.devnet` routing https://x402.devnet.test to it; Slipway reading it;
 *   2. `slipway tenant create --name Acme --sandbox --admin acme-admin`;
 *   3. a user's custodial Sepolia wallet with test USDC from `POST /v1/sandbox/faucet`;
 *   4. the tenant administrator: a policy allowing x402, an agent on that wallet with its API
 *      key, the merchant (the devnet merchant's payTo);
 *   5. the agent (its `sk_agent_` key) pays `GET https://x402.devnet.test/weather` (0.01 USDC,
 *      at most 0.05): `succeeded`, the forecast, the receipt's settlement, the USDC moved.
 *
 * Two ways to run it (it exits 0 when every step passed):
 * - `npm run -s quickstart-x402`: steps 3 to 5 against the Slipway the README starts with
 *   `npm run devnet` and `npm start` (SLIPWAY_URL, default http://localhost:3000), with
 *   SLIPWAY_API_KEY, SLIPWAY_API_SECRET, SLIPWAY_ADMIN_USERNAME and SLIPWAY_ADMIN_PASSWORD from
 *   `eval "$(npm run -s slipway -- tenant create --name Acme --sandbox --admin acme-admin)"`.
 * - `bun scripts/quickstart-x402.ts --self-contained`: all of it, `scripts/devnet.ts` and the
 *   server started here on free ports in a temporary folder (what CI runs).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SlipwayClient } from '../src/client'
import { oneLineOnError, quickstartSteps } from './quickstart-steps'

const ROOT = join(import.meta.dir, '..')
const { step, fail, until, freePort } = quickstartSteps('quickstart-x402')

/** the devnet merchant's payTo (scripts/devnet/x402.ts X402_MERCHANT) */
const DEVNET_X402_MERCHANT = '0xE04Ec2E4549Fdbf1E04a1cCC1210C7774f23b862'

interface Tenant { apiKey: string; apiSecret: string; adminUsername: string; adminPassword: string }

/** Steps 3 to 5 against a running Slipway. */
async function agentPath(baseUrl: string, t: Tenant) {
  step('a user\'s custodial Sepolia wallet, with gas and 5 test USDC from the sandbox faucet')
  const user = new SlipwayClient({ baseUrl, tenant: { apiKey: t.apiKey, apiSecret: t.apiSecret } })
  const username = `owner-${crypto.randomUUID().slice(0, 8)}`
  const reg = await user.register({ username, email: `${username}@example.com`, password: 'Str0ng-Passw0rd' })
  if (reg.error) fail(`register: ${JSON.stringify(reg.error)}`)
  console.log(`user ${username} registered (password Str0ng-Passw0rd)`)
  const wallet = (await user.api.POST('/v1/wallets/', { body: { chain: 'ethereum', isTestnet: true } })).data ?? fail('create wallet')
  const funded = await user.api.POST('/v1/sandbox/faucet', { body: { walletId: wallet.id, stablecoin: '5000000' } })
  if (!funded.data) fail(`faucet: ${JSON.stringify(funded.error)}`)
  console.log(`wallet ${wallet.address}: ${funded.data!.stablecoin?.amount} USDC units`)

  step('the tenant administrator: a policy allowing x402, an agent and its key, the merchant')
  const admin = new SlipwayClient({ baseUrl, tenant: { apiKey: t.apiKey, apiSecret: t.apiSecret } })
  const login = await admin.login({ username: t.adminUsername, password: t.adminPassword })
  if (login.error) fail(`admin login: ${JSON.stringify(login.error)}`)
  const policy = (await admin.api.POST('/v1/agent-payments/policies', { body: { name: 'research', currency: 'USDC', limits: [{ interval: 'daily', amount: '5' }], allowedRails: ['x402'] } })).data ?? fail('create policy')
  const agent = (await admin.api.POST('/v1/agent-payments/agents', { body: { name: 'researcher', walletId: wallet.id, policyId: policy.id } })).data ?? fail('create agent')
  const key = (await admin.api.POST('/v1/agent-payments/agents/{agentId}/api-keys', { params: { path: { agentId: agent.id } }, body: { name: 'worker' } })).data ?? fail('create agent key')
  const merchant = (await admin.api.POST('/v1/agent-payments/merchants', { body: { name: 'weather', category: 'data', payTo: { network: 'sepolia', address: DEVNET_X402_MERCHANT } } })).data ?? fail('create merchant')
  console.log(`agent ${agent.id} (key ${key.key.slice(0, 12)}…), merchant ${merchant.id}`)

  step('the wallet\'s owner consents to the agent paying from their wallet (with their own token)')
  const consent = (await user.api.POST('/v1/agent-payments/agents/{agentId}/wallet-consent', { params: { path: { agentId: agent.id } } })).data ?? fail('consent')
  console.log(`consented: ${consent.consented} at ${consent.grantedAt}`)

  step('the agent pays GET https://x402.devnet.test/weather over x402 (at most 0.05 USDC)')
  // the agent's own key, as a bearer token (an agent never holds a user's session)
  const asAgent = { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' }
  const paid = await fetch(`${baseUrl}/v1/agent-payments/executions`, {
    method: 'POST', headers: asAgent,
    body: JSON.stringify({ agentId: agent.id, merchantId: merchant.id, rail: 'x402', resourceUrl: 'https://x402.devnet.test/weather', amount: '0.05', currency: 'USDC' }),
  })
  const execution = await paid.json() as { id: string; status: string; amount: string; txHash: string | null; failureReason: string | null; x402: { resource: { body: string | null } | null } | null }
  if (paid.status !== 201 || execution.status !== 'succeeded') fail(`the execution answered ${paid.status} ${execution.status}: ${execution.failureReason ?? JSON.stringify(execution)}`)
  console.log(`execution ${execution.id}: ${execution.status}, ${execution.amount} USDC, transaction ${execution.txHash}`)
  console.log(`the resource answered: ${execution.x402?.resource?.body}`)
  const receipt = await until('the receipt', async () => (await fetch(`${baseUrl}/v1/agent-payments/executions/${execution.id}/receipt`, { headers: asAgent })).json() as Promise<{ x402?: { transaction: string; amount: string; payTo: string } }>, (r) => !!r.x402)
  console.log(`receipt: ${receipt.x402!.amount} USDC units to ${receipt.x402!.payTo} in ${receipt.x402!.transaction}`)
  const balance = await until('the wallet shows the payment', async () => (await user.api.GET('/v1/wallets/{id}/balance', { params: { path: { id: wallet.id } } })).data?.tokens.find((tk) => tk.symbol === 'USDC')?.rawBalance, (b) => b === '4990000', 30_000)
  console.log(`the wallet holds ${balance} USDC units (5 USDC less the 0.01 paid)`)
}

if (!process.argv.includes('--self-contained')) {
  const e = process.env
  if (!e.SLIPWAY_API_KEY || !e.SLIPWAY_API_SECRET || !e.SLIPWAY_ADMIN_USERNAME || !e.SLIPWAY_ADMIN_PASSWORD) {
    console.error('SLIPWAY_API_KEY, SLIPWAY_API_SECRET, SLIPWAY_ADMIN_USERNAME and SLIPWAY_ADMIN_PASSWORD are not all set: eval "$(npm run -s slipway -- tenant create --name Acme --sandbox --admin acme-admin)" first (or run with --self-contained)')
    process.exit(2)
  }
  const t = { apiKey: e.SLIPWAY_API_KEY, apiSecret: e.SLIPWAY_API_SECRET, adminUsername: e.SLIPWAY_ADMIN_USERNAME, adminPassword: e.SLIPWAY_ADMIN_PASSWORD }
  await oneLineOnError('quickstart-x402', () => agentPath(e.SLIPWAY_URL ?? 'http://localhost:3000', t))
  console.log('\nquickstart-x402: every step passed')
  process.exit(0)
}

const dir = mkdtempSync(join(tmpdir(), 'slipway-quickstart-x402-'))
const children: Array<ReturnType<typeof Bun.spawn>> = []
try {
  step('npm run devnet (free ports, this run\'s folder)')
  const envFile = join(dir, '.env.devnet')
  const devnet = Bun.spawn([process.execPath, join(ROOT, 'scripts/devnet.ts'), '--port', '0', '--env-file', envFile, '--dir', join(dir, 'chains'), '--block-time', '0'], { cwd: ROOT, stdout: 'inherit', stderr: 'inherit' })
  children.push(devnet)
  const written = await until('.env.devnet', async () => { try { return readFileSync(envFile, 'utf8') } catch { return '' } }, (s) => s.includes('WEBHOOK_DEV_ROUTES='), 60_000)
  const devEnv = Object.fromEntries(written.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
  const port = freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const env = { ...process.env, ...devEnv, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: baseUrl, DATABASE_URL: `file:${join(dir, 'slipway.db')}`, LOG_LEVEL: 'warn', NODE_ENV: 'development' }
  step(`Slipway at ${baseUrl}, reading the devnet's settings`)
  const server = Bun.spawn([process.execPath, join(ROOT, 'src/index.ts')], { cwd: ROOT, env, stdout: 'inherit', stderr: 'inherit' })
  children.push(server)
  await until('the server answers /health', () => fetch(`${baseUrl}/health`).then((r) => r.ok, () => false), (ok) => ok)

  step('slipway tenant create --name Acme --sandbox --admin acme-admin')
  const cli = Bun.spawn([process.execPath, join(ROOT, 'src/index.ts'), 'tenant', 'create', '--name', 'Acme', '--sandbox', '--admin', 'acme-admin'], { cwd: ROOT, env: { ...env, ADMIN_PASSWORD: 'Acme-Admin-passw0rd' }, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(cli.stdout).text(), new Response(cli.stderr).text(), cli.exited])
  if (code !== 0) fail(`tenant create exited ${code}: ${err}`)
  const vars = Object.fromEntries([...out.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]))
  await agentPath(baseUrl, { apiKey: vars.SLIPWAY_API_KEY ?? fail('no SLIPWAY_API_KEY'), apiSecret: vars.SLIPWAY_API_SECRET ?? fail('no SLIPWAY_API_SECRET'), adminUsername: 'acme-admin', adminPassword: 'Acme-Admin-passw0rd' })
  console.log('\nquickstart-x402: every step passed')
} finally {
  for (const c of children) c.kill('SIGTERM')
  await Promise.all(children.map((c) => c.exited))
  rmSync(dir, { recursive: true, force: true })
}
