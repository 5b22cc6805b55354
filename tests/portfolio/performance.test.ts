/**
 * `GET /v1/portfolio/performance` end to end: Slipway over real HTTP, balances on a local EVM
 * node (anvil, chain id 1, the registry's mainnet USDC placed on it), prices from a fake
 * CoinGecko over HTTP, and the daily job's function run once per simulated day on a ManualClock.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { and, eq } from 'drizzle-orm'
import { parseEther, type Address } from 'viem'
import { RateLimiter } from '@/http/rate-limit'
import { portfolioDays, portfolioSnapshots } from '@/modules/portfolio/schema'
import { recordTenantDay } from '@/modules/portfolio/snapshots'
import { makeApp, ManualClock, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { FakeCoinGecko } from '@tests/fakes/coingecko'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'

const USDC: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const DAY = 86_400_000
/** 2026-11-01T00:00:00Z: the first simulated day's run */
const DAY0 = Date.UTC(2026, 10, 1)

let node: LocalChain
let cg: FakeCoinGecko
let t: TestApp
let server: HttpServer
let f: Factory
let tenant: Tenant
let other: Tenant
let alice: SignedInUser
let bob: SignedInUser
let carol: SignedInUser
const clock = () => t.clock as ManualClock
const wallets: Record<string, { id: string; address: Address }> = {}

async function wallet(u: SignedInUser, chain: string) {
  const res = await f.api.post('/v1/wallets/', { chain }, { token: await tokenOf(u) })
  expect(res.status).toBe(201)
  return res.body as { id: string; address: Address }
}

/** the tenant each user signs in with */
const tenantOf = new Map<string, Tenant>()
const tokens = new Map<string, { token: string; at: number }>()
/** an access token valid at the clock's time (the clock moves by days; tokens last 15 minutes) */
async function tokenOf(u: SignedInUser): Promise<string> {
  const now = t.clock.now()
  const had = tokens.get(u.id)
  if (had && now >= had.at && now - had.at < 600_000) return had.token
  const res = await f.api.post('/v1/auth/login', { username: u.username, password: u.password }, { signedBy: tenantOf.get(u.id)! })
  expect(res.status).toBe(200)
  tokens.set(u.id, { token: res.body.accessToken, at: now })
  return res.body.accessToken
}

async function userOf(tn: Tenant) {
  const u = await f.user(tn)
  tenantOf.set(u.id, tn)
  tokens.set(u.id, { token: u.accessToken, at: t.clock.now() })
  return u
}

const performance = async (u: SignedInUser, query = '') => f.api.get(`/v1/portfolio/performance${query}`, { token: await tokenOf(u) })

/** runs `fn` while the tenant's ethereum RPC address points at a closed port */
async function withRpcDown(fn: () => Promise<void>) {
  const admin = await f.adminToken()
  const patched = await f.api.patch(`/v1/admin/tenants/${tenant.id}`, { settings: { chains: { rpc: { ethereum: 'http://127.0.0.1:9' } } } }, { token: admin })
  expect(patched.status).toBe(200)
  try {
    await fn()
  } finally {
    await f.api.patch(`/v1/admin/tenants/${tenant.id}`, { settings: { chains: { rpc: { ethereum: node.url } } } }, { token: await f.adminToken() })
  }
}

/** the daily job's work for one tenant, at the clock's time */
const recordDay = (tn: Tenant) => recordTenantDay(t.deps, tn.id)

beforeAll(async () => {
  node = await startLocalChain({ chainId: 1 })
  await node.installMulticall3()
  await node.placeToken(USDC)
  cg = new FakeCoinGecko().start()
  t = await makeApp({ clock: new ManualClock(DAY0 - 3600_000), env: { PRICES_BASE_URL: cg.url, PRICES_TIMEOUT_MS: '2000', RPC_TIMEOUT_MS: '3000' } })
  server = serve(t)
  f = new Factory(t, new Api(server.url, () => t.clock.now()))
  const settings = { chains: { rpc: { ethereum: node.url } } }
  tenant = await f.tenant(settings)
  other = await f.tenant(settings)
  alice = await userOf(tenant)
  bob = await userOf(tenant)
  carol = await userOf(other)
  wallets.alice = await wallet(alice, 'ethereum')
  wallets.bob = await wallet(bob, 'ethereum')
  wallets.carol = await wallet(carol, 'ethereum')
  // a testnet wallet holds coins worth nothing: never counted
  wallets.aliceTest = await wallet(alice, 'sepolia')
}, 60_000)
afterAll(async () => {
  await server?.stop()
  await t?.close()
  await cg?.stop()
  await node?.stop()
})
beforeEach(() => {
  t.deps.rateLimiter = new RateLimiter(t.clock)
})

describe('balances recorded day by day', () => {
  test('the change over a period is the value now less the value recorded at its start, each at its own prices', async () => {
    // day 0: alice holds 1 ETH; bob 2 ETH (another user of the tenant); carol 5 ETH (another tenant)
    clock().set(DAY0)
    cg.updatedAt = DAY0 / 1000
    cg.prices = { 'ethereum': { eur: 3000, usd: 3240 }, 'usd-coin': { eur: 0.9, usd: 1 } }
    await node.sendNative(wallets.alice!.address, parseEther('1'))
    await node.sendNative(wallets.bob!.address, parseEther('2'))
    await node.sendNative(wallets.carol!.address, parseEther('5'))
    await node.sendNative(wallets.aliceTest!.address, parseEther('9'))
    await recordDay(tenant)
    await recordDay(other)

    // day 1: alice receives 100 USDC; ETH at 3100 EUR
    clock().set(DAY0 + DAY)
    cg.updatedAt = (DAY0 + DAY) / 1000
    cg.prices = { 'ethereum': { eur: 3100, usd: 3348 }, 'usd-coin': { eur: 0.9, usd: 1 } }
    await node.sendToken(wallets.alice!.address, 100_000_000n, USDC)
    await recordDay(tenant)

    // day 2: alice receives 0.5 ETH more; ETH at 3200 EUR
    clock().set(DAY0 + 2 * DAY)
    cg.updatedAt = (DAY0 + 2 * DAY) / 1000
    cg.prices = { 'ethereum': { eur: 3200, usd: 3456 }, 'usd-coin': { eur: 0.9, usd: 1 } }
    await node.sendNative(wallets.alice!.address, parseEther('0.5'))
    await recordDay(tenant)

    // what was stored: integer-string amounts and the prices of the day, per wallet and token
    const rows = await t.deps.database.db.select().from(portfolioSnapshots)
      .where(and(eq(portfolioSnapshots.tenantId, tenant.id), eq(portfolioSnapshots.walletId, wallets.alice!.id))).all()
    const byDay = (day: string) => rows.filter((r) => r.day === day).map((r) => ({ token: r.token, amount: r.amount, priceEur: r.priceEur, priceUsd: r.priceUsd, carried: r.carried }))
    expect(byDay('2026-11-01')).toEqual([{ token: 'native', amount: '1000000000000000000', priceEur: '3000', priceUsd: '3240', carried: false }])
    expect(byDay('2026-11-03').sort((a, b) => a.token.localeCompare(b.token))).toEqual([
      { token: USDC, amount: '100000000', priceEur: '0.9', priceUsd: '1', carried: false },
      { token: 'native', amount: '1500000000000000000', priceEur: '3200', priceUsd: '3456', carried: false },
    ])
    // the testnet wallet was never recorded
    expect(rows.every((r) => r.walletId !== wallets.aliceTest!.id)).toBe(true)

    // the job retried a minute later records the day again in place, not twice
    clock().advance(60_000)
    await recordDay(tenant)
    const days = (await t.deps.database.db.select().from(portfolioDays).where(and(eq(portfolioDays.tenantId, tenant.id), eq(portfolioDays.userId, alice.id))).all())
      .sort((a, b) => a.day.localeCompare(b.day))
    expect(days.map((d) => [d.day, d.totalEur, d.recordedAt])).toEqual([['2026-11-01', '3000.00', DAY0], ['2026-11-02', '3190.00', DAY0 + DAY], ['2026-11-03', '4890.00', DAY0 + 2 * DAY + 60_000]])
    const again = await t.deps.database.db.select().from(portfolioSnapshots)
      .where(and(eq(portfolioSnapshots.tenantId, tenant.id), eq(portfolioSnapshots.walletId, wallets.alice!.id), eq(portfolioSnapshots.day, '2026-11-03'))).all()
    expect(again).toHaveLength(2)

    // a week later, an hour past midnight: ETH at 3333.33 EUR, priced a minute ago
    clock().set(DAY0 + 7 * DAY + 3600_000)
    cg.updatedAt = (DAY0 + 7 * DAY + 3540_000) / 1000
    cg.prices = { 'ethereum': { eur: 3333.33, usd: 3600 }, 'usd-coin': { eur: 0.9, usd: 1 } }
    const week = await performance(alice, '?period=7d')
    expect(week.status).toBe(200)
    // now: 1.5 ETH at 3333.33 (4999.995) + 100 USDC at 0.9 = 5089.995, rounded to the cent
    expect(week.body).toMatchObject({
      period: '7d',
      from: new Date(DAY0 + 3600_000).toISOString(),
      to: new Date(DAY0 + 7 * DAY + 3600_000).toISOString(),
      totalEur: 5090,
      totalUsd: 5500,
      changeEur: 2090,
      changePercent: 69.67,
      baselineAt: new Date(DAY0).toISOString(),
      historyComplete: true,
      stale: false,
      unpriced: [],
    })
    expect(week.body.points).toEqual([
      { at: new Date(DAY0).toISOString(), totalEur: '3000', totalUsd: '3240' },
      { at: new Date(DAY0 + DAY).toISOString(), totalEur: '3190', totalUsd: '3448' },
      { at: new Date(DAY0 + 2 * DAY + 60_000).toISOString(), totalEur: '4890', totalUsd: '5284' },
      { at: new Date(DAY0 + 7 * DAY + 3600_000).toISOString(), totalEur: '5090', totalUsd: '5500' },
    ])
    expect(week.body.prices).toEqual({ asOf: new Date(DAY0 + 7 * DAY + 3540_000).toISOString(), ageSeconds: 60 })
    expect(week.body.wallets).toEqual({ count: 1, readNow: 1, fromSnapshot: 0, unavailable: 0, balancesAsOf: new Date(DAY0 + 7 * DAY + 3600_000).toISOString() })
    // the spec's three are JSON numbers in the bytes sent
    const raw = await fetch(`${server.url}/v1/portfolio/performance?period=7d`, { headers: { authorization: `Bearer ${await tokenOf(alice)}` } })
    expect(await raw.text()).toMatch(/"totalEur":5090,"totalUsd":5500,"changeEur":2090,/)

    // 24h: from the last day recorded before its start (day 2)
    const day = await performance(alice, '?period=24h')
    expect(day.body).toMatchObject({ changeEur: 200, changePercent: 4.09, baselineAt: new Date(DAY0 + 2 * DAY + 60_000).toISOString(), historyComplete: true })
    expect(day.body.points).toHaveLength(2)

    // 30d: the history is shorter than the period; measured from its first day
    const month = await performance(alice, '?period=30d')
    expect(month.body).toMatchObject({ changeEur: 2090, baselineAt: new Date(DAY0).toISOString(), historyComplete: false })
    expect(month.body.points).toHaveLength(4)

    // no period: 7 days
    expect((await performance(alice)).body).toMatchObject({ period: '7d', changeEur: 2090 })
  })
})

describe('isolation', () => {
  test('another user of the tenant, and a user of another tenant, see only their own wallets and days', async () => {
    clock().set(DAY0 + 7 * DAY + 3600_000)
    cg.updatedAt = t.clock.now() / 1000
    cg.prices = { 'ethereum': { eur: 3333.33, usd: 3600 }, 'usd-coin': { eur: 0.9, usd: 1 } }
    const b = await performance(bob, '?period=7d')
    expect(b.status).toBe(200)
    // bob: 2 ETH, recorded on the three days at 3000, 3100, 3200
    expect(b.body).toMatchObject({ totalEur: 6666.66, changeEur: 666.66, baselineAt: new Date(DAY0).toISOString() })
    expect(b.body.points.map((p: { totalEur: string }) => p.totalEur)).toEqual(['6000', '6200', '6400', '6666.66'])
    const c = await performance(carol, '?period=7d')
    // carol's tenant was recorded on day 0 only
    expect(c.body).toMatchObject({ totalEur: 16666.65, changeEur: 1666.65, baselineAt: new Date(DAY0).toISOString() })
    expect(c.body.points.map((p: { totalEur: string }) => p.totalEur)).toEqual(['15000', '16666.65'])
  })

  test('a day recorded under another tenant for the same user id is not read', async () => {
    // only the tenant filter keeps this row out of alice's answer
    // (one inside the period, one between the period's start and alice's own baseline)
    const foreign = { tenantId: other.id, userId: alice.id, totalEur: '999999.00', totalUsd: '999999.00', unpriced: 0, unreadWallets: 0 }
    await t.deps.database.write((tx) => tx.insert(portfolioDays).values([
      { ...foreign, day: '2026-11-04', recordedAt: DAY0 + 3 * DAY },
      { ...foreign, day: '2026-11-01', recordedAt: DAY0 + 1800_000 },
    ]))
    const res = await performance(alice, '?period=7d')
    expect(res.body.baselineAt).toBe(new Date(DAY0).toISOString())
    expect(res.body.points.map((p: { totalEur: string }) => p.totalEur)).toEqual(['3000', '3190', '4890', '5090'])
    await t.deps.database.write((tx) => tx.delete(portfolioDays).where(and(eq(portfolioDays.tenantId, other.id), eq(portfolioDays.userId, alice.id))))
  })
})

describe('when a partner is down', () => {
  test('the price provider down: the last prices answer, with their age and `stale`, never a 500', async () => {
    clock().set(DAY0 + 8 * DAY)
    cg.updatedAt = (DAY0 + 8 * DAY) / 1000
    cg.prices = { 'ethereum': { eur: 3000, usd: 3240 }, 'usd-coin': { eur: 0.9, usd: 1 } }
    const fresh = await performance(alice)
    expect(fresh.body).toMatchObject({ totalEur: 4590, stale: false, prices: { ageSeconds: 0 } })

    for (const mode of ['server-error', 'rate-limited', 'garbage', 'slow'] as const) {
      cg.mode = mode
      // past the refresh window and past the pause after the last failure
      clock().advance(2 * 3600_000)
      const asked = cg.requests.length
      const started = Date.now()
      const res = await performance(alice)
      expect(res.status, mode).toBe(200)
      expect(cg.requests.length, mode).toBe(asked + 1)
      // at the 2 s limit, long before a slow CoinGecko's 10 s answer (the margin is for a busy machine)
      expect(Date.now() - started, mode).toBeLessThan(7000)
      // valued at the last prices obtained (ETH 3000), which say how old they are
      expect(res.body, mode).toMatchObject({ totalEur: 4590, totalUsd: 4960, stale: true, prices: { asOf: new Date(DAY0 + 8 * DAY).toISOString() } })
      expect(res.body.prices.ageSeconds, mode).toBe((t.clock.now() - (DAY0 + 8 * DAY)) / 1000)
      // within the pause after a failure the provider is not asked again: no second time limit to wait
      clock().advance(10_000)
      expect((await performance(alice)).body.stale, mode).toBe(true)
      expect(cg.requests.length, mode).toBe(asked + 1)
    }

    // the provider back: fresh prices, not stale
    cg.mode = 'ok'
    clock().advance(60_000)
    cg.updatedAt = t.clock.now() / 1000
    cg.prices = { 'ethereum': { eur: 3100, usd: 3348 }, 'usd-coin': { eur: 0.9, usd: 1 } }
    const back = await performance(alice)
    expect(back.body).toMatchObject({ totalEur: 4740, stale: false, prices: { ageSeconds: 0 } })
  })

  test('the provider\'s port closed: the same', async () => {
    const port = Number(new URL(cg.url).port)
    await cg.stop()
    try {
      clock().advance(3600_000)
      const res = await performance(alice)
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ totalEur: 4740, stale: true, prices: { ageSeconds: 3600 } })
    } finally {
      cg.start(port)
    }
  })

  test('a wallet whose network cannot be read counts with its last snapshot, marked stale', async () => {
    const dave = await userOf(tenant)
    const w = await wallet(dave, 'ethereum')
    await node.sendNative(w.address, parseEther('1'))
    clock().advance(3600_000)
    cg.updatedAt = t.clock.now() / 1000
    await recordDay(tenant)
    const recordedAt = t.clock.now()
    // the node goes away for this tenant: its RPC address now points at a closed port
    await withRpcDown(async () => {
      clock().advance(60_000)
      const res = await performance(dave)
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ totalEur: 3100, stale: true, wallets: { count: 1, readNow: 0, fromSnapshot: 1, unavailable: 0, balancesAsOf: new Date(recordedAt).toISOString() } })
      // a user whose wallet was never recorded: left out, said so, still a 200
      const erin = await userOf(tenant)
      await wallet(erin, 'ethereum')
      const none = await performance(erin)
      expect(none.status).toBe(200)
      expect(none.body).toMatchObject({ totalEur: 0, changeEur: 0, changePercent: null, baselineAt: null, stale: true, wallets: { count: 1, readNow: 0, fromSnapshot: 0, unavailable: 1, balancesAsOf: null } })
      // the day's job carries dave's balances rather than dropping them
      clock().advance(DAY)
      await recordDay(tenant)
      const days = (await t.deps.database.db.select().from(portfolioDays).where(and(eq(portfolioDays.tenantId, tenant.id), eq(portfolioDays.userId, dave.id))).all()).sort((a, b) => a.day.localeCompare(b.day))
      expect(days.at(-1)).toMatchObject({ totalEur: '3100.00', unreadWallets: 1 })
      const carried = await t.deps.database.db.select().from(portfolioSnapshots).where(and(eq(portfolioSnapshots.tenantId, tenant.id), eq(portfolioSnapshots.userId, dave.id), eq(portfolioSnapshots.day, days.at(-1)!.day))).all()
      expect(carried.map((r) => ({ amount: r.amount, carried: r.carried }))).toEqual([{ amount: '1000000000000000000', carried: true }])
    })
  })
})

describe('empty wallets and missing prices', () => {
  test('a wallet recorded empty, then unreadable, counts as empty, not as its older, fuller record', async () => {
    const gus = await userOf(tenant)
    const w = await wallet(gus, 'ethereum')
    await node.sendNative(w.address, parseEther('2'))
    clock().advance(DAY)
    cg.updatedAt = t.clock.now() / 1000
    await recordDay(tenant)
    // the wallet is emptied, and the next day records it so
    await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [w.address, '0x0'] }) })
    clock().advance(DAY)
    cg.updatedAt = t.clock.now() / 1000
    await recordDay(tenant)
    const rows = (await t.deps.database.db.select().from(portfolioSnapshots).where(and(eq(portfolioSnapshots.tenantId, tenant.id), eq(portfolioSnapshots.walletId, w.id))).all())
      .sort((a, b) => a.day.localeCompare(b.day))
    expect(rows.map((r) => [r.token, r.amount])).toEqual([['native', '2000000000000000000'], ['native', '0']])
    await withRpcDown(async () => {
      clock().advance(60_000)
      const res = await performance(gus)
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ totalEur: 0, stale: true, wallets: { count: 1, readNow: 0, fromSnapshot: 1 }, unpriced: [] })
    })
  })

  test('no price ever obtained: the holdings are listed as unpriced, the totals leave them out, and the answer is stale', async () => {
    const lone = await makeApp({ clock: new ManualClock(t.clock.now()), env: { PRICES_BASE_URL: 'http://127.0.0.1:9/api/v3', PRICES_TIMEOUT_MS: '2000' } })
    try {
      const lf = new Factory(lone)
      const tn = await lf.tenant({ chains: { rpc: { ethereum: node.url } } })
      const u = await lf.user(tn)
      const w = await lf.api.post('/v1/wallets/', { chain: 'ethereum' }, { token: u.accessToken })
      await node.sendNative(w.body.address, parseEther('1'))
      const res = await lf.api.get('/v1/portfolio/performance', { token: u.accessToken })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ totalEur: 0, totalUsd: 0, changeEur: 0, stale: true, prices: { asOf: null, ageSeconds: null }, unpriced: [{ chain: 'ethereum', token: 'native', symbol: 'ETH' }] })
    } finally {
      await lone.close()
    }
  })
})

describe('prices', () => {
  test('a tenant\'s own token is listed as unpriced and left out of the totals, even named USDC', async () => {
    const own = await f.tenant({ chains: { rpc: { ethereum: node.url }, customTokens: { ethereum: [{ symbol: 'USDC', name: 'Not USD Coin', decimals: 6, address: node.tokenAddress }] } } })
    const frank = await userOf(own)
    const w = await wallet(frank, 'ethereum')
    await node.sendToken(w.address, 5_000_000n)
    await node.sendNative(w.address, parseEther('0.1'))
    clock().advance(60_000)
    cg.updatedAt = t.clock.now() / 1000
    cg.prices = { 'ethereum': { eur: 3000, usd: 3240 }, 'usd-coin': { eur: 0.9, usd: 1 } }
    const res = await performance(frank)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ totalEur: 300, totalUsd: 324, unpriced: [{ chain: 'ethereum', token: node.tokenAddress, symbol: 'USDC' }] })
    // the day's record keeps its amount, with no price
    await recordDay(own)
    const rows = await t.deps.database.db.select().from(portfolioSnapshots).where(and(eq(portfolioSnapshots.tenantId, own.id), eq(portfolioSnapshots.userId, frank.id))).all()
    expect(rows.find((r) => r.token === node.tokenAddress)).toMatchObject({ amount: '5000000', coinId: null, priceEur: null, priceUsd: null })
    const [day] = await t.deps.database.db.select().from(portfolioDays).where(and(eq(portfolioDays.tenantId, own.id), eq(portfolioDays.userId, frank.id))).all()
    expect(day).toMatchObject({ totalEur: '300.00', unpriced: 1 })
  })
})

describe('requests', () => {
  test('a period not in the list answers 400 in the spec\'s validation envelope', async () => {
    for (const bad of ['2w', '7D', '', '1y%20']) {
      const res = await performance(alice, `?period=${bad}`)
      expect(res.status, bad).toBe(400)
      expect(res.body, bad).toMatchObject({ statusCode: 400, error: 'Bad Request', message: 'Request validation failed' })
      expect(res.body.details[0], bad).toMatchObject({ instancePath: '/period', keyword: expect.any(String), schemaPath: expect.any(String), message: expect.any(String) })
    }
  })

  test('no bearer token: 401; a platform admin, who has no wallets: 403', async () => {
    expect((await f.api.get('/v1/portfolio/performance')).status).toBe(401)
    const admin = await f.api.get('/v1/portfolio/performance', { token: await f.adminToken() })
    expect(admin.status).toBe(403)
  })

  test('the 21st request within a minute from one IP answers 429 with the limit headers', async () => {
    const seen: Response[] = []
    const token = await tokenOf(alice)
    for (let i = 0; i < 21; i++) seen.push(await fetch(`${server.url}/v1/portfolio/performance`, { headers: { authorization: `Bearer ${token}` } }))
    expect(seen.slice(0, 20).map((r) => r.status)).toEqual(Array(20).fill(200))
    expect(seen[0]!.headers.get('x-ratelimit-limit')).toBe('20')
    expect(seen[0]!.headers.get('x-ratelimit-remaining')).toBe('19')
    const last = seen[20]!
    expect(last.status).toBe(429)
    expect(last.headers.get('x-ratelimit-limit')).toBe('20')
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(Number(last.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0)
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await last.json()).toMatchObject({ statusCode: 429, error: 'Error' })
    // a minute later it answers again
    clock().advance(60_000)
    expect((await performance(alice)).status).toBe(200)
  })
})
