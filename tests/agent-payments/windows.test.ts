/**
 * The window rule (docs/agent-payments.md, "What counts"), over HTTP on a local chain posing as
 * Sepolia with real USDC transfers and a moved clock: an execution counts in the windows of the
 * instant it was last judged (created, approved, confirmed), from that instant; one waiting for
 * an approval or a confirmation holds its amount there, and a rejected one releases it. Crossing
 * the policy's midnight (America/New_York), a week (Asia/Tokyo, Sunday to Monday) and a month
 * (Europe/Berlin, 31 March to 1 April): what is paid in the new window never passes its limit, and
 * `GET /agents/{id}` reports exactly what was paid there. Also `maxExecutionsPerDay`, a mandate's
 * budget, and policy time zones that are IANA names only.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseEther, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { Clock } from '@/lib/clock'
import { updatePolicy } from '@/modules/agent-payments/repo'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser } from '@tests/helpers/factories'
import { until } from '@tests/helpers/until'
import { reader } from '@tests/transactions/helpers'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'

const BASE = '/v1/agent-payments'
const USDC: Address = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'
const MIN = 60_000
const ALL_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']

/** Real time, moved: `at(ms)` makes now `ms`, and it goes on from there. */
class MovedClock implements Clock {
  private offset = 0
  now() { return Date.now() + this.offset }
  at(ms: number) { this.offset = ms - Date.now() }
}

const clock = new MovedClock()
let chain: LocalChain
let t: TestApp
let server: HttpServer
let f: Factory

const as = (u: SignedInUser | string) => ({ token: typeof u === 'string' ? u : u.accessToken })
const balanceOf = (a: Address) => reader(chain.url).tokenBalance(USDC, a)
const codes = (r: { body: { reasons: { code: string; interval?: string }[] } }) => r.body.reasons.map((x) => x.interval ? `${x.code}:${x.interval}` : x.code)

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 11155111 })
  await chain.placeToken(USDC)
  t = await makeApp({ clock, jobs: true, env: { RPC_URL_SEPOLIA: chain.url } })
  server = serve(t)
  f = new Factory(t, new Api(server.url, () => clock.now()))
}, 60_000)

afterAll(async () => {
  await server?.stop()
  await t?.close()
  await chain?.stop()
})

/** A tenant at the clock's time: an admin, a merchant at a fresh address, and agents on funded custodial wallets. */
async function world() {
  const tenant = await f.tenant()
  const admin = await f.tenantAdmin(tenant)
  const payTo = privateKeyToAccount(generatePrivateKey()).address
  const m = await f.api.post(`${BASE}/merchants`, { name: 'shop', payTo: { network: 'sepolia', address: payTo } }, as(admin))
  expect(m.status).toBe(201)
  const agent = async (policy: Record<string, unknown>) => {
    const u = await f.user(tenant)
    const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, as(u))
    expect(w.status).toBe(201)
    await chain.sendNative(w.body.address, parseEther('1'))
    await chain.sendToken(w.body.address, 50_000_000n, USDC)
    const p = await f.api.post(`${BASE}/policies`, { name: 'p', currency: 'USDC', ...policy }, as(admin))
    expect(p.status).toBe(201)
    const a = await f.api.post(`${BASE}/agents`, { name: 'buyer', walletId: w.body.id, policyId: p.body.id }, as(admin))
    expect(a.status).toBe(201)
    // the wallet's owner lets the agent pay from it (docs/agent-payments.md, "The wallet owner's consent")
    expect((await f.api.post(`${BASE}/agents/${a.body.id}/wallet-consent`, {}, as(u))).status).toBe(200)
    const k = await f.api.post(`${BASE}/agents/${a.body.id}/api-keys`, { name: 'worker' }, as(admin))
    return { id: a.body.id as string, key: k.body.key as string }
  }
  const pay = (who: { id: string; key: string }, amount: string, body: Record<string, unknown> = {}) =>
    f.api.post(`${BASE}/executions`, { agentId: who.id, merchantId: m.body.id, amount, currency: 'USDC', rail: 'onchain', ...body }, as(who.key))
  const approvalOf = async (executionId: string) => {
    const list = await f.api.get(`${BASE}/approvals?status=pending&limit=200`, as(admin))
    return list.body.data.find((a: { executionId: string }) => a.executionId === executionId).id as string
  }
  const approve = async (executionId: string) => f.api.post(`${BASE}/approvals/${await approvalOf(executionId)}/approve`, {}, as(admin))
  const reject = async (executionId: string) => f.api.post(`${BASE}/approvals/${await approvalOf(executionId)}/reject`, {}, as(admin))
  const final = (id: string) => until(() => f.api.get(`${BASE}/executions/${id}`, as(admin)), (r) => r.body.status !== 'processing', 30_000)
  const spend = async (who: { id: string }, interval: string) => {
    const r = await f.api.get(`${BASE}/agents/${who.id}`, as(admin))
    const w = r.body.spend.windows.find((x: { interval: string }) => x.interval === interval)
    return { spent: w.spentAmount as string, start: w.windowStart as string, executionsToday: r.body.spend.executionsToday as number }
  }
  return { tenant, admin, payTo, agent, pay, approve, reject, final, spend }
}

/**
 * The reproduction in one window kind: a limit of 3, approvals above 1. Before the
 * boundary a 2.5 waits for approval and holds its room; approved after it, it is judged and
 * counted in the new window, where only 0.5 more passes; the chain shows 3 paid since the boundary.
 */
async function crossing(interval: 'daily' | 'weekly' | 'monthly', timeZone: string, boundary: string) {
  const at = Date.parse(boundary)
  clock.at(at - 3 * MIN)
  const w = await world()
  const agent = await w.agent({
    limits: [{ interval, amount: '3' }], approvalMode: 'threshold', approvalThreshold: '1',
    activeHours: { timeZone, days: ALL_DAYS, start: '00:00', end: '24:00' },
  })
  const waiting = await w.pay(agent, '2.5')
  expect(waiting.body.status).toBe('requires_approval')
  // the waiting 2.5 holds its room in the window it was judged in
  expect((await w.spend(agent, interval)).spent).toBe('2.5')
  expect(codes(await w.pay(agent, '2.5'))).toEqual([`LIMIT_EXCEEDED:${interval}`])
  expect(codes(await w.pay(agent, '0.9'))).toEqual([`LIMIT_EXCEEDED:${interval}`])

  clock.at(at + MIN)
  const before = await balanceOf(w.payTo)
  expect(await w.spend(agent, interval)).toMatchObject({ spent: '0', start: new Date(at).toISOString() })
  const approved = await w.approve(waiting.body.id)
  expect([approved.status, approved.body.status]).toEqual([200, 'approved'])
  expect((await w.final(waiting.body.id)).body.status).toBe('succeeded')
  // judged now, it counts now: in the new window
  expect((await w.spend(agent, interval)).spent).toBe('2.5')
  const over = await w.pay(agent, '0.9')
  expect([over.body.status, codes(over)]).toEqual(['rejected', [`LIMIT_EXCEEDED:${interval}`]])
  const fits = await w.pay(agent, '0.5')
  expect(fits.body.status).toBe('processing')
  expect((await w.final(fits.body.id)).body.status).toBe('succeeded')
  // paid on chain since the boundary: exactly the limit, and exactly what the agent's spend reports
  expect(await balanceOf(w.payTo)).toBe(before + 3_000_000n)
  expect((await w.spend(agent, interval)).spent).toBe('3')
}

describe('an execution counts in the window it was judged in', () => {
  test('across the policy\'s midnight (America/New_York): approved after midnight, it counts in the new day; 3 paid that day, 3 reported', async () => {
    await crossing('daily', 'America/New_York', '2027-03-10T05:00:00Z')
  }, 90_000)

  test('across a week (Asia/Tokyo, Sunday to Monday): approved on Monday, it counts in the new week', async () => {
    await crossing('weekly', 'Asia/Tokyo', '2027-03-14T15:00:00Z')
  }, 90_000)

  test('across a month (Europe/Berlin, 31 March to 1 April): approved on the 1st, it counts in April', async () => {
    await crossing('monthly', 'Europe/Berlin', '2027-03-31T22:00:00Z')
  }, 90_000)

  test('maxExecutionsPerDay: a waiting execution takes its place in the day, a rejected one gives it back, an approved one takes it in the day it was approved', async () => {
    const at = Date.parse('2027-05-12T05:00:00Z')
    clock.at(at - 3 * MIN)
    const w = await world()
    const agent = await w.agent({ limits: [{ interval: 'daily', amount: '100' }], approvalMode: 'always', maxExecutionsPerDay: 1, activeHours: { timeZone: 'America/New_York', days: ALL_DAYS, start: '00:00', end: '24:00' } })
    const first = await w.pay(agent, '1')
    expect(first.body.status).toBe('requires_approval')
    expect((await w.spend(agent, 'daily')).executionsToday).toBe(1)
    expect(codes(await w.pay(agent, '1'))).toEqual(['DAILY_EXECUTIONS_EXCEEDED'])
    expect((await w.reject(first.body.id)).status).toBe(200)
    expect((await w.spend(agent, 'daily')).executionsToday).toBe(0)
    const second = await w.pay(agent, '1')
    expect(second.body.status).toBe('requires_approval')
    clock.at(at + MIN)
    expect((await w.approve(second.body.id)).status).toBe(200)
    expect((await w.final(second.body.id)).body.status).toBe('succeeded')
    expect((await w.spend(agent, 'daily')).executionsToday).toBe(1)
    expect(codes(await w.pay(agent, '1'))).toEqual(['DAILY_EXECUTIONS_EXCEEDED'])
  }, 90_000)

  test('a confirmation after midnight counts in the new day; a waiting execution holds a mandate\'s budget', async () => {
    const at = Date.parse('2027-06-16T05:00:00Z')
    clock.at(at - 3 * MIN)
    const w = await world()
    const agent = await w.agent({ limits: [{ interval: 'daily', amount: '3' }], approvalMode: 'threshold', approvalThreshold: '2', activeHours: { timeZone: 'America/New_York', days: ALL_DAYS, start: '00:00', end: '24:00' } })
    const mandate = async (body: Record<string, unknown>) => {
      const m = await f.api.post(`${BASE}/mandates`, { type: 'intent', agentId: agent.id, expiresAt: new Date(at + 3_600_000).toISOString(), ...body }, as(w.admin))
      expect(m.status).toBe(201)
      expect((await f.api.post(`${BASE}/mandates/${m.body.id}/authorize`, {}, as(w.admin))).status).toBe(200)
      return m.body.id as string
    }
    const human = await mandate({ constraints: { maxAmount: '2', currency: 'USDC' }, humanPresent: true })
    const budgeted = await mandate({ constraints: { maxAmount: '3', currency: 'USDC', budget: '3' }, humanPresent: false })
    // a payment under the budgeted mandate waits for approval (above 2) and holds the budget
    const held = await w.pay(agent, '2.5', { mandateId: budgeted })
    expect(held.body.status).toBe('requires_approval')
    expect((await w.reject(held.body.id)).status).toBe(200)
    const held2 = await w.pay(agent, '2.5', { mandateId: budgeted })
    expect(held2.body.status).toBe('requires_approval')
    expect(codes(await w.pay(agent, '0.6', { mandateId: budgeted }))).toContain('MANDATE_BUDGET_EXCEEDED')
    expect((await w.reject(held2.body.id)).status).toBe(200)
    // a human-present payment waits for its human, holding 1.5 of the day's 3
    const confirmLater = await w.pay(agent, '1.5', { mandateId: human })
    expect(confirmLater.body.status).toBe('requires_confirmation')
    expect((await w.spend(agent, 'daily')).spent).toBe('1.5')
    expect(codes(await w.pay(agent, '2'))).toEqual(['LIMIT_EXCEEDED:daily'])
    clock.at(at + MIN)
    const before = await balanceOf(w.payTo)
    const confirmed = await f.api.post(`${BASE}/executions/${confirmLater.body.id}/confirm`, {}, as(w.admin))
    expect([confirmed.status, confirmed.body.status]).toEqual([200, 'processing'])
    expect((await w.final(confirmLater.body.id)).body.status).toBe('succeeded')
    expect((await w.spend(agent, 'daily')).spent).toBe('1.5')
    expect(codes(await w.pay(agent, '2'))).toEqual(['LIMIT_EXCEEDED:daily'])
    const fits = await w.pay(agent, '1.5')
    expect((await w.final(fits.body.id)).body.status).toBe('succeeded')
    expect(await balanceOf(w.payTo)).toBe(before + 3_000_000n)
    expect((await w.spend(agent, 'daily')).spent).toBe('3')
  }, 90_000)
})

describe('a policy\'s time zone is an IANA name', () => {
  test('offsets are refused with POLICY_INVALID naming the field; zone names are taken', async () => {
    clock.at(Date.now())
    const w = await world()
    const create = (timeZone: string) => f.api.post(`${BASE}/policies`, { name: 'p', currency: 'USDC', limits: [], activeHours: { timeZone, days: ['mon'], start: '08:00', end: '18:00' } }, as(w.admin))
    for (const tz of ['-00:05', '+01:00', '+0100', 'Mars/Olympus']) {
      const r = await create(tz)
      expect([tz, r.status, r.body.code, r.body.details?.[0]?.path]).toEqual([tz, 400, 'POLICY_INVALID', '/activeHours/timeZone'])
    }
    for (const tz of ['Europe/Berlin', 'UTC', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5']) expect([tz, (await create(tz)).status]).toEqual([tz, 201])
  }, 30_000)

  test('a policy stored with an offset before the rule is judged by it until changed; a patch must give a zone name', async () => {
    clock.at(Date.now())
    const w = await world()
    const agent = await w.agent({ limits: [{ interval: 'daily', amount: '3' }], activeHours: { timeZone: 'UTC', days: ALL_DAYS, start: '00:00', end: '24:00' } })
    const policyId = (await f.api.get(`${BASE}/agents/${agent.id}`, as(w.admin))).body.policyId as string
    await t.deps.database.write((tx) => updatePolicy(tx, w.tenant.id, policyId, { activeHours: { timeZone: '-00:05', days: ALL_DAYS as never, start: '00:00', end: '24:00' } }))
    expect((await f.api.get(`${BASE}/agents/${agent.id}`, as(w.admin))).body.spend.timeZone).toBe('-00:05')
    const renamed = await f.api.patch(`${BASE}/policies/${policyId}`, { name: 'renamed' }, as(w.admin))
    expect([renamed.status, renamed.body.details?.[0]?.path]).toEqual([400, '/activeHours/timeZone'])
    const fixed = await f.api.patch(`${BASE}/policies/${policyId}`, { name: 'renamed', activeHours: { timeZone: 'Europe/Lisbon', days: ALL_DAYS, start: '00:00', end: '24:00' } }, as(w.admin))
    expect([fixed.status, fixed.body.activeHours.timeZone]).toEqual([200, 'Europe/Lisbon'])
  }, 30_000)
})
