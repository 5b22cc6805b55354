/**
 * x402 version 1 on the x402 rail, over HTTP on the devnet chain (anvil with the test USDC's
 * EIP-3009 at the registry's Sepolia address) against the devnet's x402 merchant
 * (scripts/devnet/x402.ts, its v1 resources in scripts/devnet/x402-v1.ts: the requirements in
 * the 402's JSON body, network `sepolia`, `maxAmountRequired`; verified and settled by the same
 * `@x402/evm` facilitator). A resource that offers only version 1 is paid in version 1: the
 * `X-PAYMENT` header reaches it, the USDC moves, its `X-PAYMENT-RESPONSE` is recorded; one that
 * offers both is paid in version 2 (`PAYMENT-SIGNATURE`); v1 requirements above the reservation,
 * on another network or to another payee than the merchant are refused before any signature.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Address } from 'viem'
import { DEVNET_USDC, startDevnet, type Devnet } from '../../scripts/devnet/chain'
import { FORECAST, startX402Merchant, WEATHER_PRICE, type X402Merchant } from '../../scripts/devnet/x402'
import { systemClock } from '@/lib/clock'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { devnetUsdc } from './devnet-usdc'

const BASE = '/v1/agent-payments'
const HOST = 'https://x402.devnet.test'

const dir = mkdtempSync(join(tmpdir(), 'slipway-x402-v1-'))
let devnet: Devnet
let merchantServer: X402Merchant
let t: TestApp
let server: HttpServer
let f: Factory
let tenant: Tenant
let admin: SignedInUser
let merchantId: string
let agent: { id: string; key: string; wallet: Address }

const as = (u: SignedInUser | string) => ({ token: typeof u === 'string' ? u : u.accessToken })
const usdc = (who: Address) => devnetUsdc(devnet.url).balanceOf(who)

const pay = (path: string, body: Record<string, unknown> = {}) =>
  f.api.post(`${BASE}/executions`, { agentId: agent.id, merchantId, amount: '0.05', currency: 'USDC', rail: 'x402', resourceUrl: HOST + path, ...body }, as(agent.key))
const paidAt = (path: string) => merchantServer.paid.filter((p) => p.path === path).map((p) => p.header)

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, dbPath: join(dir, 'chain'), blockTime: 0 })
  merchantServer = await startX402Merchant({ rpcUrl: devnet.url, chainId: 11155111, usdc: DEVNET_USDC, maxTimeoutSeconds: 60 })
  t = await makeApp({ clock: systemClock, jobs: true, env: { ...devnet.env, WEBHOOK_DEV_ROUTES: `x402.devnet.test=${merchantServer.url}`, AGENT_PAYMENTS_X402_TIMEOUT_MS: '5000' } })
  server = serve(t)
  f = new Factory(t, new Api(server.url))
  tenant = await f.tenant()
  admin = await f.tenantAdmin(tenant)
  const m = await f.api.post(`${BASE}/merchants`, { name: 'weather api', category: 'data', payTo: { network: 'sepolia', address: merchantServer.payTo } }, as(admin))
  expect(m.status).toBe(201)
  merchantId = m.body.id
  const owner = await f.user(tenant)
  const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, as(owner))
  expect(w.status).toBe(201)
  await devnetUsdc(devnet.url).mint(w.body.address, 3_000_000n)
  const p = await f.api.post(`${BASE}/policies`, { name: 'x402', currency: 'USDC', limits: [{ interval: 'per_transaction', amount: '1' }, { interval: 'daily', amount: '5' }], allowedRails: ['x402'] }, as(admin))
  const a = await f.api.post(`${BASE}/agents`, { name: 'researcher', walletId: w.body.id, policyId: p.body.id }, as(admin))
  // the wallet's owner lets the agent pay from it (docs/agent-payments.md, "The wallet owner's consent")
  expect((await f.api.post(`${BASE}/agents/${a.body.id}/wallet-consent`, {}, as(owner))).status).toBe(200)
  const k = await f.api.post(`${BASE}/agents/${a.body.id}/api-keys`, { name: 'worker' }, as(admin))
  expect([p.status, a.status, k.status]).toEqual([201, 201, 201])
  agent = { id: a.body.id, key: k.body.key, wallet: w.body.address }
}, 60_000)

afterAll(async () => {
  await server?.stop()
  await t?.close()
  await merchantServer?.stop()
  await devnet?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('x402 version 1', () => {
  test('a resource that offers only version 1: paid with X-PAYMENT, the USDC moved, its X-PAYMENT-RESPONSE recorded, the receipt in CAIP-2', async () => {
    const [agentBefore, merchantBefore, settledBefore] = [await usdc(agent.wallet), await usdc(merchantServer.payTo), merchantServer.settled]
    const r = await pay('/weather-v1')
    expect(r.status).toBe(201)
    const body = r.body
    const x = body.x402
    expect([body.status, body.failureReason, body.amount, body.payToAddress]).toEqual(['succeeded', null, '0.01', merchantServer.payTo])
    expect(x.version).toBe(1)
    // the v1 requirement (network `sepolia`, maxAmountRequired) as the record keeps every requirement
    expect(x.requirement).toEqual({ scheme: 'exact', network: 'eip155:11155111', asset: DEVNET_USDC, payTo: merchantServer.payTo, amount: WEATHER_PRICE.toString(), maxTimeoutSeconds: 60 })
    expect(x.refused).toEqual([])
    expect([x.authorization.from.toLowerCase(), x.authorization.to.toLowerCase(), x.authorization.value]).toEqual([agent.wallet.toLowerCase(), merchantServer.payTo.toLowerCase(), '10000'])
    // the header v1 speaks reached the resource, and what it answered in X-PAYMENT-RESPONSE is the settlement recorded
    expect(paidAt('/weather-v1')).toEqual(['X-PAYMENT'])
    expect(x.settlement).toEqual({ success: true, transaction: body.txHash, network: 'eip155:11155111', payer: expect.any(String), errorReason: null, source: 'resource' })
    expect(x.settlement.payer.toLowerCase()).toBe(agent.wallet.toLowerCase())
    expect(body.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect([x.resource.status, JSON.parse(x.resource.body)]).toEqual([200, FORECAST])
    // the token moved, once, through the facilitator
    expect(await usdc(agent.wallet)).toBe(agentBefore - WEATHER_PRICE)
    expect(await usdc(merchantServer.payTo)).toBe(merchantBefore + WEATHER_PRICE)
    expect(merchantServer.settled).toBe(settledBefore + 1)
    const receipt = await f.api.get(`${BASE}/executions/${body.id}/receipt`, as(agent.key))
    expect(receipt.status).toBe(200)
    expect([receipt.body.x402.network, receipt.body.x402.transaction, receipt.body.x402.amount, receipt.body.x402.settledBy]).toEqual(['eip155:11155111', body.txHash, '10000', 'resource'])
  }, 30_000)

  test('a resource that offers both versions is paid in version 2 (PAYMENT-SIGNATURE), once', async () => {
    const [agentBefore, settledBefore] = [await usdc(agent.wallet), merchantServer.settled]
    // its 402 carries both offers: v2's in PAYMENT-REQUIRED, v1's in the body
    const offer = await fetch(`${merchantServer.url}/weather-both`)
    expect(offer.status).toBe(402)
    expect(offer.headers.get('payment-required')).toBeTruthy()
    expect((await offer.json()).x402Version).toBe(1)
    const r = await pay('/weather-both')
    expect(r.status).toBe(201)
    expect([r.body.status, r.body.x402.version, r.body.x402.requirement.network, r.body.x402.settlement.source]).toEqual(['succeeded', 2, 'eip155:11155111', 'resource'])
    expect(paidAt('/weather-both')).toEqual(['PAYMENT-SIGNATURE'])
    expect(await usdc(agent.wallet)).toBe(agentBefore - WEATHER_PRICE)
    expect(merchantServer.settled).toBe(settledBefore + 1)
  }, 30_000)

  test('v1 requirements refused before any signature: above the reservation, on another network, to a payee other than the merchant; nothing sent, nothing moved', async () => {
    const other = await f.api.post(`${BASE}/merchants`, { name: 'another shop', category: 'data', payTo: { network: 'sepolia', address: '0x' + '3'.repeat(40) } }, as(admin))
    expect(other.status).toBe(201)
    const [agentBefore, settledBefore, sentBefore] = [await usdc(agent.wallet), merchantServer.settled, merchantServer.paid.length]
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['/premium-v1', {}, /amount 50000000 is above the reserved 50000/],
      ['/elsewhere-v1', {}, /network eip155:84532 is not the execution's eip155:11155111/],
      ['/weather-v1', { merchantId: other.body.id }, /payTo 0x[0-9a-fA-F]{40} is not the merchant's 0x3{40}/],
    ]
    for (const [path, body, why] of cases) {
      const r = await pay(path, body)
      expect(r.status).toBe(201)
      const b = r.body
      expect([b.status, b.failureReason?.split(':')[0], b.x402.version, b.x402.authorization, b.x402.requirement, b.txHash]).toEqual(['failed', 'X402_REQUIREMENTS_REFUSED', 1, null, null, null])
      expect(b.x402.refused).toHaveLength(1)
      expect(b.x402.refused[0].reasons.join('; ')).toMatch(why)
      expect(b.x402.resource.status).toBe(402)
    }
    expect(merchantServer.paid.length).toBe(sentBefore)
    expect(await usdc(agent.wallet)).toBe(agentBefore)
    expect(merchantServer.settled).toBe(settledBefore)
  }, 30_000)
})
