/**
 * Judge and reserve across processes: two API processes on embedded replicas of one real sqld
 * and a worker on the primary, a local chain as Sepolia with the registry's Sepolia USDC.
 * 40 concurrent executions split over both processes against a daily limit of 10 × their
 * amount: exactly 10 proceed and are paid (the worker's follow job ends them `succeeded`);
 * 20 concurrent requests with one idempotencyKey over both processes make one execution.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { parseEther, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { Api } from '@tests/helpers/client'
import { PROCESS_ADMIN, type RunningProcess } from '@tests/helpers/process'
import { startSqld, type Sqld } from '@tests/helpers/sqld'
import { until } from '@tests/helpers/until'
import { reader } from '@tests/transactions/helpers'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { startEdge, startOnPrimary } from '../replication/helpers'

const BASE = '/v1/agent-payments'
const USDC: Address = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'
let sqld: Sqld
let chain: LocalChain
let edgeA: RunningProcess
let edgeB: RunningProcess
let worker: RunningProcess

beforeAll(async () => {
  sqld = await startSqld()
  chain = await startLocalChain({ chainId: 11155111, dbPath: mkdtempSync(join(sqld.dir, 'chain-')) })
  await chain.placeToken(USDC)
  // The bound on a request's writes (DATABASE_TIMEOUT_MS, 4 of its 5 s for writes) is not what this file proves: 30 of the
  // 40 are refusals, each an interactive transaction, one at a time per process, and on a loaded machine (CI runs beside
  // a CPU burner) 24 of the 40 answered 503 DATABASE_UNAVAILABLE at 4 s. The bound itself: tests/replication/write-deadline.
  const env = { RPC_URL_SEPOLIA: chain.url, RPC_TIMEOUT_MS: '3000', DATABASE_SYNC_INTERVAL_MS: '5000', DATABASE_TIMEOUT_MS: '30000' }
  ;[edgeA, edgeB] = await Promise.all([startEdge(sqld, env), startEdge(sqld, env)])
  worker = await startOnPrimary(sqld, { ...env, SLIPWAY_ROLE: 'worker' })
}, 60_000)
afterAll(async () => {
  await Promise.all([edgeA, edgeB, worker].filter(Boolean).map((p) => p.stop()))
  await chain?.stop()
  await sqld?.stop()
})

test('two processes: exactly 10 of 40 proceed against the daily limit, and one execution per idempotencyKey', async () => {
  const a = new Api(edgeA.url)
  const b = new Api(edgeB.url)
  const admin = (await a.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
  const tenant = (await a.post('/v1/admin/tenants', { name: 'ap-two-processes', settings: {} }, { token: admin })).body
  const reg = await a.post('/v1/auth/register', { username: 'ap2p', email: 'ap2p@example.com', password: 'Passw0rd-long' }, { signedBy: tenant })
  expect(reg.status).toBe(201)
  const created = await a.post('/v1/users/', { username: 'ap2padmin', password: 'Passw0rd-admin', role: 'tenantadmin', tenantId: tenant.id }, { token: admin })
  expect(created.status).toBe(201)
  const op = { token: (await a.post('/v1/auth/login', { username: 'ap2padmin', password: 'Passw0rd-admin' }, { signedBy: tenant })).body.accessToken as string }
  const wallet = await a.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: reg.body.accessToken })
  expect(wallet.status).toBe(201)
  await chain.sendNative(wallet.body.address, parseEther('1'))
  await chain.sendToken(wallet.body.address, 10_000_000n, USDC)
  const payTo = privateKeyToAccount(generatePrivateKey()).address
  const merchant = await a.post(`${BASE}/merchants`, { name: 'm', payTo: { network: 'sepolia', address: payTo } }, op)
  const policy = await a.post(`${BASE}/policies`, { name: 'p', currency: 'USDC', limits: [{ interval: 'daily', amount: '0.1' }] }, op)
  const agent = await a.post(`${BASE}/agents`, { name: 'a', walletId: wallet.body.id, policyId: policy.body.id }, op)
  expect(agent.status).toBe(201)
  // the wallet's owner lets the agent pay from it (docs/agent-payments.md, "The wallet owner's consent")
  expect((await a.post(`${BASE}/agents/${agent.body.id}/wallet-consent`, {}, { token: reg.body.accessToken })).status).toBe(200)
  const key = { token: (await a.post(`${BASE}/agents/${agent.body.id}/api-keys`, { name: 'k' }, op)).body.key as string }
  const pay = { agentId: agent.body.id, merchantId: merchant.body.id, amount: '0.01', currency: 'USDC', rail: 'onchain' }
  // both edges must see the agent and its key before the burst
  await until(() => b.get(`${BASE}/agents/${agent.body.id}`, key), (r) => r.status === 200, 15_000)

  const all = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).post(`${BASE}/executions`, pay, key)))
  // an answer other than 201 shows with its code (a 503 here is DATABASE_BUSY, DATABASE_UNAVAILABLE or the chain's)
  expect(all.map((r) => (r.status === 201 ? 201 : `${r.status} ${r.body?.code}`))).toEqual(Array(40).fill(201))
  const proceeded = all.filter((r) => r.body.status !== 'rejected')
  expect(proceeded).toHaveLength(10)
  for (const r of proceeded) {
    const done = await until(() => a.get(`${BASE}/executions/${r.body.id}`, op), (x) => x.body.status !== 'processing', 60_000)
    expect(done.body.status).toBe('succeeded')
  }
  expect(await reader(chain.url).tokenBalance(USDC, payTo)).toBe(100_000n)

  const same = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).post(`${BASE}/executions`, { ...pay, amount: '0.02', idempotencyKey: 'two-processes' }, op)))
  expect(new Set(same.map((r) => r.body.id)).size).toBe(1)
  expect(same.filter((r) => r.status === 201)).toHaveLength(1)
  expect(same.every((r) => r.status === 200 || r.status === 201)).toBe(true)
}, 150_000)
