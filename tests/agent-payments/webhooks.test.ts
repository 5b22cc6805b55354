/**
 * Agent payments routes 48-53, the group's own webhook subscriptions: what each answers,
 * bad input 400, an address the SSRF rules refuse 400, another tenant 404, a plain user
 * 403, the secret shown once and sealed at rest, audit entries; and end to end through the
 * platform's delivery pipeline (jobs on, WEBHOOK_DEV_ROUTES to a local receiver): a change
 * delivers `agent_payments.*` signed with the subscription's secret, disabled or
 * unsubscribed types get nothing, route 53 shows the delivery with its status code.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { makeApp, ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { WebhookReceiver } from '@tests/fakes/webhook-receiver'
import { verifyDelivery } from '@/modules/webhooks/signature'
import { webhookDeliveries, webhooks } from '@/modules/webhooks/schema'
import { until } from '@tests/helpers/until'

const BASE = '/v1/agent-payments'
const UNKNOWN = '00000000-0000-4000-8000-000000000000'
const HOOK = 'https://ap-hooks.slipway.test/in'
const receiver = new WebhookReceiver()

let t: TestApp
let f: Factory
let a: Tenant
let b: Tenant
let admin: SignedInUser
let otherAdmin: SignedInUser
let user: SignedInUser

const as = (u: SignedInUser) => ({ token: u.accessToken })

beforeAll(async () => {
  receiver.start()
  t = await makeApp({ jobs: true, clock: new ManualClock(Date.now()), env: { WEBHOOK_DEV_ROUTES: `ap-hooks.slipway.test=${receiver.origin}` } })
  f = new Factory(t)
  a = await f.tenant()
  b = await f.tenant()
  admin = await f.tenantAdmin(a)
  otherAdmin = await f.tenantAdmin(b)
  user = await f.user(a)
})
afterAll(async () => {
  await t.close()
  receiver.stop()
})
beforeEach(() => {
  receiver.plan = []
})


async function subscribe(body: Record<string, unknown>, who = admin) {
  const r = await f.api.post(`${BASE}/webhooks`, body, as(who))
  expect(r.status).toBe(201)
  return r.body as { id: string; secret: string; secretHint: string; url: string; eventTypes: string[]; enabled: boolean }
}

const createPolicy = async (who = admin) => {
  const r = await f.api.post(`${BASE}/policies`, { name: 'p', currency: 'USDC', limits: [] }, as(who))
  expect(r.status).toBe(201)
  return r.body as { id: string }
}

describe('routes 48-52', () => {
  test('create answers the secret once; reads show a hint; the secret is sealed at rest', async () => {
    const hook = await subscribe({ url: `${HOOK}/routes`, eventTypes: ['agent_payments.agent.created'] })
    expect(hook.secret).toMatch(/^whsec_/)
    expect(hook).toMatchObject({ url: `${HOOK}/routes`, eventTypes: ['agent_payments.agent.created'], enabled: true })
    expect(hook.secret).toContain(hook.secretHint)
    const got = await f.api.get(`${BASE}/webhooks/${hook.id}`, as(admin))
    expect(got.status).toBe(200)
    expect(got.body.secret).toBeUndefined()
    expect(got.body.secretHint).toBe(hook.secretHint)
    const row = await t.deps.database.db.select().from(webhooks).where(eq(webhooks.id, hook.id)).get()
    expect(row!.owner).toBe('agent_payments')
    expect(row!.secretSealed).not.toContain(hook.secret.slice(6))
    const list = await f.api.get(`${BASE}/webhooks?limit=1`, as(admin))
    expect(list.status).toBe(200)
    expect(list.body.data.length).toBe(1)
    expect(list.body.total).toBeGreaterThanOrEqual(1)
    expect(list.body.data[0].secret).toBeUndefined()
  })

  test('patch changes url, types and enabled; delete removes; each change audited', async () => {
    const hook = await subscribe({ url: `${HOOK}/patch`, eventTypes: [] })
    const p = await f.api.patch(`${BASE}/webhooks/${hook.id}`, { url: `${HOOK}/patched`, eventTypes: ['agent_payments.policy.created'], enabled: false }, as(admin))
    expect(p.status).toBe(200)
    expect(p.body).toMatchObject({ url: `${HOOK}/patched`, eventTypes: ['agent_payments.policy.created'], enabled: false })
    const d = await f.api.delete(`${BASE}/webhooks/${hook.id}`, as(admin))
    expect(d.status).toBe(204)
    expect((await f.api.get(`${BASE}/webhooks/${hook.id}`, as(admin))).status).toBe(404)
    const audit = await f.api.get(`${BASE}/audit-log?resourceType=webhook&resourceId=${hook.id}`, as(admin))
    expect(audit.status).toBe(200)
    expect(audit.body.data.map((e: { action: string }) => e.action).sort()).toEqual(['webhook.created', 'webhook.deleted', 'webhook.updated'])
    expect(JSON.stringify(audit.body)).not.toContain(hook.secret)
  })

  test('bad inputs 400; an address the SSRF rules refuse 400; nothing stored', async () => {
    const before = (await f.api.get(`${BASE}/webhooks`, as(admin))).body.total
    for (const body of [
      { url: `${HOOK}/x`, eventTypes: ['ramp.kyc.updated'] },
      { url: `${HOOK}/x` },
      { eventTypes: [] },
    ]) expect((await f.api.post(`${BASE}/webhooks`, body, as(admin))).status).toBe(400)
    for (const url of ['http://hooks.example.com/in', 'https://127.0.0.1/in', 'https://10.0.0.1/in', 'https://localhost/in', 'https://hooks.internal.test/in', 'https://hooks.example.com:8443/in']) {
      const r = await f.api.post(`${BASE}/webhooks`, { url, eventTypes: [] }, as(admin))
      expect(r.status).toBe(400)
      expect(r.body.code).toBe('AGENT_PAYMENTS_WEBHOOK_INVALID')
    }
    const hook = await subscribe({ url: `${HOOK}/bad`, eventTypes: [] })
    expect((await f.api.patch(`${BASE}/webhooks/${hook.id}`, { url: 'https://192.168.1.1/in' }, as(admin))).status).toBe(400)
    expect((await f.api.patch(`${BASE}/webhooks/${hook.id}`, { eventTypes: ['webhook.test'] }, as(admin))).status).toBe(400)
    expect((await f.api.patch(`${BASE}/webhooks/${hook.id}`, {}, as(admin))).status).toBe(400)
    expect((await f.api.get(`${BASE}/webhooks/not-a-uuid`, as(admin))).status).toBe(400)
    expect((await f.api.get(`${BASE}/webhooks/${hook.id}`, as(admin))).body.url).toBe(`${HOOK}/bad`)
    expect((await f.api.get(`${BASE}/webhooks`, as(admin))).body.total).toBe(before + 1)
    await f.api.delete(`${BASE}/webhooks/${hook.id}`, as(admin))
  })

  test('another tenant 404, a plain user 403', async () => {
    const hook = await subscribe({ url: `${HOOK}/mine`, eventTypes: [] })
    for (const [method, path, body] of [
      ['get', `${BASE}/webhooks/${hook.id}`, undefined],
      ['patch', `${BASE}/webhooks/${hook.id}`, { enabled: false }],
      ['delete', `${BASE}/webhooks/${hook.id}`, undefined],
      ['get', `${BASE}/webhooks/${hook.id}/deliveries`, undefined],
      ['get', `${BASE}/webhooks/${UNKNOWN}`, undefined],
    ] as const) {
      const r = method === 'patch' ? await f.api.patch(path, body, as(otherAdmin)) : method === 'delete' ? await f.api.delete(path, as(otherAdmin)) : await f.api.get(path, as(otherAdmin))
      expect(r.status).toBe(404)
    }
    expect((await f.api.get(`${BASE}/webhooks`, as(otherAdmin))).body.data.map((h: { id: string }) => h.id)).not.toContain(hook.id)
    expect((await f.api.get(`${BASE}/webhooks`, as(user))).status).toBe(403)
    expect((await f.api.post(`${BASE}/webhooks`, { url: `${HOOK}/u`, eventTypes: [] }, as(user))).status).toBe(403)
    expect((await f.api.get(`${BASE}/webhooks/${hook.id}`, as(user))).status).toBe(403)
    expect((await f.api.get(`${BASE}/webhooks/${hook.id}`, as(admin))).body.enabled).toBe(true)
    await f.api.delete(`${BASE}/webhooks/${hook.id}`, as(admin))
  })
})

describe('end to end through the delivery pipeline', () => {
  test('a policy created is delivered signed to matching enabled subscriptions only; route 53 logs it', async () => {
    const c = await f.tenant()
    const cAdmin = await f.tenantAdmin(c)
    const all = await subscribe({ url: `${HOOK}/all`, eventTypes: [] }, cAdmin)
    const policies = await subscribe({ url: `${HOOK}/policies`, eventTypes: ['agent_payments.policy.created'] }, cAdmin)
    const agentsOnly = await subscribe({ url: `${HOOK}/agents-only`, eventTypes: ['agent_payments.agent.created'] }, cAdmin)
    const off = await subscribe({ url: `${HOOK}/off`, eventTypes: [] }, cAdmin)
    expect((await f.api.patch(`${BASE}/webhooks/${off.id}`, { enabled: false }, as(cAdmin))).status).toBe(200)
    const start = receiver.received.length
    const policy = await createPolicy(cAdmin)
    // a policy's events go to both environments: two deliveries to each matching subscription
    await receiver.waitFor(start + 4)
    await Bun.sleep(100)
    const got = receiver.received.slice(start)
    expect(got.map((r) => r.path).sort()).toEqual(['/in/all', '/in/all', '/in/policies', '/in/policies'])
    for (const r of got) {
      const secret = r.path === '/in/all' ? all.secret : policies.secret
      const other = r.path === '/in/all' ? policies.secret : all.secret
      const headers = new Headers(r.headers)
      expect(verifyDelivery(secret, headers, r.body, Math.floor(Date.now() / 1000))).toEqual({ ok: true })
      expect(verifyDelivery(other, headers, r.body, Math.floor(Date.now() / 1000)).ok).toBe(false)
      const body = JSON.parse(r.body)
      expect(body.type).toBe('agent_payments.policy.created')
      expect(body.data.id).toBe(policy.id)
      expect(body.id).toBe(r.headers['webhook-id'])
    }
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(4)
    const log = await until(() => f.api.get(`${BASE}/webhooks/${all.id}/deliveries`, as(cAdmin)), (r) => r.body.data?.length === 2 && r.body.data.every((d: { status: string }) => d.status === 'done'))
    expect(log.status).toBe(200)
    expect(log.body.total).toBe(2)
    for (const d of log.body.data) {
      expect(d).toMatchObject({ type: 'agent_payments.policy.created', status: 'done', attempts: 1, lastStatusCode: 200, nextAttemptAt: null })
      expect(d.attemptLog).toHaveLength(1)
      expect(d.attemptLog[0].statusCode).toBe(200)
    }
    expect(new Set(log.body.data.map((d: { environment: string }) => d.environment))).toEqual(new Set(['production', 'sandbox']))
    for (const none of [agentsOnly, off]) {
      const r = await f.api.get(`${BASE}/webhooks/${none.id}/deliveries`, as(cAdmin))
      expect(r.status).toBe(200)
      expect(r.body).toEqual({ data: [], total: 0 })
    }
    // the platform's own delivery log does not list the group's deliveries
    const rows = await t.deps.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, all.id))
    expect(rows.every((d) => d.owner === 'agent_payments')).toBe(true)
  })

  test('a failed answer is logged with its status code and the next retry', async () => {
    const c = await f.tenant()
    const cAdmin = await f.tenantAdmin(c)
    const hook = await subscribe({ url: `${HOOK}/fails`, eventTypes: ['agent_payments.policy.created'] }, cAdmin)
    const start = receiver.received.length
    receiver.plan = [503, 503]
    await createPolicy(cAdmin)
    await receiver.waitFor(start + 2)
    const log = await until(() => f.api.get(`${BASE}/webhooks/${hook.id}/deliveries`, as(cAdmin)), (r) => r.body.data?.length === 2 && r.body.data.every((d: { attempts: number }) => d.attempts === 1))
    for (const d of log.body.data) {
      expect(d).toMatchObject({ status: 'queued', attempts: 1, lastStatusCode: 503 })
      expect(d.nextAttemptAt).not.toBeNull()
      expect(d.attemptLog[0].statusCode).toBe(503)
    }
  })
})
