/**
 * Agent payments mandates (routes 32-36), in process: what each answers, bad input 400,
 * states and 409s, another tenant's ids 404, a plain user 403, audit entries and webhook
 * events, expiry by the job.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { and, eq } from 'drizzle-orm'
import { outbox } from '@/jobs/schema'
import { sha256Hex } from '@/lib/crypto'
import { mandateContent } from '@/modules/agent-payments/mandates/mandates'
import { apMandates } from '@/modules/agent-payments/schema'
import { MANDATE_EXPIRE_TOPIC } from '@/modules/agent-payments/mandates/mandate-topics'
import { webhookDeliveries } from '@/modules/webhooks/schema'
import { makeApp, ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { custodialWallet } from '@tests/transactions/helpers'

const BASE = '/v1/agent-payments'
const PAY_TO = { network: 'base', address: '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001' }
const UNKNOWN = '00000000-0000-4000-8000-000000000000'
const START = Date.UTC(2026, 10, 25, 10)
const DAY = 86_400_000

let t: TestApp
let f: Factory
let clock: ManualClock
let a: Tenant
let b: Tenant
let admin: SignedInUser
let otherAdmin: SignedInUser
let user: SignedInUser
let agentId: string
let merchantId: string
let otherAgentId: string
let otherMerchantId: string

const as = (u: SignedInUser) => ({ token: u.accessToken })
const inDays = (n: number) => new Date(clock.now() + n * DAY).toISOString()

beforeAll(async () => {
  clock = new ManualClock(START)
  t = await makeApp({ clock })
  f = new Factory(t)
  a = await f.tenant({ bankRamp: { sandbox: { connected: true } } })
  b = await f.tenant()
  admin = await f.tenantAdmin(a)
  const hook = await f.api.put(`/v1/admin/tenants/${a.id}/webhooks/sandbox`, { url: 'https://hooks.example.com/in', eventTypes: [] }, { token: await f.adminToken() })
  expect(hook.status).toBe(201)
  otherAdmin = await f.tenantAdmin(b)
  user = await f.user(a)
  const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, as(user))
  expect(w.status).toBe(201)
  const walletId = w.body.id
  // a testnet wallet: the agent's, and its mandates', events go to the sandbox webhook
  agentId = (await f.api.post(`${BASE}/agents`, { name: 'booker', walletId }, as(admin))).body.id
  merchantId = (await f.api.post(`${BASE}/merchants`, { name: 'Rail', category: 'travel', payTo: PAY_TO }, as(admin))).body.id
  const otherUser = await f.user(b)
  const otherWallet = (await custodialWallet(f.api, otherUser)).id
  otherAgentId = (await f.api.post(`${BASE}/agents`, { name: 'x', walletId: otherWallet }, as(otherAdmin))).body.id
  otherMerchantId = (await f.api.post(`${BASE}/merchants`, { name: 'y', payTo: PAY_TO }, as(otherAdmin))).body.id
  expect([agentId, merchantId, otherAgentId, otherMerchantId].every(Boolean)).toBe(true)
})

afterAll(() => t.close())

const intentBody = (over: Record<string, unknown> = {}) => ({
  type: 'intent', agentId, constraints: { maxAmount: '50.00', currency: 'USDC', budget: '200', categories: ['travel'] }, expiresAt: inDays(7), humanPresent: false, ...over,
})
const cartBody = (over: Record<string, unknown> = {}) => ({
  type: 'cart', agentId, constraints: { maxAmount: '30', currency: 'USDC' },
  cart: { items: [{ name: 'ticket', quantity: 2, unitPrice: '10.25' }, { name: 'seat', quantity: 1, unitPrice: '0.5' }], total: '21.00', currency: 'USDC', merchantId },
  expiresAt: inDays(1), humanPresent: true, ...over,
})
async function create(body: Record<string, unknown>) {
  const r = await f.api.post(`${BASE}/mandates`, body, as(admin))
  expect(r.status).toBe(201)
  return r.body
}

describe('create, read, list', () => {
  test('an intent mandate is pending_authorization, its expiry job scheduled for expiresAt', async () => {
    const expiresAt = inDays(7)
    const m = await create(intentBody({ expiresAt, description: 'trains', constraints: { maxAmount: '50.00', currency: 'USDC', budget: '200', merchantIds: [merchantId], categories: ['travel'], recurrence: { frequency: 'weekly', maxOccurrences: 4 }, notBefore: inDays(0), notAfter: inDays(6) } }))
    expect(m).toMatchObject({
      type: 'intent', agentId, shopperId: null, status: 'pending_authorization', environment: 'sandbox', cart: null, description: 'trains', humanPresent: false,
      expiresAt, authorization: null, endedAt: null,
      constraints: { maxAmount: '50.00', currency: 'USDC', budget: '200', merchantIds: [merchantId], categories: ['travel'], recurrence: { frequency: 'weekly', maxOccurrences: 4 } },
    })
    const one = await f.api.get(`${BASE}/mandates/${m.id}`, as(admin))
    expect(one.status).toBe(200)
    expect(one.body).toEqual(m)
    const jobs = await t.deps.database.db.select().from(outbox).where(eq(outbox.topic, MANDATE_EXPIRE_TOPIC))
    const job = jobs.find((j) => (j.payload as { mandateId: string }).mandateId === m.id)!
    expect(job).toMatchObject({ tenantId: a.id, runAt: Date.parse(expiresAt) })
  })

  test('a cart mandate: its total the exact sum of its items', async () => {
    const m = await create(cartBody())
    expect(m).toMatchObject({ type: 'cart', status: 'pending_authorization', humanPresent: true, cart: { total: '21.00', currency: 'USDC', merchantId, items: [{ name: 'ticket', quantity: 2, unitPrice: '10.25' }, { name: 'seat', quantity: 1, unitPrice: '0.5' }] } })
  })

  test('list with ?type&status&agentId, paged, newest first', async () => {
    const all = await f.api.get(`${BASE}/mandates`, as(admin))
    expect(all.status).toBe(200)
    expect(all.body.total).toBeGreaterThanOrEqual(2)
    const carts = await f.api.get(`${BASE}/mandates?type=cart`, as(admin))
    expect(carts.body.data.every((m: { type: string }) => m.type === 'cart')).toBe(true)
    expect((await f.api.get(`${BASE}/mandates?status=active`, as(admin))).body.total).toBe(0)
    expect((await f.api.get(`${BASE}/mandates?agentId=${agentId}`, as(admin))).body.total).toBe(all.body.total)
    expect((await f.api.get(`${BASE}/mandates?agentId=${UNKNOWN}`, as(admin))).body).toEqual({ data: [], total: 0 })
    const page = await f.api.get(`${BASE}/mandates?limit=1&offset=1`, as(admin))
    expect(page.body.data).toHaveLength(1)
    expect(page.body.data[0].id).toBe(all.body.data[1].id)
    for (const q of ['limit=0', 'limit=201', 'offset=-1', 'status=done', 'type=x', 'agentId=nope']) {
      expect((await f.api.get(`${BASE}/mandates?${q}`, as(admin))).status).toBe(400)
    }
    // the other tenant sees none of them
    expect((await f.api.get(`${BASE}/mandates`, as(otherAdmin))).body.total).toBe(0)
  })

  test('bad input answers 400 with its code', async () => {
    const cases: Array<[Record<string, unknown>, string | null]> = [
      [cartBody({ cart: undefined }), 'MANDATE_CART_REQUIRED'],
      [intentBody({ cart: cartBody().cart }), 'MANDATE_CART_NOT_ALLOWED'],
      [cartBody({ cart: { ...cartBody().cart, total: '21.01' } }), 'MANDATE_CART_TOTAL_MISMATCH'],
      [cartBody({ cart: { ...cartBody().cart, total: '21' } }), null], // 21 = 21.00: accepted (checked below)
      [cartBody({ cart: { ...cartBody().cart, currency: 'EUR' } }), 'MANDATE_INVALID'],
      [cartBody({ constraints: { maxAmount: '20', currency: 'USDC' } }), 'MANDATE_INVALID'],
      [cartBody({ constraints: { maxAmount: '30', currency: 'USDC', recurrence: { frequency: 'daily', maxOccurrences: 2 } } }), 'MANDATE_INVALID'],
      [cartBody({ constraints: { maxAmount: '30', currency: 'USDC', merchantIds: [UNKNOWN] } }), 'MANDATE_INVALID'],
      [intentBody({ constraints: { maxAmount: '0', currency: 'USDC' } }), 'MANDATE_INVALID'],
      [intentBody({ constraints: { maxAmount: '5', currency: 'USDC', budget: '0.0' } }), 'MANDATE_INVALID'],
      [intentBody({ expiresAt: new Date(START - 1).toISOString() }), 'MANDATE_INVALID'],
      [intentBody({ constraints: { maxAmount: '5', currency: 'USDC', notBefore: inDays(2), notAfter: inDays(1) } }), 'MANDATE_INVALID'],
      [intentBody({ constraints: { maxAmount: '5', currency: 'USDC', notBefore: inDays(8) } }), 'MANDATE_INVALID'],
    ]
    for (const [body, code] of cases) {
      const r = await f.api.post(`${BASE}/mandates`, body, as(admin))
      if (code === null) {
        expect(r.status).toBe(201)
        continue
      }
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 400, code })
    }
    // schema errors
    for (const body of [
      intentBody({ shopperId: 'shopper-1' }),
      intentBody({ type: 'payment' }),
      intentBody({ constraints: { maxAmount: 50, currency: 'USDC' } }),
      intentBody({ constraints: { maxAmount: '1.5e3', currency: 'USDC' } }),
      intentBody({ constraints: { maxAmount: '5', currency: 'USDC', recurrence: { frequency: 'hourly', maxOccurrences: 2 } } }),
      intentBody({ constraints: { maxAmount: '5', currency: 'USDC', recurrence: { frequency: 'daily', maxOccurrences: 0 } } }),
      intentBody({ constraints: { maxAmount: '5', currency: 'USDC', categories: ['Travel'] } }),
      intentBody({ humanPresent: undefined }),
      intentBody({ expiresAt: 'tomorrow' }),
      intentBody({ agentId: 'nope' }),
      cartBody({ cart: { ...cartBody().cart, items: [] } }),
      cartBody({ cart: { ...cartBody().cart, items: [{ name: 'x', quantity: 1.5, unitPrice: '1' }] } }),
      cartBody({ cart: { ...cartBody().cart, items: [{ name: 'x', quantity: 1, unitPrice: 14 }] } }),
    ]) {
      expect({ body, status: (await f.api.post(`${BASE}/mandates`, body, as(admin))).status }).toEqual({ body, status: 400 })
    }
  })

  test('an agent or merchant of another tenant, or unknown, answers 404; an archived agent 409', async () => {
    for (const body of [
      intentBody({ agentId: otherAgentId }),
      intentBody({ agentId: UNKNOWN }),
      intentBody({ constraints: { maxAmount: '5', currency: 'USDC', merchantIds: [otherMerchantId] } }),
      cartBody({ cart: { ...cartBody().cart, merchantId: otherMerchantId } }),
    ]) {
      const r = await f.api.post(`${BASE}/mandates`, body, as(admin))
      expect(r.status).toBe(404)
    }
    const user2 = await f.user(a)
    const w = (await custodialWallet(f.api, user2)).id
    const archived = (await f.api.post(`${BASE}/agents`, { name: 'old', walletId: w }, as(admin))).body.id
    expect((await f.api.delete(`${BASE}/agents/${archived}`, as(admin))).status).toBe(200)
    const r = await f.api.post(`${BASE}/mandates`, intentBody({ agentId: archived }), as(admin))
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 409, code: 'AGENT_ARCHIVED' })
  })

  test('a plain user 403, no token 401, another tenant\'s mandate 404 on every route', async () => {
    const m = await create(intentBody())
    expect((await f.api.post(`${BASE}/mandates`, intentBody(), as(user))).status).toBe(403)
    expect((await f.api.get(`${BASE}/mandates`, as(user))).status).toBe(403)
    expect((await f.api.get(`${BASE}/mandates/${m.id}`, as(user))).status).toBe(403)
    expect((await f.api.post(`${BASE}/mandates/${m.id}/authorize`, {}, as(user))).status).toBe(403)
    expect((await f.api.post(`${BASE}/mandates/${m.id}/revoke`, {}, as(user))).status).toBe(403)
    expect((await f.api.get(`${BASE}/mandates`)).status).toBe(401)
    for (const id of [m.id, UNKNOWN]) {
      expect((await f.api.get(`${BASE}/mandates/${id}`, as(otherAdmin))).status).toBe(404)
      expect((await f.api.post(`${BASE}/mandates/${id}/authorize`, {}, as(otherAdmin))).status).toBe(404)
      expect((await f.api.post(`${BASE}/mandates/${id}/revoke`, {}, as(otherAdmin))).status).toBe(404)
    }
    expect((await f.api.get(`${BASE}/mandates/${m.id}`, as(admin))).body.status).toBe('pending_authorization')
    // an agent key cannot use these routes
    const key = (await f.api.post(`${BASE}/agents/${agentId}/api-keys`, { name: 'k' }, as(admin))).body.key
    expect((await f.api.get(`${BASE}/mandates`, { token: key })).status).toBe(403)
  })

  test('a platform admin acts for a tenant naming tenantId', async () => {
    const token = await f.adminToken()
    const r = await f.api.post(`${BASE}/mandates`, { ...intentBody(), tenantId: a.id }, { token })
    expect(r.status).toBe(201)
    expect((await f.api.get(`${BASE}/mandates/${r.body.id}?tenantId=${a.id}`, { token })).status).toBe(200)
    expect((await f.api.get(`${BASE}/mandates/${r.body.id}?tenantId=${b.id}`, { token })).status).toBe(404)
  })
})

describe('authorize and revoke', () => {
  test('authorize: pending → active, storing who, when and the hash of the content approved', async () => {
    const m = await create(intentBody())
    clock.advance(60_000)
    const r = await f.api.post(`${BASE}/mandates/${m.id}/authorize`, {}, as(admin))
    expect(r.status).toBe(200)
    expect(r.body.status).toBe('active')
    const row = (await t.deps.database.db.select().from(apMandates).where(eq(apMandates.id, m.id)).get())!
    expect(r.body.authorization).toEqual({ authorizedBy: admin.id, authorizedAt: new Date(clock.now()).toISOString(), contentHash: sha256Hex(mandateContent(row)), keyThumbprint: null })
    expect(r.body.authorization.contentHash).toMatch(/^[0-9a-f]{64}$/)
    // twice: 409
    const again = await f.api.post(`${BASE}/mandates/${m.id}/authorize`, {}, as(admin))
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: 'MANDATE_STATE_INVALID' })
    // revoke: active → revoked, final
    const revoked = await f.api.post(`${BASE}/mandates/${m.id}/revoke`, {}, as(admin))
    expect(revoked.status).toBe(200)
    expect(revoked.body).toMatchObject({ status: 'revoked', endedAt: new Date(clock.now()).toISOString() })
    expect(revoked.body.authorization.authorizedBy).toBe(admin.id)
    for (const verb of ['authorize', 'revoke']) {
      const x = await f.api.post(`${BASE}/mandates/${m.id}/${verb}`, {}, as(admin))
      expect({ status: x.status, code: x.body.code }).toEqual({ status: 409, code: 'MANDATE_STATE_INVALID' })
    }
  })

  test('the content hash differs between mandates and does not depend on key order', async () => {
    const x = await create(intentBody({ constraints: { currency: 'USDC', maxAmount: '5' } }))
    const y = await create(intentBody({ constraints: { maxAmount: '5', currency: 'USDC' } }))
    const hx = (await f.api.post(`${BASE}/mandates/${x.id}/authorize`, {}, as(admin))).body.authorization.contentHash
    const hy = (await f.api.post(`${BASE}/mandates/${y.id}/authorize`, {}, as(admin))).body.authorization.contentHash
    expect(hx).not.toBe(hy) // ids differ
    const rx = (await t.deps.database.db.select().from(apMandates).where(eq(apMandates.id, x.id)).get())!
    expect(mandateContent({ ...rx, constraints: { currency: 'USDC', maxAmount: '5' } })).toBe(mandateContent({ ...rx, constraints: { maxAmount: '5', currency: 'USDC' } }))
  })

  test('a shopper JWS on a mandate without a shopper answers 400 SHOPPER_KEY_MISSING and changes nothing', async () => {
    const m = await create(intentBody())
    const r = await f.api.post(`${BASE}/mandates/${m.id}/authorize`, { userAuthorization: 'eyJhbGciOiJFUzI1NiJ9.e30.sig' }, as(admin))
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 400, code: 'SHOPPER_KEY_MISSING' })
    expect((await f.api.get(`${BASE}/mandates/${m.id}`, as(admin))).body.status).toBe('pending_authorization')
  })

  test('revoke a pending mandate: declined, rejected', async () => {
    const m = await create(cartBody())
    const r = await f.api.post(`${BASE}/mandates/${m.id}/revoke`, {}, as(admin))
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ status: 'rejected', authorization: null })
    const x = await f.api.post(`${BASE}/mandates/${m.id}/authorize`, {}, as(admin))
    expect({ status: x.status, code: x.body.code }).toEqual({ status: 409, code: 'MANDATE_STATE_INVALID' })
  })

  test('authorize past expiresAt, before the job ran: 409 MANDATE_EXPIRED', async () => {
    const m = await create(intentBody({ expiresAt: new Date(clock.now() + 1000).toISOString() }))
    clock.advance(1000)
    const r = await f.api.post(`${BASE}/mandates/${m.id}/authorize`, {}, as(admin))
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 409, code: 'MANDATE_EXPIRED' })
  })
})

describe('expiry', () => {
  const runJob = async (mandateId: string) => {
    const { expireMandate } = await import('@/modules/agent-payments/mandates/mandates')
    await expireMandate(t.deps, a.id, { mandateId }, `job-${mandateId}`)
  }

  test('the job expires pending and active mandates at expiresAt, not before, and leaves final ones', async () => {
    const soon = new Date(clock.now() + 5 * 60_000).toISOString()
    const pending = await create(intentBody({ expiresAt: soon }))
    const active = await create(intentBody({ expiresAt: soon }))
    const revoked = await create(intentBody({ expiresAt: soon }))
    await f.api.post(`${BASE}/mandates/${active.id}/authorize`, {}, as(admin))
    await f.api.post(`${BASE}/mandates/${revoked.id}/authorize`, {}, as(admin))
    await f.api.post(`${BASE}/mandates/${revoked.id}/revoke`, {}, as(admin))
    // early: nothing changes
    await runJob(pending.id)
    expect((await f.api.get(`${BASE}/mandates/${pending.id}`, as(admin))).body.status).toBe('pending_authorization')
    clock.advance(5 * 60_000)
    for (const m of [pending, active, revoked]) await runJob(m.id)
    const get = async (id: string) => (await f.api.get(`${BASE}/mandates/${id}`, as(admin))).body
    expect(await get(pending.id)).toMatchObject({ status: 'expired', endedAt: new Date(clock.now()).toISOString() })
    expect((await get(active.id)).status).toBe('expired')
    expect((await get(revoked.id)).status).toBe('revoked')
    // again: idempotent, one audit entry
    await runJob(active.id)
    const log = (await f.api.get(`${BASE}/audit-log?resourceId=${active.id}`, as(admin))).body.data
    expect(log.map((e: { action: string }) => e.action)).toEqual(['mandate.expired', 'mandate.authorized', 'mandate.created'])
    expect(log[0]).toMatchObject({ actorType: 'system', actorId: null, before: { status: 'active' }, after: { status: 'expired' } })
    // unknown mandates and another tenant's are ignored
    const { expireMandate } = await import('@/modules/agent-payments/mandates/mandates')
    await expireMandate(t.deps, b.id, { mandateId: pending.id }, 'x')
    await expireMandate(t.deps, a.id, { mandateId: UNKNOWN }, 'x')
    await expireMandate(t.deps, null, { mandateId: pending.id }, 'x')
  })

  test('the running job runner expires a mandate at its expiresAt', async () => {
    const c = new ManualClock(START)
    const app = await makeApp({ clock: c, jobs: true })
    try {
      const g = new Factory(app)
      const tenant = await g.tenant()
      const ad = await g.tenantAdmin(tenant)
      const u = await g.user(tenant)
      const w = (await custodialWallet(g.api, u)).id
      const agent = (await g.api.post(`${BASE}/agents`, { name: 'a', walletId: w }, as(ad))).body.id
      const m = (await g.api.post(`${BASE}/mandates`, intentBody({ agentId: agent, expiresAt: new Date(START + 60_000).toISOString() }), as(ad))).body
      expect((await g.api.post(`${BASE}/mandates/${m.id}/authorize`, {}, as(ad))).body.status).toBe('active')
      await Bun.sleep(200)
      expect((await g.api.get(`${BASE}/mandates/${m.id}`, as(ad))).body.status).toBe('active')
      c.advance(60_000)
      let status = 'active'
      for (let i = 0; i < 100 && status !== 'expired'; i++) {
        await Bun.sleep(50)
        status = (await g.api.get(`${BASE}/mandates/${m.id}`, as(ad))).body.status
      }
      expect(status).toBe('expired')
    } finally {
      await app.close()
    }
  }, 20_000)
})

describe('audit and events', () => {
  test('every change audited and published as agent_payments.mandate.*', async () => {
    const m = await create(intentBody())
    await f.api.post(`${BASE}/mandates/${m.id}/authorize`, {}, as(admin))
    await f.api.post(`${BASE}/mandates/${m.id}/revoke`, {}, as(admin))
    const log = await f.api.get(`${BASE}/audit-log?resourceType=mandate&resourceId=${m.id}`, as(admin))
    expect(log.status).toBe(200)
    expect(log.body.data.map((e: { action: string }) => e.action)).toEqual(['mandate.revoked', 'mandate.authorized', 'mandate.created'])
    expect(log.body.data[1]).toMatchObject({ actorType: 'user', actorId: admin.id, resourceType: 'mandate', before: { status: 'pending_authorization' }, after: { status: 'active' } })
    const deliveries = await t.deps.database.db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.tenantId, a.id), eq(webhookDeliveries.environment, 'sandbox')))
    const ours = deliveries.filter((d) => JSON.parse(d.body as string).data?.id === m.id).map((d) => d.type)
    expect(ours.sort()).toEqual(['agent_payments.mandate.authorized', 'agent_payments.mandate.created', 'agent_payments.mandate.revoked'])
    const types = new Set(deliveries.map((d) => d.type))
    for (const type of ['agent_payments.mandate.rejected', 'agent_payments.mandate.expired']) expect(types.has(type)).toBe(true)
  })
})
