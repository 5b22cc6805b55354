import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type Tenant } from '@tests/helpers/factories'
import { webhooks, webhookDeliveries } from '@/modules/webhooks/schema'
import { WEBHOOK_EVENT_TYPES } from '@/services'

let t: TestApp
let f: Factory
let admin: string
let tenant: Tenant
let other: Tenant

const path = (tenantId: string, env = 'sandbox') => `/v1/admin/tenants/${tenantId}/webhooks/${env}`
const URL_OK = 'https://hooks.example.com/slipway?x=1'

beforeAll(async () => {
  t = await makeApp({ env: { WEBHOOK_DEV_ROUTES: 'hooks.slipway.test=http://127.0.0.1:9' } })
  f = new Factory(t)
  admin = await f.adminToken()
  tenant = await f.tenant({ bankRamp: { sandbox: { connected: true }, production: { connected: true } } })
  other = await f.tenant({ bankRamp: { sandbox: { connected: true } } })
})
afterAll(() => t.close())

describe('PUT webhook', () => {
  test('first save answers 201 with the secret, stored as the URL parser writes it, secret sealed at rest', async () => {
    const res = await f.api.put(path(tenant.id), { url: 'https://Hooks.Example.com:443/slipway?x=1', eventTypes: ['ramp.kyc.updated'] }, { token: admin })
    expect(res.status).toBe(201)
    expect(res.body.url).toBe(URL_OK)
    expect(res.body.status).toBe('active')
    expect(res.body.eventTypes).toEqual(['ramp.kyc.updated'])
    expect(res.body.environment).toBe('sandbox')
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(res.body.secretHint).toBe(res.body.secret.slice(-5, -1))
    const row = await t.deps.database.db.select().from(webhooks).where(eq(webhooks.id, res.body.id)).get()
    expect(row!.secretSealed).not.toContain(res.body.secret.slice(6))
    expect(JSON.stringify(row)).not.toContain(res.body.secret)
    expect(t.logs.join('\n')).not.toContain(res.body.secret.slice(6))
  })

  test('later saves answer 200 without the secret and keep fields left out', async () => {
    const res = await f.api.put(path(tenant.id), { status: 'disabled' }, { token: admin })
    expect(res.status).toBe(200)
    expect(res.body.secret).toBeUndefined()
    expect(res.body.url).toBe(URL_OK)
    expect(res.body.eventTypes).toEqual(['ramp.kyc.updated'])
    expect(res.body.status).toBe('disabled')
    const back = await f.api.put(path(tenant.id), { status: 'active', eventTypes: [] }, { token: admin })
    expect(back.status).toBe(200)
    expect(back.body.eventTypes).toEqual([])
    expect(back.body.secretHint).toBe(res.body.secretHint)
  })

  test('GET answers the record without the secret', async () => {
    const res = await f.api.get(path(tenant.id), { token: admin })
    expect(res.status).toBe(200)
    expect(res.body.url).toBe(URL_OK)
    expect(res.body.secret).toBeUndefined()
    expect(typeof res.body.secretHint).toBe('string')
  })

  test.each([
    ['http://hooks.example.com/', 'not_https'],
    ['https://hooks.example.com:8443/', 'port'],
    ['https://localhost/', 'refused_name'],
    ['https://10.0.0.1/', 'ip_address'],
    ['https://2130706433/', 'ip_address'],
    ['https://u:p@hooks.example.com/', 'credentials'],
    ['https://hooks.example.com/a/%2e%2e/b', 'dot_segment'],
    ['https://hooks.example.com/#x', 'fragment'],
    ['https://hooks.example.com/' + 'a'.repeat(2100), 'too_long'],
    ['https://intranet.local/x', 'refused_name'],
  ])('a refused address (%s) answers 400 RAMP_WEBHOOK_INVALID and nothing is saved', async (url, reason) => {
    const before = await f.api.get(path(tenant.id), { token: admin })
    const res = await f.api.put(path(tenant.id), { url }, { token: admin })
    expect(res.status).toBe(400)
    expect(res.body.statusCode).toBe(400)
    expect(res.body.details).toMatchObject({ code: 'RAMP_WEBHOOK_INVALID', field: 'url', reason })
    const after = await f.api.get(path(tenant.id), { token: admin })
    expect(after.body).toEqual(before.body)
  })

  test('production has its own webhook; first save without url is refused', async () => {
    const missing = await f.api.put(path(tenant.id, 'production'), { eventTypes: [] }, { token: admin })
    expect(missing.status).toBe(400)
    expect(missing.body.details).toMatchObject({ code: 'RAMP_WEBHOOK_INVALID', field: 'url', reason: 'required' })
    expect((await f.api.get(path(tenant.id, 'production'), { token: admin })).status).toBe(404)
    const res = await f.api.put(path(tenant.id, 'production'), { url: 'https://prod.example.com/h' }, { token: admin })
    expect(res.status).toBe(201)
    const sandbox = await f.api.get(path(tenant.id), { token: admin })
    expect(sandbox.body.id).not.toBe(res.body.id)
  })

  test('a dev-route host passes the address rules; other reserved names do not', async () => {
    const t2 = await f.tenant({ bankRamp: { sandbox: { connected: true } } })
    expect((await f.api.put(path(t2.id), { url: 'https://other.slipway.test/in' }, { token: admin })).status).toBe(400)
    expect((await f.api.put(path(t2.id), { url: 'https://hooks.slipway.test/in' }, { token: admin })).status).toBe(201)
  })

  test('bad inputs: unknown environment, unknown event type, wrong types', async () => {
    expect((await f.api.put(path(tenant.id, 'staging'), { url: URL_OK }, { token: admin })).status).toBe(400)
    const unknownType = await f.api.put(path(tenant.id), { eventTypes: ['ramp.nope'] }, { token: admin })
    expect(unknownType.status).toBe(422)
    expect(unknownType.body.details[0].path).toBe('/eventTypes/0')
    expect((await f.api.put(path(tenant.id), { url: 42 }, { token: admin })).status).toBe(400)
  })

  test('a webhook asks for any type of the catalogue each publishing module registers: the bank ramp\'s, the card onramp\'s, agent payments\'', async () => {
    const own = await f.tenant({ bankRamp: { sandbox: { connected: true } } })
    expect(WEBHOOK_EVENT_TYPES).toEqual(expect.arrayContaining(['ramp.kyc.updated', 'ramp.card_session.updated', 'agent_payments.execution.succeeded']))
    const res = await f.api.put(path(own.id), { url: URL_OK, eventTypes: [...WEBHOOK_EVENT_TYPES] }, { token: admin })
    expect(res.status).toBe(201)
    expect(res.body.eventTypes).toEqual([...WEBHOOK_EVENT_TYPES])
    const unknown = await f.api.put(path(own.id), { eventTypes: ['agent_payments.nope'] }, { token: admin })
    expect(unknown.status).toBe(422)
    expect(unknown.body.details[0].message).toBe(`Unknown event type agent_payments.nope; known types: ${WEBHOOK_EVENT_TYPES.join(', ')}`)
  })

  test('the bank ramp must be connected in that environment', async () => {
    const res = await f.api.put(path(other.id, 'production'), { url: URL_OK }, { token: admin })
    expect(res.status).toBe(503)
    expect(res.body.details).toMatchObject({ code: 'RAMP_NOT_CONFIGURED', environment: 'production' })
  })
})

describe('access', () => {
  test('a tenantadmin manages its own webhook; another tenant\'s id answers 404', async () => {
    const ta = await f.tenantAdmin(other)
    const own = await f.api.put(path(other.id), { url: 'https://other.example.com/h' }, { token: ta.accessToken })
    expect(own.status).toBe(201)
    for (const [method, suffix, body] of [['PUT', '', { url: URL_OK }], ['GET', '', undefined], ['DELETE', '', undefined], ['POST', '/test', undefined], ['POST', '/rotate-secret', undefined], ['GET', '/deliveries', undefined]] as const) {
      const res = await f.api.call(method, path(tenant.id) + suffix, body, { token: ta.accessToken })
      expect(res.status).toBe(404)
    }
    expect((await f.api.get(path(tenant.id), { token: admin })).body.url).toBe(URL_OK)
  })

  test('users are refused and anonymous callers answer 401', async () => {
    const u = await f.user(tenant)
    expect((await f.api.get(path(tenant.id), { token: u.accessToken })).status).toBe(403)
    expect((await f.api.get(path(tenant.id))).status).toBe(401)
  })

  test('an unknown tenant answers 404', async () => {
    expect((await f.api.get(path(crypto.randomUUID()), { token: admin })).status).toBe(404)
    expect((await f.api.get(path('not-a-uuid'), { token: admin })).status).toBe(404)
  })
})

describe('secret replacement, removal, activity log', () => {
  test('rotate answers the new secret once; GET shows the new hint', async () => {
    const before = await f.api.get(path(tenant.id), { token: admin })
    const res = await f.api.post(path(tenant.id) + '/rotate-secret', undefined, { token: admin })
    expect(res.status).toBe(200)
    expect(res.body.secret).toMatch(/^whsec_/)
    expect(res.body.secretHint).toBe(res.body.secret.slice(-5, -1))
    const after = await f.api.get(path(tenant.id), { token: admin })
    expect(after.body.secretHint).toBe(res.body.secretHint)
    expect(after.body.id).toBe(before.body.id)
  })

  test('remove answers 204, drops waiting deliveries, and a later save creates a new secret', async () => {
    const t3 = await f.tenant({ bankRamp: { sandbox: { connected: true } } })
    const created = await f.api.put(path(t3.id), { url: URL_OK }, { token: admin })
    const now = t.clock.now()
    await t.deps.database.write((tx) => tx.insert(webhookDeliveries).values({
      id: `evt_${'a'.repeat(32)}`, tenantId: t3.id, environment: 'sandbox', webhookId: created.body.id, type: 'ramp.kyc.updated', body: '{}',
      status: 'queued', round: 1, attempts: 0, maxAttempts: 10, createdAt: now, updatedAt: now,
    }))
    const del = await f.api.delete(path(t3.id), { token: admin })
    expect(del.status).toBe(204)
    expect((await f.api.get(path(t3.id), { token: admin })).status).toBe(404)
    expect((await f.api.delete(path(t3.id), { token: admin })).status).toBe(404)
    const log = await f.api.get(path(t3.id) + '/deliveries', { token: admin })
    expect(log.body.data[0]).toMatchObject({ status: 'dropped', lastError: 'webhook removed' })
    const again = await f.api.put(path(t3.id), { url: URL_OK }, { token: admin })
    expect(again.status).toBe(201)
    expect(again.body.secret).not.toBe(created.body.secret)
  })

  test('every change is in the tenant\'s activity log with who did it, never the secret', async () => {
    const res = await f.api.get(`/v1/admin/tenants/${tenant.id}/activity?limit=100`, { token: admin })
    const actions = res.body.data.map((e: any) => e.action)
    expect(actions).toContain('webhook.created')
    expect(actions).toContain('webhook.updated')
    expect(actions).toContain('webhook.secret_replaced')
    expect(res.body.data.find((e: any) => e.action === 'webhook.created').actorRole).toBe('admin')
    expect(res.text).not.toMatch(/whsec_/)
  })
})
