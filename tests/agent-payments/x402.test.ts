/**
 * The x402 rail end to end, over HTTP, on the devnet chain (anvil with the test USDC's
 * EIP-3009 at the registry's Sepolia address) against the devnet's x402 merchant
 * (scripts/devnet/x402.ts: `@x402/hono`'s middleware and an `@x402/evm` facilitator settling on
 * that chain), reached at https://x402.devnet.test through WEBHOOK_DEV_ROUTES. Balances are read
 * from the token: an agent buys a paid resource (the USDC moves to the merchant, `succeeded`, the
 * receipt shows the settlement); requirements above the reservation, on another network or to
 * another payee than the merchant are refused before any signature (nothing moves, the
 * facilitator sees nothing); a resource that answers 402 to the payment keeps the execution
 * waiting until the authorization expires (then `failed`, or `succeeded` when it settled it late);
 * redirects, timeouts, free resources, refused addresses; a wallet that can afford one of two
 * payments at once; one idempotencyKey sent five times at once.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Address } from 'viem'
import { DEVNET_USDC, startDevnet, type Devnet } from '../../scripts/devnet/chain'
import { startX402Merchant, WEATHER_PRICE, type X402Merchant } from '../../scripts/devnet/x402'
import { systemClock } from '@/lib/clock'
import { findExecution } from '@/modules/agent-payments/repo'
import { findHold } from '@/modules/transactions/holds'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { until } from '@tests/helpers/until'
import { devnetUsdc } from './devnet-usdc'

const BASE = '/v1/agent-payments'
const HOST = 'https://x402.devnet.test'
/** how long what the merchant asks stays signable (the execution waits that out on /always-402); facilitators refuse less than 6 s */
const AUTH_SECONDS = 10
/** how long after validBefore the settle job reads the token, and again while the chain is not past it (5 s by default) */
const SETTLE_LOOK_MS = 1000

const dir = mkdtempSync(join(tmpdir(), 'slipway-x402-'))
let devnet: Devnet
let merchantServer: X402Merchant
let t: TestApp
let server: HttpServer
let f: Factory
let tenant: Tenant
let admin: SignedInUser
let otherAdmin: SignedInUser
let merchantId: string
let agent: { id: string; key: string; wallet: Address }

const as = (u: SignedInUser | string) => ({ token: typeof u === 'string' ? u : u.accessToken })
const usdc = (who: Address) => devnetUsdc(devnet.url).balanceOf(who)
const mint = (to: Address, units: bigint) => devnetUsdc(devnet.url).mint(to, units)
const mine = () => devnetUsdc(devnet.url).mine()

async function newAgent(usdcUnits: bigint, policy: Record<string, unknown> = {}) {
  const owner = await f.user(tenant)
  const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, as(owner))
  expect(w.status).toBe(201)
  if (usdcUnits > 0n) await mint(w.body.address, usdcUnits)
  const p = await f.api.post(`${BASE}/policies`, { name: 'x402', currency: 'USDC', limits: [{ interval: 'per_transaction', amount: '1' }, { interval: 'daily', amount: '5' }], allowedRails: ['x402'], ...policy }, as(admin))
  expect(p.status).toBe(201)
  const a = await f.api.post(`${BASE}/agents`, { name: 'researcher', walletId: w.body.id, policyId: p.body.id }, as(admin))
  expect(a.status).toBe(201)
  // the wallet's owner lets the agent pay from it (docs/agent-payments.md, "The wallet owner's consent")
  expect((await f.api.post(`${BASE}/agents/${a.body.id}/wallet-consent`, {}, as(owner))).status).toBe(200)
  const k = await f.api.post(`${BASE}/agents/${a.body.id}/api-keys`, { name: 'worker' }, as(admin))
  expect(k.status).toBe(201)
  return { id: a.body.id as string, key: k.body.key as string, wallet: w.body.address as Address }
}

const pay = (path: string, body: Record<string, unknown> = {}, who = agent) =>
  f.api.post(`${BASE}/executions`, { agentId: who.id, merchantId, amount: '0.05', currency: 'USDC', rail: 'x402', resourceUrl: HOST + path, ...body }, as(who.key))
const read = (id: string) => f.api.get(`${BASE}/executions/${id}`, as(admin))

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, dbPath: join(dir, 'chain'), blockTime: 0 })
  merchantServer = await startX402Merchant({ rpcUrl: devnet.url, chainId: 11155111, usdc: DEVNET_USDC, maxTimeoutSeconds: AUTH_SECONDS })
  t = await makeApp({ clock: systemClock, jobs: true, env: { ...devnet.env, WEBHOOK_DEV_ROUTES: `x402.devnet.test=${merchantServer.url}`, AGENT_PAYMENTS_X402_TIMEOUT_MS: '3000', AGENT_PAYMENTS_X402_SETTLE_LOOK_MS: String(SETTLE_LOOK_MS) } })
  server = serve(t)
  f = new Factory(t, new Api(server.url))
  tenant = await f.tenant()
  admin = await f.tenantAdmin(tenant)
  otherAdmin = await f.tenantAdmin(await f.tenant())
  const m = await f.api.post(`${BASE}/merchants`, { name: 'weather api', category: 'data', payTo: { network: 'sepolia', address: merchantServer.payTo } }, as(admin))
  expect(m.status).toBe(201)
  merchantId = m.body.id
  agent = await newAgent(3_000_000n)
}, 60_000)

afterAll(async () => {
  await server?.stop()
  await t?.close()
  await merchantServer?.stop()
  await devnet?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('the x402 rail', () => {
  test('an agent buys a paid resource: the USDC moves to the merchant, succeeded, the answer and the settlement kept, a receipt', async () => {
    const [agentBefore, merchantBefore, settledBefore] = [await usdc(agent.wallet), await usdc(merchantServer.payTo), merchantServer.settled]
    const r = await pay('/weather', { description: 'the forecast' })
    expect(r.status).toBe(201)
    const body = r.body
    const x = body.x402
    expect([body.status, body.amount, body.rail, body.network, body.payToAddress, body.resourceUrl]).toEqual(['succeeded', '0.01', 'x402', 'sepolia', merchantServer.payTo, `${HOST}/weather`])
    expect(x.requirement).toEqual({ scheme: 'exact', network: 'eip155:11155111', asset: DEVNET_USDC, payTo: merchantServer.payTo, amount: WEATHER_PRICE.toString(), maxTimeoutSeconds: AUTH_SECONDS })
    expect(x.refused).toEqual([])
    expect([x.authorization.from.toLowerCase(), x.authorization.to, x.authorization.value]).toEqual([agent.wallet.toLowerCase(), merchantServer.payTo, '10000'])
    expect([x.settlement.success, x.settlement.source, x.settlement.transaction]).toEqual([true, 'resource', body.txHash])
    expect(body.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect([x.resource.status, x.resource.truncated, x.resource.bodyBase64]).toEqual([200, false, null])
    expect(x.resource.contentType).toContain('application/json')
    expect(JSON.parse(x.resource.body)).toEqual({ city: 'Lisbon', forecast: 'sunny', temperatureC: 21 })
    // the token moved, once, through the facilitator
    expect(await usdc(agent.wallet)).toBe(agentBefore - WEATHER_PRICE)
    expect(await usdc(merchantServer.payTo)).toBe(merchantBefore + WEATHER_PRICE)
    expect(merchantServer.settled).toBe(settledBefore + 1)
    // its hold counts 30 s more once settled (for balances read before the settling block), not until the authorization expires
    const row = (await findExecution(t.deps.database.db, tenant.id, body.id))!
    const hold = (await findHold(t.deps.database.db, tenant.id, row.x402!.holdId!))!
    expect([hold.amount, hold.expiresAt <= Date.now() + 30_000]).toEqual(['10000', true])
    const receipt = await f.api.get(`${BASE}/executions/${body.id}/receipt`, as(agent.key))
    expect(receipt.status).toBe(200)
    expect([receipt.body.rail, receipt.body.txHash, receipt.body.transactionId, receipt.body.to, receipt.body.amount]).toEqual(['x402', body.txHash, null, merchantServer.payTo, '0.01'])
    expect(receipt.body.x402).toEqual({
      resourceUrl: `${HOST}/weather`, network: 'eip155:11155111', transaction: body.txHash, payer: expect.any(String), payTo: merchantServer.payTo,
      asset: DEVNET_USDC, amount: '10000', nonce: x.authorization.nonce, settledBy: 'resource',
    })
    expect((await f.api.get(`${BASE}/executions/${body.id}/receipt`, as(otherAdmin))).status).toBe(404)
    // what counts against the limits is the price paid, not the 0.05 reserved
    const a = await f.api.get(`${BASE}/agents/${agent.id}`, as(admin))
    expect(a.body.spend.windows.find((w: { interval: string }) => w.interval === 'daily').spentAmount).toBe('0.01')
    const audit = await f.api.get(`${BASE}/audit-log?resourceType=execution&resourceId=${body.id}`, as(admin))
    expect(audit.body.data.map((e: { action: string }) => e.action).sort()).toEqual(['execution.authorized', 'execution.created', 'execution.succeeded'])
  }, 30_000)

  test('refused before any signature: above the reservation, on another network, to a payee other than the merchant; nothing moves', async () => {
    const [agentBefore, settledBefore] = [await usdc(agent.wallet), merchantServer.settled]
    const cases: [string, RegExp][] = [['/premium', /amount 50000000 is above the reserved 50000/], ['/elsewhere', /network eip155:84532 is not the execution's eip155:11155111/], ['/other-payee', /payTo 0x[0-9a-fA-F]{40} is not the merchant's/]]
    for (const [path, why] of cases) {
      const r = await pay(path)
      expect(r.status).toBe(201)
      const b = r.body
      expect([b.status, b.failureReason?.split(':')[0], b.x402.authorization, b.x402.requirement, b.txHash]).toEqual(['failed', 'X402_REQUIREMENTS_REFUSED', null, null, null])
      expect(b.x402.refused).toHaveLength(1)
      expect(b.x402.refused[0].reasons.join('; ')).toMatch(why)
      expect(b.x402.resource.status).toBe(402)
      expect((await f.api.get(`${BASE}/executions/${b.id}/receipt`, as(admin))).status).toBe(404)
    }
    expect(await usdc(agent.wallet)).toBe(agentBefore)
    expect(merchantServer.settled).toBe(settledBefore)
  }, 30_000)

  test('a resource that answers 402 to the payment: processing until a block past the authorization\'s validBefore, then failed and released; settled late by the merchant: succeeded', async () => {
    const [agentBefore, merchantBefore] = [await usdc(agent.wallet), await usdc(merchantServer.payTo)]
    const kept = merchantServer.captured.length
    const [left, late] = await Promise.all([pay('/always-402'), pay('/always-402')])
    for (const r of [left, late]) {
      expect(r.status).toBe(201)
      expect([r.body.status, r.body.failureReason?.split(':')[0]]).toEqual(['processing', 'X402_PAYMENT_REFUSED'])
      expect(r.body.x402.authorization.validBefore).toMatch(/^\d+$/)
    }
    expect(merchantServer.captured.length).toBe(kept + 2)
    // the merchant settles one of the two payments it kept, before it expires
    const which = merchantServer.captured.slice(kept).findIndex((c) => c.payload.payload.authorization && (c.payload.payload.authorization as { nonce: string }).nonce === late.body.x402.authorization.nonce)
    const settled = await merchantServer.settleCaptured(kept + which)
    expect(settled.success).toBe(true)
    // our clock passes validBefore, the chain's does not (no block since): it still waits, as EIP-3009 goes by the block's time
    // (the job has read the token at least once by then: SETTLE_LOOK_MS after validBefore, 2 s of margin)
    const validBefore = Number(left.body.x402.authorization.validBefore) * 1000
    await Bun.sleep(Math.max(0, validBefore + SETTLE_LOOK_MS + 2_000 - Date.now()))
    expect((await read(left.body.id)).body.status).toBe('processing')
    expect((await read(late.body.id)).body.status).toBe('succeeded')
    // the chain moves on: a block past validBefore, and the unused authorization can no longer be settled
    const doneLeft = await until(async () => { await mine(); return read(left.body.id) }, (r) => r.body.status !== 'processing', 30_000)
    const doneLate = await read(late.body.id)
    expect([doneLeft.body.status, doneLeft.body.failureReason.split(':')[0], doneLeft.body.txHash]).toEqual(['failed', 'X402_PAYMENT_REFUSED', null])
    expect([doneLate.body.status, doneLate.body.txHash, doneLate.body.x402.settlement.source]).toEqual(['succeeded', settled.transaction, 'chain'])
    // one payment moved; the other's reservation no longer counts
    expect(await usdc(agent.wallet)).toBe(agentBefore - WEATHER_PRICE)
    expect(await usdc(merchantServer.payTo)).toBe(merchantBefore + WEATHER_PRICE)
    const a = await f.api.get(`${BASE}/agents/${agent.id}`, as(admin))
    expect(a.body.spend.windows.find((w: { interval: string }) => w.interval === 'daily').spentAmount).toBe('0.02')
  }, 60_000)

  test('a redirect to another host, a resource that does not answer in time, one that asks nothing, an address resolving to a private network: failed at once, nothing signed', async () => {
    ;(t.deps as { resolveHost?: (h: string) => Promise<string[]> }).resolveHost = async (h) => (h === 'internal.example.com' ? ['10.0.0.7'] : [])
    const cases: [string, string][] = [[`${HOST}/redirect-away`, 'X402_REDIRECT_REFUSED'], [`${HOST}/slow`, 'X402_RESOURCE_TIMEOUT'], [`${HOST}/free`, 'X402_PAYMENT_NOT_REQUIRED'], ['https://internal.example.com/paid', 'X402_ADDRESS_REFUSED']]
    const settledBefore = merchantServer.settled
    const results = await Promise.all(cases.map(([url]) => pay('', { resourceUrl: url })))
    results.forEach((r, i) => {
      expect(r.status).toBe(201)
      expect([r.body.status, r.body.failureReason?.split(':')[0], r.body.x402.authorization]).toEqual(['failed', cases[i]![1], null])
    })
    expect(results[2]!.body.x402.resource).toMatchObject({ status: 200 })
    expect(merchantServer.settled).toBe(settledBefore)
  }, 30_000)

  test('a wallet that can afford one of two payments at once: one paid, the other failed INSUFFICIENT_BALANCE before its header was sent', async () => {
    const poor = await newAgent(15_000n)
    const merchantBefore = await usdc(merchantServer.payTo)
    const [a, b] = await Promise.all([pay('/weather', {}, poor), pay('/weather', {}, poor)])
    const statuses = [a.body.status, b.body.status].sort()
    expect(statuses).toEqual(['failed', 'succeeded'])
    const failed = a.body.status === 'failed' ? a.body : b.body
    expect(failed.failureReason).toStartWith('INSUFFICIENT_BALANCE')
    expect(failed.x402.authorization).toBeNull()
    expect(await usdc(poor.wallet)).toBe(5_000n)
    expect(await usdc(merchantServer.payTo)).toBe(merchantBefore + WEATHER_PRICE)
  }, 30_000)

  test('one idempotencyKey five times at once: one execution, one payment', async () => {
    const before = await usdc(agent.wallet)
    const rs = await Promise.all(Array.from({ length: 5 }, () => pay('/weather', { idempotencyKey: 'forecast-once' })))
    const ids = new Set(rs.map((r) => r.body.id))
    expect(ids.size).toBe(1)
    expect(rs.filter((r) => r.status === 201)).toHaveLength(1)
    await until(() => read([...ids][0]!), (r) => r.body.status === 'succeeded', 10_000)
    expect(await usdc(agent.wallet)).toBe(before - WEATHER_PRICE)
  }, 30_000)

  test('bad input: no resourceUrl, an http or IP or reserved address, resourceUrl on onchain, a policy without x402: clear errors, nothing recorded', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ resourceUrl: undefined }, 400, 'RESOURCE_URL_REQUIRED'],
      [{ resourceUrl: 'http://x402.devnet.test/weather' }, 400, 'RESOURCE_URL_REFUSED'],
      [{ resourceUrl: 'https://127.0.0.1/weather' }, 400, 'RESOURCE_URL_REFUSED'],
      [{ resourceUrl: 'https://paid.unknown.test/weather' }, 400, 'RESOURCE_URL_REFUSED'],
      [{ rail: 'onchain' }, 400, 'RESOURCE_URL_X402_ONLY'],
    ]
    const before = (await f.api.get(`${BASE}/executions?agentId=${agent.id}&limit=200`, as(admin))).body.total
    for (const [body, status, code] of cases) {
      const r = await pay('/weather', body)
      expect([r.status, r.body.code]).toEqual([status, code])
    }
    expect((await f.api.get(`${BASE}/executions?agentId=${agent.id}&limit=200`, as(admin))).body.total).toBe(before)
    const onchainOnly = await newAgent(0n, { allowedRails: ['onchain'] })
    const denied = await pay('/weather', {}, onchainOnly)
    expect([denied.status, denied.body.status]).toEqual([201, 'rejected'])
    expect(denied.body.reasons.map((x: { code: string }) => x.code)).toContain('RAIL_NOT_ALLOWED')
    expect(denied.body.x402).toBeNull()
  }, 30_000)
})
