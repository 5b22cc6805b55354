/**
 * The running totals behind the limits (ap_spend_totals, issue 40): kept by triggers on
 * ap_executions in the transaction of each change, a window's row made on first use from the
 * executions already there. Over HTTP with a manual clock:
 * - many executions across a day, a week and a month boundary of a policy's time zone
 *   (Europe/Berlin, through its spring change of hour), some released (canceled, rejected) and
 *   some judged again: every total row equals a recount of the executions table;
 * - an amount released (an execution canceled, an approval rejected) frees the limit again;
 * - a database whose executions predate the totals (the table emptied) judges the same: the rows
 *   are made again from the executions.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '@/lib/clock'
import { toUnits } from '@/modules/agent-payments/policies/policy'
import { COUNTED_STATUSES } from '@/modules/agent-payments/record-types'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'

const BASE = '/v1/agent-payments'
const MIN = 60_000
const ALL_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']
const as = (u: SignedInUser | string) => ({ token: typeof u === 'string' ? u : u.accessToken })
const codes = (r: { body: { reasons: { code: string; interval?: string }[] } }) => r.body.reasons.map((x) => (x.interval ? `${x.code}:${x.interval}` : x.code))

// Saturday 28 March 2026, 20:00 UTC: Berlin's last Sunday of March (the hour moves), its week and its month end ahead
const clock = new ManualClock(Date.parse('2026-03-28T20:00:00Z'))
let t: TestApp
let f: Factory
let tenant: Tenant
let admin: SignedInUser
let merchantId: string

beforeAll(async () => {
  t = await makeApp({ clock })
  f = new Factory(t)
  tenant = await f.tenant()
  admin = await f.tenantAdmin(tenant)
  const m = await f.api.post(`${BASE}/merchants`, { name: 'shop', payTo: { network: 'sepolia', address: '0x' + '6b'.repeat(20) } }, as(admin))
  expect(m.status).toBe(201)
  merchantId = m.body.id
})
afterAll(() => t?.close())

/** The tenant's admin signed in at the clock's time (tokens expire as it moves). */
let signedAt = -Infinity
async function adminNow() {
  if (Math.abs(clock.now() - signedAt) > 5 * MIN) {
    admin = await f.tenantAdmin(tenant)
    signedAt = clock.now()
  }
  return admin
}

async function agentWith(policy: Record<string, unknown>) {
  await adminNow()
  const owner = await f.user(tenant)
  const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, as(owner))
  expect(w.status).toBe(201)
  const p = await f.api.post(`${BASE}/policies`, { name: 'p', currency: 'USDC', approvalMode: 'always', ...policy }, as(admin))
  expect(p.status).toBe(201)
  const a = await f.api.post(`${BASE}/agents`, { name: 'buyer', walletId: w.body.id, policyId: p.body.id }, as(admin))
  expect(a.status).toBe(201)
  expect((await f.api.post(`${BASE}/agents/${a.body.id}/wallet-consent`, {}, as(owner))).status).toBe(200)
  const k = await f.api.post(`${BASE}/agents/${a.body.id}/api-keys`, { name: 'worker' }, as(admin))
  expect(k.status).toBe(201)
  return { id: a.body.id as string, key: k.body.key as string }
}
const pay = (who: { id: string; key: string }, amount: string) =>
  f.api.post(`${BASE}/executions`, { agentId: who.id, merchantId, amount, currency: 'USDC', rail: 'onchain' }, as(who.key))
const rows = async <T>(q: string, args: Array<string | number> = []) => (await t.deps.database.client.execute({ sql: q, args })).rows as unknown as T[]

/** Every total row of the agent against a recount of its executions in the row's window, exact to 1e-18. */
async function recount(agentId: string) {
  const totals = await rows<{ s: number; e: number; whole: string; frac: string; count: number; overflow: number }>(
    `SELECT window_start AS s, window_end AS e, CAST(whole AS TEXT) AS whole, CAST(frac AS TEXT) AS frac, count, overflow
     FROM ap_spend_totals WHERE tenant_id = ? AND owner_kind = 'agent' AND owner_id = ?`, [tenant.id, agentId])
  const execs = await rows<{ amount: string; status: string; at: number }>(
    'SELECT amount, status, coalesce(counted_at, created_at) AS at FROM ap_executions WHERE tenant_id = ? AND agent_id = ?', [tenant.id, agentId])
  const counted = execs.filter((x) => (COUNTED_STATUSES as string[]).includes(x.status))
  return totals.map((r) => {
    const inW = counted.filter((x) => Number(x.at) >= Number(r.s) && Number(x.at) < Number(r.e))
    return {
      window: [Number(r.s), Number(r.e)],
      total: { units: BigInt(r.whole) * 10n ** 18n + BigInt(r.frac), count: Number(r.count), overflow: Number(r.overflow) },
      recount: { units: inW.reduce((n, x) => n + toUnits(x.amount), 0n), count: inW.length, overflow: 0 },
    }
  })
}

describe('running totals of what counts against limits', () => {
  test('many executions across a day, a week and a month boundary (Europe/Berlin): every total equals a recount of the executions', async () => {
    const agent = await agentWith({
      limits: [{ interval: 'daily', amount: '40' }, { interval: 'weekly', amount: '150' }, { interval: 'monthly', amount: '400' }, { interval: 'all_time', amount: '100000' }],
      maxExecutionsPerDay: 30, activeHours: { timeZone: 'Europe/Berlin', days: ALL_DAYS, start: '00:00', end: '24:00' },
    })
    const amounts = ['1.5', '0.000001', '2.999999', '3', '0.25', '7.123456']
    const made: Array<{ id: string; status: string }> = []
    const statuses = new Map<string, number>()
    // every 53 minutes for four days: Saturday 21:00 (Berlin) to Wednesday, through the hour change, Monday's week and April's month
    for (let i = 0; i < 110; i++) {
      clock.set(Date.parse('2026-03-28T20:00:00Z') + i * 53 * MIN)
      const r = await pay(agent, amounts[i % amounts.length]!)
      expect(r.status).toBe(201)
      statuses.set(r.body.status, (statuses.get(r.body.status) ?? 0) + 1)
      made.push({ id: r.body.id, status: r.body.status })
      // some released: canceled (its room freed in the window it was counted in)
      if (i % 7 === 3 && r.body.status === 'requires_approval') {
        const c = await f.api.post(`${BASE}/executions/${r.body.id}/cancel`, {}, as(await adminNow()))
        expect([c.status, c.body.status]).toEqual([200, 'canceled'])
      }
    }
    // both sides of the limits were met: waiting ones, and refusals on each kind of limit
    expect(statuses.get('requires_approval')).toBeGreaterThan(40)
    expect(statuses.get('rejected')).toBeGreaterThan(5)
    const totals = await recount(agent.id)
    // the day, week and month windows of every instant paid at, and all time
    expect(totals.length).toBeGreaterThanOrEqual(4 + 3 + 2 + 1)
    for (const r of totals) expect(r.total).toEqual(r.recount)
    expect(totals.some((r) => r.total.count > 0 && r.window[0] === Date.parse('2026-03-31T22:00:00Z'))).toBe(true)
  }, 120_000)

  test('an amount released frees the limit again: a cancel, a rejected approval', async () => {
    clock.set(Date.parse('2026-05-06T10:00:00Z'))
    const agent = await agentWith({ limits: [{ interval: 'daily', amount: '10' }] })
    const six = await pay(agent, '6')
    expect(six.body.status).toBe('requires_approval')
    const five = await pay(agent, '5')
    expect([five.body.status, codes(five)]).toEqual(['rejected', ['LIMIT_EXCEEDED:daily']])
    // canceled: its 6 no longer counts
    expect((await f.api.post(`${BASE}/executions/${six.body.id}/cancel`, {}, as(admin))).body.status).toBe('canceled')
    const fiveAgain = await pay(agent, '5')
    expect(fiveAgain.body.status).toBe('requires_approval')
    expect(codes(await pay(agent, '5.000001'))).toEqual(['LIMIT_EXCEEDED:daily'])
    // an approval rejected: its 5 freed too, and the whole 10 fits
    const list = await f.api.get(`${BASE}/approvals?status=pending&limit=200`, as(admin))
    const approval = list.body.data.find((a: { executionId: string }) => a.executionId === fiveAgain.body.id)
    const rejected = await f.api.post(`${BASE}/approvals/${approval.id}/reject`, {}, as(admin))
    expect([rejected.status, rejected.body.status]).toEqual([200, 'rejected'])
    expect((await pay(agent, '10')).body.status).toBe('requires_approval')
    expect(codes(await pay(agent, '0.000001'))).toEqual(['LIMIT_EXCEEDED:daily'])
    for (const r of await recount(agent.id)) expect(r.total).toEqual(r.recount)
  })

  test('executions older than the totals (the table emptied, as a database before the migration): rows made again from them', async () => {
    clock.set(Date.parse('2026-06-10T09:00:00Z'))
    const agent = await agentWith({ limits: [{ interval: 'daily', amount: '6' }, { interval: 'all_time', amount: '8' }] })
    expect((await pay(agent, '3')).body.status).toBe('requires_approval')
    clock.set(Date.parse('2026-06-11T09:00:00Z'))
    expect((await pay(agent, '4')).body.status).toBe('requires_approval')
    await t.deps.database.client.execute({ sql: 'DELETE FROM ap_spend_totals WHERE owner_id = ?', args: [agent.id] })
    // all time holds 7 of 8, today 4 of 6: read (and then written) from the executions alone
    expect(codes(await pay(agent, '2.5'))).toEqual(['LIMIT_EXCEEDED:daily', 'LIMIT_EXCEEDED:all_time'])
    expect(codes(await pay(agent, '1.5'))).toEqual(['LIMIT_EXCEEDED:all_time'])
    expect((await pay(agent, '1')).body.status).toBe('requires_approval')
    expect(codes(await pay(agent, '0.01'))).toEqual(['LIMIT_EXCEEDED:all_time'])
    const totals = await recount(agent.id)
    expect(totals.length).toBe(2)
    for (const r of totals) expect(r.total).toEqual(r.recount)
  })
})
