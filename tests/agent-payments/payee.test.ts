/**
 * The payee rule (docs/agent-payments.md, "Payees"), over HTTP on the devnet chain against the
 * devnet's x402 merchant, with real transfers: a payment is judged by the address it pays as well
 * as by the merchant it names. An x402 execution that leaves `merchantId` out cannot pay a merchant
 * the policy blocks or the tenant disabled (refused before any signature, nothing moves); a payee
 * that is no merchant of the tenant is paid only where the policy allows unregistered payees
 * (`allowUnregisteredPayees`, by default only when the policy has no merchant rule); a second
 * merchant registered at a blocked merchant's address is refused too, on both rails.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Address } from 'viem'
import { DEVNET_USDC, startDevnet, type Devnet } from '../../scripts/devnet/chain'
import { startX402Merchant, WEATHER_PRICE, type X402Merchant } from '../../scripts/devnet/x402'
import { systemClock } from '@/lib/clock'
import { payeeAt } from '@/modules/agent-payments/policies/judging'
import { payeeAmong, payeeRefusals, unregisteredAllowed } from '@/modules/agent-payments/policies/payees'
import { judge } from '@/modules/agent-payments/policies/policy'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { devnetUsdc } from './devnet-usdc'

const BASE = '/v1/agent-payments'
const HOST = 'https://x402.devnet.test'

const dir = mkdtempSync(join(tmpdir(), 'slipway-payee-'))
let devnet: Devnet
let merchantServer: X402Merchant
let t: TestApp
let server: HttpServer
let f: Factory

const as = (u: SignedInUser | string) => ({ token: typeof u === 'string' ? u : u.accessToken })
const usdc = (who: Address) => devnetUsdc(devnet.url).balanceOf(who)

/** A tenant of its own, with the devnet x402 merchant registered as `shop` (at `shopAddress`: another address leaves the devnet merchant unregistered). */
async function world(shopAddress?: string) {
  const tenant: Tenant = await f.tenant()
  const admin = await f.tenantAdmin(tenant)
  const merchant = async (name: string, address: string = merchantServer.payTo) => {
    const m = await f.api.post(`${BASE}/merchants`, { name, category: 'data', payTo: { network: 'sepolia', address } }, as(admin))
    expect(m.status).toBe(201)
    return m.body.id as string
  }
  const shop = await merchant('weather api', shopAddress)
  const agent = async (policy: Record<string, unknown>, usdcUnits = 100_000n) => {
    const owner = await f.user(tenant)
    const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, as(owner))
    expect(w.status).toBe(201)
    if (usdcUnits > 0n) await devnetUsdc(devnet.url).mint(w.body.address, usdcUnits)
    const p = await f.api.post(`${BASE}/policies`, { name: 'payees', currency: 'USDC', limits: [{ interval: 'daily', amount: '5' }], ...policy }, as(admin))
    expect(p.status).toBe(201)
    const a = await f.api.post(`${BASE}/agents`, { name: 'buyer', walletId: w.body.id, policyId: p.body.id }, as(admin))
    expect(a.status).toBe(201)
    // the wallet's owner lets the agent pay from it (docs/agent-payments.md, "The wallet owner's consent")
    expect((await f.api.post(`${BASE}/agents/${a.body.id}/wallet-consent`, {}, as(owner))).status).toBe(200)
    const k = await f.api.post(`${BASE}/agents/${a.body.id}/api-keys`, { name: 'worker' }, as(admin))
    expect(k.status).toBe(201)
    return { id: a.body.id as string, key: k.body.key as string, wallet: w.body.address as Address, policyId: p.body.id as string }
  }
  const pay = (who: { id: string; key: string }, body: Record<string, unknown> = {}) =>
    f.api.post(`${BASE}/executions`, { agentId: who.id, amount: '0.05', currency: 'USDC', rail: 'x402', resourceUrl: `${HOST}/weather`, ...body }, as(who.key))
  return { tenant, admin, shop, merchant, agent, pay }
}

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, dbPath: join(dir, 'chain'), blockTime: 0 })
  merchantServer = await startX402Merchant({ rpcUrl: devnet.url, chainId: 11155111, usdc: DEVNET_USDC, maxTimeoutSeconds: 10 })
  t = await makeApp({ clock: systemClock, jobs: true, env: { ...devnet.env, WEBHOOK_DEV_ROUTES: `x402.devnet.test=${merchantServer.url}`, AGENT_PAYMENTS_X402_TIMEOUT_MS: '3000' } })
  server = serve(t)
  f = new Factory(t, new Api(server.url))
}, 60_000)

afterAll(async () => {
  await server?.stop()
  await t?.close()
  await merchantServer?.stop()
  await devnet?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** an x402 payment refused before any signature: failed, nothing signed, the reasons of its one requirement */
function expectRefused(body: Record<string, any>, why: RegExp) {
  expect([body.status, body.failureReason?.split(':')[0], body.x402?.authorization, body.txHash]).toEqual(['failed', 'X402_REQUIREMENTS_REFUSED', null, null])
  expect(body.x402.refused).toHaveLength(1)
  expect(body.x402.refused[0].reasons.join('; ')).toMatch(why)
}

describe('the payee is judged by its address', () => {
  test('a policy blocking the merchant: named, rejected MERCHANT_BLOCKED; unnamed, its payTo refused before signing; nothing moves', async () => {
    const w = await world()
    const agent = await w.agent({ blockedMerchantIds: [w.shop], allowUnregisteredPayees: true })
    const [agentBefore, shopBefore, settledBefore] = [await usdc(agent.wallet), await usdc(merchantServer.payTo), merchantServer.settled]
    const named = await w.pay(agent, { merchantId: w.shop })
    expect([named.status, named.body.status, named.body.reasons.map((r: { code: string }) => r.code)]).toEqual([201, 'rejected', ['MERCHANT_BLOCKED']])
    const unnamed = await w.pay(agent)
    expect(unnamed.status).toBe(201)
    expectRefused(unnamed.body, /belongs to a merchant the policy blocks/)
    expect(await usdc(agent.wallet)).toBe(agentBefore)
    expect(await usdc(merchantServer.payTo)).toBe(shopBefore)
    expect(merchantServer.settled).toBe(settledBefore)
  }, 30_000)

  test('a disabled merchant (DELETE /merchants/{id}): its address is refused, named or not, whatever the policy; paid before it was disabled', async () => {
    const w = await world()
    const agent = await w.agent({ allowUnregisteredPayees: true })
    const before = await usdc(merchantServer.payTo)
    const paid = await w.pay(agent)
    expect([paid.body.status, paid.body.payToAddress]).toEqual(['succeeded', merchantServer.payTo])
    expect(await usdc(merchantServer.payTo)).toBe(before + WEATHER_PRICE)
    expect((await f.api.delete(`${BASE}/merchants/${w.shop}`, as(w.admin))).status).toBe(200)
    const walletBefore = await usdc(agent.wallet)
    const unnamed = await w.pay(agent)
    expectRefused(unnamed.body, /belongs to a disabled merchant/)
    const named = await w.pay(agent, { merchantId: w.shop })
    expect([named.body.status, named.body.reasons.map((r: { code: string }) => r.code)]).toEqual(['rejected', ['MERCHANT_DISABLED']])
    expect(await usdc(agent.wallet)).toBe(walletBefore)
    expect(await usdc(merchantServer.payTo)).toBe(before + WEATHER_PRICE)
  }, 30_000)

  test('a second merchant registered at a blocked merchant\'s address: rejected MERCHANT_BLOCKED on both rails; the simulation says so too', async () => {
    const w = await world()
    const twin = await w.merchant('the same shop again')
    const agent = await w.agent({ blockedMerchantIds: [w.shop] })
    for (const rail of ['x402', 'onchain']) {
      const r = await w.pay(agent, { merchantId: twin, rail, resourceUrl: rail === 'x402' ? `${HOST}/weather` : undefined })
      expect([r.status, r.body.status, r.body.reasons.map((x: { code: string }) => x.code)]).toEqual([201, 'rejected', ['MERCHANT_BLOCKED']])
      expect(r.body.reasons[0].message).toContain(merchantServer.payTo)
    }
    const sim = await f.api.post(`${BASE}/policies/${agent.policyId}/simulate`, { agentId: agent.id, merchantId: twin, amount: '0.05', currency: 'USDC', rail: 'x402' }, as(w.admin))
    expect([sim.status, sim.body.decision, sim.body.reasons.map((x: { code: string }) => x.code)]).toEqual([200, 'deny', ['MERCHANT_BLOCKED']])
  }, 30_000)

  test('an unregistered payee: refused by default under a merchant rule, paid where the policy allows it or has no merchant rule', async () => {
    // the tenant's one merchant is at another address: the devnet merchant is no merchant of this tenant
    const w = await world('0x' + '4'.repeat(40))
    const strict = await w.agent({ blockedMerchantIds: [w.shop] })
    const strictPolicy = await f.api.get(`${BASE}/policies/${strict.policyId}`, as(w.admin))
    expect(strictPolicy.body.allowUnregisteredPayees).toBeNull()
    const shopBefore = await usdc(merchantServer.payTo)
    expectRefused((await w.pay(strict)).body, /is no merchant of the tenant and the policy does not allow unregistered payees/)
    const explicit = await w.agent({ allowUnregisteredPayees: false })
    expectRefused((await w.pay(explicit)).body, /does not allow unregistered payees/)
    expect([await usdc(strict.wallet), await usdc(explicit.wallet), await usdc(merchantServer.payTo)]).toEqual([100_000n, 100_000n, shopBefore])
    const open = await w.agent({ blockedMerchantIds: [w.shop], allowUnregisteredPayees: true })
    const noRule = await w.agent({})
    for (const a of [open, noRule]) {
      const r = await w.pay(a)
      expect([r.body.status, r.body.merchantId, r.body.payToAddress]).toEqual(['succeeded', null, merchantServer.payTo])
      expect(await usdc(a.wallet)).toBe(100_000n - WEATHER_PRICE)
    }
    expect(await usdc(merchantServer.payTo)).toBe(shopBefore + 2n * WEATHER_PRICE)
  }, 60_000)

  test('allowUnregisteredPayees: set, cleared, refused with allowedMerchantIds or allowedCategories', async () => {
    const w = await world()
    const create = (body: Record<string, unknown>) => f.api.post(`${BASE}/policies`, { name: 'p', currency: 'USDC', limits: [], ...body }, as(w.admin))
    for (const bad of [{ allowedMerchantIds: [w.shop] }, { allowedCategories: ['data'] }]) {
      const r = await create({ ...bad, allowUnregisteredPayees: true })
      expect([r.status, r.body.code]).toEqual([400, 'POLICY_INVALID'])
    }
    const p = await create({ allowUnregisteredPayees: false })
    expect([p.status, p.body.allowUnregisteredPayees]).toEqual([201, false])
    const cleared = await f.api.patch(`${BASE}/policies/${p.body.id}`, { allowUnregisteredPayees: null }, as(w.admin))
    expect([cleared.status, cleared.body.allowUnregisteredPayees, cleared.body.version]).toEqual([200, null, 2])
    // the address is compared without case
    const found = await payeeAt(t.deps.database.db, w.tenant.id, 'sepolia', merchantServer.payTo.toLowerCase())
    expect(found.merchants.map((m) => m.id)).toEqual([w.shop])
  }, 30_000)
})

describe('the payee rule, pure', () => {
  const base = { currency: 'USDC', limits: [], approvalMode: 'auto' as const, allowedMerchantIds: null }
  const shop = { id: 'm1', status: 'active', address: '0xE04Ec2E4549Fdbf1E04a1cCC1210C7774f23b862' }
  test('not set: unregistered payees allowed only without a merchant rule', () => {
    expect(unregisteredAllowed(base)).toBe(true)
    expect(unregisteredAllowed({ ...base, blockedMerchantIds: ['x'] })).toBe(false)
    expect(unregisteredAllowed({ ...base, allowedCategories: ['data'] })).toBe(false)
    expect(unregisteredAllowed({ ...base, blockedMerchantIds: ['x'], allowUnregisteredPayees: true })).toBe(true)
    expect(unregisteredAllowed({ ...base, allowUnregisteredPayees: false })).toBe(false)
  })
  test('an EVM payTo in any case finds its merchant; blocked, disabled and unregistered are refused', () => {
    expect(payeeAmong([shop], shop.address.toLowerCase()).merchants).toEqual([{ id: 'm1', status: 'active' }])
    expect(payeeRefusals({ ...base, blockedMerchantIds: ['m1'] }, payeeAmong([shop], shop.address.toUpperCase().replace('0X', '0x')))).toHaveLength(1)
    expect(payeeRefusals(base, payeeAmong([{ ...shop, status: 'disabled' }], shop.address))[0]).toMatch(/disabled merchant/)
    expect(payeeRefusals({ ...base, allowUnregisteredPayees: false }, payeeAmong([shop], '0x' + '5'.repeat(40)))[0]).toMatch(/no merchant of the tenant/)
    const j = judge({ agent: { id: 'a', status: 'active' }, policy: { ...base, blockedMerchantIds: ['m1'] }, amount: '1', currency: 'USDC', rail: 'onchain', now: 0, spent: {}, merchant: { id: 'm2', status: 'active' }, payee: { address: shop.address, merchants: [{ id: 'm1', status: 'active' }, { id: 'm2', status: 'active' }] } })
    expect(j.reasons.map((r) => r.code)).toEqual(['MERCHANT_BLOCKED'])
  })
})
