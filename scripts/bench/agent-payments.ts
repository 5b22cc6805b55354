/**
 * Agent payments benchmark (issue 28): executions judged and reserved per second through
 * Slipway's `POST /v1/agent-payments/executions`, 64 connections against one agent and one
 * policy, beside the rate of a bare insert in the same run (scripts/bench/servers/bare-insert.ts:
 * Bun.serve doing one write transaction with one INSERT into a libSQL file per request, with
 * Slipway's database settings), driven by wrk (1 thread, 64 connections, BENCH_SECONDS each),
 * BENCH_ROUNDS rounds (3 by default) with the baseline and the scenario alternating (lib.ts:
 * each line is the median of its runs, the ratio the median of the rounds' own ratios). And the
 * resident memory under load: Slipway's RSS idle (set up, no execution yet) against its RSS
 * under execution load.
 *
 * The path measured: the policy has `approvalMode: always` (and a daily limit far above what
 * the run spends), so every execution is judged `require_approval` in its write transaction
 * (idempotency look-up, agent, policy and merchant read, the agent's spend per window summed,
 * the engine, the execution and its approval inserted, the approval's expiry job scheduled,
 * audited) and answered 201 `requires_approval`: nothing is sent, no chain is needed. The load
 * uses the tenant admin's bearer token (J): an agent key is limited to 120 requests a minute.
 * A third line reads one execution (`GET /v1/agent-payments/executions/:id`, J) in the same
 * rounds: the same bearer check and module without the write, so the judging transaction's own
 * share of Slipway's CPU per request shows as the difference.
 *
 *   bun scripts/bench/agent-payments.ts           (BENCH_SECONDS=5, BENCH_ROUNDS=3)
 */
import { createHash, createHmac } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { benchEnv, benchUser, generatorVerdict, load, medianOf, medianWithMemory, report, requireWrk, rssDuring, rssMiB, spawnServer, type Result } from './lib'

requireWrk()
const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-agent-payments-'))
const env = benchEnv(dir)
const slipway = await spawnServer(['src/index.ts'], env)
const bareInsert = await spawnServer(['scripts/bench/servers/bare-insert.ts'], { ...env, BARE_INSERT_DB_URL: `file:${join(dir, 'bare-insert.db')}` })
const bare = await spawnServer(['scripts/bench/servers/bare.ts'], env)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const BASE = '/v1/agent-payments'

try {
  const call = async (path: string, body: unknown, headers: Record<string, string> = {}, expected = [200, 201]) => {
    const res = await fetch(slipway.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
    const out = await res.json() as any
    if (!expected.includes(res.status)) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(out).slice(0, 300)}`)
    return out
  }
  // a tenant and a user (the wallet's owner), then a tenant admin made by the bench admin and signed in with the tenant's signature
  const { tenant, user } = await benchUser(slipway.url, 'agentpay')
  const admin = await call('/v1/auth/admin/login', { username: 'bench', password: 'Bench-passw0rd' })
  const password = 'Bench-passw0rd-admin'
  await call('/v1/users/', { username: 'agentpay_tadmin', password, role: 'tenantadmin', tenantId: tenant.id }, { authorization: `Bearer ${admin.accessToken}` })
  const loginBody = JSON.stringify({ username: 'agentpay_tadmin', password })
  const ts = String(Math.floor(Date.now() / 1000))
  const signature = createHmac('sha256', tenant.apiSecret).update(`POST\n/v1/auth/login\n${ts}\n${createHash('sha256').update(loginBody).digest('hex')}`).digest('hex')
  const loginRes = await fetch(slipway.url + '/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json', 'x-tenant-api-key': tenant.apiKey, 'x-timestamp': ts, 'x-signature': signature }, body: loginBody })
  const login = await loginRes.json() as any
  if (loginRes.status !== 200) throw new Error(`the tenant admin's login answered ${loginRes.status}: ${JSON.stringify(login)}`)
  const J = { authorization: `Bearer ${login.accessToken}`, 'content-type': 'application/json' }

  const wallet = await call('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { authorization: `Bearer ${user.accessToken}` })
  const policy = await call(`${BASE}/policies`, { name: 'bench', currency: 'USDC', limits: [{ interval: 'daily', amount: '1000000000000' }], approvalMode: 'always' }, J)
  const merchant = await call(`${BASE}/merchants`, { name: 'shop', category: 'travel', payTo: { network: 'sepolia', address: '0x' + '5a'.repeat(20) } }, J)
  const agent = await call(`${BASE}/agents`, { name: 'booker', walletId: wallet.id, policyId: policy.id }, J)
  // the wallet's owner lets the agent pay from it (docs/agent-payments.md, "The wallet owner's consent")
  await call(`${BASE}/agents/${agent.id}/wallet-consent`, {}, { authorization: `Bearer ${user.accessToken}` })
  const rssIdle = await rssMiB(slipway.proc.pid)

  const body = JSON.stringify({ agentId: agent.id, merchantId: merchant.id, amount: '1.5', currency: 'USDC', rail: 'onchain', description: 'bench' })
  const check = await fetch(slipway.url + `${BASE}/executions`, { method: 'POST', headers: J, body })
  const checked = await check.json() as any
  if (check.status !== 201 || checked.status !== 'requires_approval' || checked.transactionId !== null) throw new Error(`the execution did not answer 201 requires_approval: ${check.status} ${JSON.stringify(checked).slice(0, 300)}`)

  const executions = () => load('POST /v1/agent-payments/executions (J)', slipway.url + `${BASE}/executions`, { method: 'POST', body, headers: J, pid: slipway.proc.pid })
  const inserts = () => load('bare insert (Bun.serve + libSQL write tx)', bareInsert.url + '/insert', { method: 'POST', body, headers: { 'content-type': 'application/json' }, pid: bareInsert.proc.pid })
  // the same bearer check and module, no write: what the judging transaction adds shows against it
  const reads = () => load('GET /v1/agent-payments/executions/:id (J)', slipway.url + `${BASE}/executions/${checked.id}`, { headers: J, pid: slipway.proc.pid })

  // warm-up, unmeasured
  await inserts()
  await reads()
  await load('warm-up', slipway.url + `${BASE}/executions`, { method: 'POST', body, headers: J, seconds: 2 })
  const rounds: Array<{ insert: Result; read: Result; execution: { result: Result; median: number; peak: number } }> = []
  for (let k = 0; k < ROUNDS; k++) {
    const insert = await inserts()
    const execution = await rssDuring(slipway.proc.pid, executions())
    const read = await reads()
    rounds.push({ insert, read, execution })
  }
  const rBare = await load('bare Bun.serve', bare.url + '/health', { pid: bare.proc.pid })
  const valid = generatorVerdict(rBare)
  const rInsert = medianOf(rounds.map((r) => r.insert))
  const rRead = medianOf(rounds.map((r) => r.read))
  const execution = medianWithMemory(rounds.map((r) => r.execution))
  report([
    { result: rBare },
    { result: rInsert },
    { result: execution.result, baseline: rInsert, rounds: rounds.map((r) => [r.insert, r.execution.result] as const) },
    { result: rRead, baseline: rInsert, rounds: rounds.map((r) => [r.insert, r.read] as const) },
  ])
  console.log(`\nRound by round, executions: ${rounds.map((r) => `${r.execution.result.rps.toFixed(0)} req/s, ${r.execution.result.cpuUs?.toFixed(0)} µs CPU`).join('; ')}`)
  if (execution.result.cpuUs !== undefined && rRead.cpuUs !== undefined) console.log(`Judging and reserving (the execution's CPU less the GET's, same bearer check): ${(execution.result.cpuUs - rRead.cpuUs).toFixed(0)} µs of Slipway CPU per execution; Slipway used ${(execution.result.rps * execution.result.cpuUs / 1e6).toFixed(2)} cores under execution load (${(rRead.rps * rRead.cpuUs / 1e6).toFixed(2)} under the GET's)`)
  console.log(`Round by round, bare inserts: ${rounds.map((r) => `${r.insert.rps.toFixed(0)} req/s, ${r.insert.cpuUs?.toFixed(0)} µs CPU`).join('; ')}`)
  const listed = await (await fetch(slipway.url + `${BASE}/approvals?status=pending&limit=1`, { headers: J })).json() as any
  console.log(`Pending approvals made by the run: ${listed.total} (every execution answered requires_approval; nothing was sent)`)
  console.log(`Slipway resident memory (bun src/index.ts): ${rssIdle?.toFixed(0)} MiB idle (set up, no execution yet); under execution load median ${execution.median.toFixed(0)}, peak ${execution.peak.toFixed(0)} MiB: +${(execution.median - (rssIdle ?? NaN)).toFixed(0)} MiB (median), +${(execution.peak - (rssIdle ?? NaN)).toFixed(0)} MiB at peak`)
  if (!valid) process.exitCode = 1
} finally {
  slipway.proc.kill()
  bareInsert.proc.kill()
  bare.proc.kill()
  rmSync(dir, { recursive: true, force: true })
}
export {}
