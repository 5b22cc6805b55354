/**
 * The x402 rail across processes: two API processes on embedded replicas of one real sqld and a
 * worker on the primary, the devnet chain and its x402 merchant (scripts/devnet/x402.ts). Eight
 * payments at once, split over both processes, from a wallet holding 0.035 USDC for a 0.01 USDC
 * resource: the hold each takes in the write that stores its authorization lets exactly three
 * through (three settled, 0.03 USDC moved, the others `failed` INSUFFICIENT_BALANCE before their
 * payment header was sent). A resource that answers 402 to the payment is decided by the
 * worker's settle job once the authorization expires: `failed`, nothing moved.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import type { Address } from 'viem'
import { DEVNET_USDC, startDevnet, type Devnet } from '../../scripts/devnet/chain'
import { startX402Merchant, type X402Merchant } from '../../scripts/devnet/x402'
import { Api } from '@tests/helpers/client'
import { PROCESS_ADMIN, type RunningProcess } from '@tests/helpers/process'
import { startSqld, type Sqld } from '@tests/helpers/sqld'
import { until } from '@tests/helpers/until'
import { startEdge, startOnPrimary } from '../replication/helpers'
import { devnetUsdc } from './devnet-usdc'

const BASE = '/v1/agent-payments'
let sqld: Sqld
let devnet: Devnet
let merchant: X402Merchant
let edgeA: RunningProcess
let edgeB: RunningProcess
let worker: RunningProcess

const usdc = (who: Address) => devnetUsdc(devnet.url).balanceOf(who)

beforeAll(async () => {
  sqld = await startSqld()
  devnet = await startDevnet({ port: 0, dbPath: mkdtempSync(join(sqld.dir, 'chain-')), blockTime: 0 })
  merchant = await startX402Merchant({ rpcUrl: devnet.url, chainId: 11155111, usdc: DEVNET_USDC, maxTimeoutSeconds: 10 })
  // DATABASE_TIMEOUT_MS 30 s: the bound on a request's writes is not what this file proves (tests/replication/write-deadline
  // does); eight executions of one wallet at once, beside a CPU burner, had one answer 503 DATABASE_UNAVAILABLE at 4 s.
  const env = {
    RPC_URL_SEPOLIA: devnet.url, RPC_TIMEOUT_MS: '3000', DATABASE_SYNC_INTERVAL_MS: '5000', WEBHOOK_DEV_ROUTES: `x402.devnet.test=${merchant.url}`, DATABASE_TIMEOUT_MS: '30000',
  }
  ;[edgeA, edgeB] = await Promise.all([startEdge(sqld, env), startEdge(sqld, env)])
  // the settle job reads the token 1 s after an unused authorization's expiry, and each second after (5 s by default)
  worker = await startOnPrimary(sqld, { ...env, SLIPWAY_ROLE: 'worker', AGENT_PAYMENTS_X402_SETTLE_LOOK_MS: '1000' })
}, 60_000)
afterAll(async () => {
  await Promise.all([edgeA, edgeB, worker].filter(Boolean).map((p) => p.stop()))
  await merchant?.stop()
  await devnet?.stop()
  await sqld?.stop()
})

test('two processes: a wallet that affords three of eight x402 payments pays three; a 402 after payment fails at expiry on the worker', async () => {
  const a = new Api(edgeA.url)
  const b = new Api(edgeB.url)
  const admin = (await a.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
  const tenant = (await a.post('/v1/admin/tenants', { name: 'x402-two-processes', settings: {} }, { token: admin })).body
  const reg = await a.post('/v1/auth/register', { username: 'x402tp', email: 'x402tp@example.com', password: 'Passw0rd-long' }, { signedBy: tenant })
  expect(reg.status).toBe(201)
  expect((await a.post('/v1/users/', { username: 'x402tpadmin', password: 'Passw0rd-admin', role: 'tenantadmin', tenantId: tenant.id }, { token: admin })).status).toBe(201)
  const op = { token: (await a.post('/v1/auth/login', { username: 'x402tpadmin', password: 'Passw0rd-admin' }, { signedBy: tenant })).body.accessToken as string }
  const wallet = await a.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: reg.body.accessToken })
  expect(wallet.status).toBe(201)
  await devnetUsdc(devnet.url).mint(wallet.body.address, 35_000n)
  const shop = await a.post(`${BASE}/merchants`, { name: 'weather', payTo: { network: 'sepolia', address: merchant.payTo } }, op)
  const policy = await a.post(`${BASE}/policies`, { name: 'p', currency: 'USDC', limits: [{ interval: 'daily', amount: '5' }], allowedRails: ['x402'] }, op)
  const agent = await a.post(`${BASE}/agents`, { name: 'a', walletId: wallet.body.id, policyId: policy.body.id }, op)
  expect(agent.status).toBe(201)
  // the wallet's owner lets the agent pay from it (docs/agent-payments.md, "The wallet owner's consent")
  expect((await a.post(`${BASE}/agents/${agent.body.id}/wallet-consent`, {}, { token: reg.body.accessToken })).status).toBe(200)
  const key = { token: (await a.post(`${BASE}/agents/${agent.body.id}/api-keys`, { name: 'k' }, op)).body.key as string }
  await until(() => b.get(`${BASE}/agents/${agent.body.id}`, key), (r) => r.status === 200, 15_000)
  const pay = (path: string) => ({ agentId: agent.body.id, merchantId: shop.body.id, amount: '0.05', currency: 'USDC', rail: 'x402', resourceUrl: `https://x402.devnet.test${path}` })
  const shopBefore = await usdc(merchant.payTo)

  const all = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).post(`${BASE}/executions`, pay('/weather'), key)))
  // an answer other than 201 shows with its code (a 503 here is DATABASE_BUSY, DATABASE_UNAVAILABLE or the chain's)
  expect(all.map((r) => (r.status === 201 ? 201 : `${r.status} ${r.body?.code}`))).toEqual(Array(8).fill(201))
  const paid = all.filter((r) => r.body.status === 'succeeded')
  const refused = all.filter((r) => r.body.status === 'failed')
  expect([paid.length, refused.length]).toEqual([3, 5])
  for (const r of refused) expect([r.body.failureReason.split(':')[0], r.body.x402.authorization]).toEqual(['INSUFFICIENT_BALANCE', null])
  expect(merchant.settled).toBe(3)
  expect(await usdc(merchant.payTo)).toBe(shopBefore + 30_000n)
  expect(await usdc(wallet.body.address)).toBe(5_000n)

  // the worker decides a payment the resource kept without serving, at its authorization's expiry
  // (0.05 USDC more: the three settled payments' holds still count for 30 s, for balances read before their blocks)
  await devnetUsdc(devnet.url).mint(wallet.body.address, 50_000n)
  await until(() => a.get(`${BASE}/executions/${paid[0]!.body.id}`, op), (r) => r.status === 200, 15_000)
  const kept = await a.post(`${BASE}/executions`, { ...pay('/always-402'), amount: '0.01' }, key)
  expect([kept.status, kept.body.status, kept.body.failureReason?.split(':')[0]]).toEqual([201, 'processing', 'X402_PAYMENT_REFUSED'])
  // (the devnet mines only with transactions here: a block each look, so the chain's time passes validBefore too)
  const mine = () => devnetUsdc(devnet.url).mine()
  const done = await until(async () => { await mine(); return a.get(`${BASE}/executions/${kept.body.id}`, op) }, (r) => r.body.status !== 'processing', 60_000)
  expect([done.body.status, done.body.txHash]).toEqual(['failed', null])
  expect(await usdc(wallet.body.address)).toBe(55_000n)
}, 90_000)
