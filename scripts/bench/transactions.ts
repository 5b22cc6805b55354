/**
 * Custodial send benchmark: POST /v1/transactions/ through the app (in process, on a
 * file database) against an anvil node (Prague fork) in its own process, with CONCURRENCY
 * requests in flight spread over WALLETS wallets. A timing proxy in front of the node
 * records when at least one RPC request is in flight; the rest of the wall time is time
 * spent outside the node (validation, key opening, signing, the nonce reservation and
 * the record in the database, HTTP handling), measured over the send phase alone. The
 * node mines a block every second (BENCH_BLOCK_TIME). Then the status job follows every
 * send until it settles (BENCH_SETTLE_WAIT_MS; TX_DROP_AFTER_MS=3000 here), and the script
 * checks that the stored nonces of each wallet are distinct and consecutive and counts
 * what was mined.
 *
 *   bun scripts/bench/transactions.ts     (BENCH_N=400 sends, BENCH_CONCURRENCY=16, BENCH_WALLETS=4)
 *   BENCH_DIRECT=1 skips the timing proxy
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, createWalletClient, http, parseEther, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { applyMigrations } from '../../src/db/migrate'
import { buildDeps } from '../../src/deps'
import { registerJobs } from '../../src/services'
import { JobRunner } from '../../src/jobs/runner'
import { ensureBootstrapAdmin } from '../../src/modules/auth/service'
import { signedHeaders } from '../../tests/helpers/client'
import { startAnvil } from '../devnet/anvil'

const N = Number(process.env.BENCH_N ?? 400)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const WALLETS = Number(process.env.BENCH_WALLETS ?? 4)
const FUNDER_KEY: Hex = '0x4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d'

// anvil in its own process (its binary), a block every BENCH_BLOCK_TIME seconds (1) as on a real chain
const anvil = await startAnvil({ chainId: 1, blockTime: Number(process.env.BENCH_BLOCK_TIME ?? 1), balances: [{ address: privateKeyToAccount(FUNDER_KEY).address, wei: 10n ** 24n }] })
const nodeUrl = anvil.url

// Timing proxy: total time during which the node had at least one request in flight.
let inFlight = 0
let busySince = 0
let nodeBusyMs = 0
let rpcRequests = 0
const proxy = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(req) {
    const body = await req.text()
    if (inFlight++ === 0) busySince = performance.now()
    rpcRequests++
    const started = performance.now()
    try {
      const res = await fetch(nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      if (process.env.BENCH_LOG && performance.now() - started > 500) console.log('slow rpc', (performance.now() - started).toFixed(0), body.slice(0, 200))
      return new Response(await res.text(), { status: res.status, headers: { 'content-type': 'application/json' } })
    } finally {
      if (--inFlight === 0) nodeBusyMs += performance.now() - busySince
    }
  },
})
const rpcUrl = `http://127.0.0.1:${proxy.port}`

const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-tx-'))
const config = loadConfig({
  DATABASE_URL: `file:${join(dir, 'bench.db')}`,
  MASTER_KEY: Buffer.alloc(32, 3).toString('base64'),
  JWT_SECRET: 'bench-jwt-secret-0123456789abcdef0123',
  LOG_LEVEL: process.env.BENCH_LOG ?? 'silent',
  RPC_URL_ETHEREUM: process.env.BENCH_DIRECT ? nodeUrl : rpcUrl,
  TX_DROP_AFTER_MS: '3000',
})
const deps = await buildDeps(config, { migrate: applyMigrations })
await ensureBootstrapAdmin(deps, 'benchadmin', 'Bench-Passw0rd')
const app = createApp(deps)
const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const text = body === undefined ? undefined : JSON.stringify(body)
  const res = await app.handle(new Request(`http://bench${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: text }))
  return { status: res.status, body: (await res.json()) as any }
}

const admin = (await call('POST', '/v1/auth/admin/login', { username: 'benchadmin', password: 'Bench-Passw0rd' })).body.accessToken
const tenant = (await call('POST', '/v1/admin/tenants', { name: 'bench', settings: {} }, { authorization: `Bearer ${admin}` })).body
const reg = JSON.stringify({ username: 'bench_user', password: 'Passw0rd-long', email: 'bench@example.com' })
const user = (await call('POST', '/v1/auth/register', JSON.parse(reg), signedHeaders(tenant, 'POST', '/v1/auth/register', reg, String(Math.floor(Date.now() / 1000))))).body
const auth = { authorization: `Bearer ${user.accessToken}` }
const chain = { id: 1, name: 'local', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [nodeUrl] } } } as const
const funder = createWalletClient({ account: privateKeyToAccount(FUNDER_KEY), chain, transport: http(nodeUrl) })
const pub = createPublicClient({ chain, transport: http(nodeUrl) })
const wallets: Array<{ id: string; address: Hex }> = []
for (let i = 0; i < WALLETS; i++) {
  const w = (await call('POST', '/v1/wallets/', { chain: 'ethereum' }, auth)).body
  await pub.waitForTransactionReceipt({ hash: await funder.sendTransaction({ to: w.address, value: parseEther('100') }) })
  wallets.push(w)
}
const to = '0x000000000000000000000000000000000000dEaD'

// One warm-up send per wallet (creates the nonce rows, fills client caches).
for (const w of wallets) await call('POST', '/v1/transactions/', { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '1' }, auth)
nodeBusyMs = 0
rpcRequests = 0

let next = 0
let failures = 0
let done = 0
const watchdog = process.env.BENCH_DEBUG ? setInterval(() => console.log('progress', { done, inFlight, rpcRequests }), 2000) : undefined
watchdog?.unref()
const t0 = performance.now()
await Promise.all(Array.from({ length: CONCURRENCY }, async (_, worker) => {
  for (let i = next++; i < N; i = next++) {
    // Worker k sends from wallet k mod WALLETS: with WALLETS >= CONCURRENCY, one send per wallet is in flight.
    const w = wallets[worker % wallets.length]!
    const res = await call('POST', '/v1/transactions/', { walletId: w.id, chain: 'ethereum', toAddress: to, amount: String(i + 1) }, auth)
    done++
    if (res.status !== 201 && failures++ < 3) console.log('failed send', res.status, JSON.stringify(res.body).slice(0, 300))
  }
}))
const wallMs = performance.now() - t0
const sendPhase = { nodeBusyMs, rpcRequests }
// Then the status job (durable queue) follows every send to the end: confirmed, or resent
// when the node lost it, or failed.
const runner = registerJobs(new JobRunner(deps, { queueName: 'bench-tx', dataPath: join(dir, 'queue.sqlite'), pollMs: 100 }))
runner.start()
const settledCount = async () => {
  const r = await deps.database.client.execute("select sum(status = 'confirmed') as ok, sum(status = 'failed') as failed, sum(resend_count) as resends from transactions")
  return { ok: Number(r.rows[0]!.ok ?? 0), failed: Number(r.rows[0]!.failed ?? 0), resends: Number(r.rows[0]!.resends ?? 0) }
}
const settleDeadline = Date.now() + Number(process.env.BENCH_SETTLE_WAIT_MS ?? 20_000)
let settled = await settledCount()
while (settled.ok + settled.failed < N + WALLETS - failures && Date.now() < settleDeadline) {
  await Bun.sleep(250)
  settled = await settledCount()
}
const settledMs = performance.now() - t0
await runner.stop()
// Every send must hold its own nonce: a duplicate or a gap would be a defect.
const nonceRows = await deps.database.client.execute('select wallet_id, count(*) as n, count(distinct nonce) as d, min(nonce) as lo, max(nonce) as hi from transactions group by wallet_id')
for (const r of nonceRows.rows) if (Number(r.n) !== Number(r.d) || Number(r.hi) - Number(r.lo) + 1 !== Number(r.n)) console.log('NONCE DEFECT', r)
// The node mines what it accepted on its own schedule: wait (bounded) until every send is on chain.
const minedCount = async () => (await Promise.all(wallets.map((w) => pub.getTransactionCount({ address: w.address })))).reduce((a, b) => a + b, 0)
const deadline = Date.now() + Number(process.env.BENCH_MINE_WAIT_MS ?? 2_000)
let onChain = await minedCount()
while (onChain < N + WALLETS - failures && Date.now() < deadline) {
  await Bun.sleep(200)
  onChain = await minedCount()
}
const minedMs = performance.now() - t0

console.log(`\ncustodial sends: ${N} over ${WALLETS} wallets, ${CONCURRENCY} in flight, anvil in its own process (${process.env.BENCH_BLOCK_TIME ?? 1}-second blocks)`)
console.log(`  sends per second          ${(N / (wallMs / 1000)).toFixed(1)}`)
console.log(`  wall time                 ${wallMs.toFixed(0)} ms  (${(wallMs / N).toFixed(2)} ms per send)`)
console.log(`  node busy (>=1 RPC open)  ${sendPhase.nodeBusyMs.toFixed(0)} ms  (${sendPhase.rpcRequests} RPC requests, ${(sendPhase.rpcRequests / N).toFixed(1)} per send)`)
console.log(`  share outside the node    ${((1 - sendPhase.nodeBusyMs / wallMs) * 100).toFixed(1)}%`)
console.log(`  failed requests           ${failures}`)
console.log(`  settled by the status job ${settled.ok} confirmed, ${settled.failed} failed, ${settled.resends} resends; ${settledMs.toFixed(0)} ms after the first send`)
console.log(`  transactions mined        ${onChain} of ${N + WALLETS - failures} accepted, ${minedMs.toFixed(0)} ms after the first send`)

proxy.stop(true)
await anvil.stop()
deps.database.close()
rmSync(dir, { recursive: true, force: true })
process.exit(failures ? 1 : 0)
