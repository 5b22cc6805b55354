import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { tenants } from '@/db/schema'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type Tenant } from '@tests/helpers/factories'

let t: TestApp
let f: Factory
let admin: string

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  admin = await f.adminToken()
})
afterAll(() => t.close())

describe('tenants', () => {
  test('create answers 201 with the key, the secret and default settings', async () => {
    const res = await f.api.post('/v1/admin/tenants', { name: 'Acme' }, { token: admin })
    expect(res.status).toBe(201)
    expect(res.body.name).toBe('Acme')
    expect(res.body.apiKey).toStartWith('pk_')
    expect(res.body.apiSecret).toStartWith('sk_')
    expect(res.body.settings.refreshTokenRotation).toBe(false)
    expect(res.body.settings.walletMode).toBe('custodial')
    expect(res.body.settings.passwordReset).toEqual({ enabled: false, tokenTtlMinutes: 60, senderName: 'Acme', resetLinkBaseUrl: 'http://slipway.test' })
    expect(res.body.settings.chains.enabled).toBeNull()
  })

  test('the API secret is encrypted at rest, bound to its row', async () => {
    const tenant = await f.tenant()
    const row = await t.deps.database.db.select().from(tenants).where(eq(tenants.id, tenant.id)).get()
    expect(row!.apiSecretSealed).not.toContain(tenant.apiSecret)
    expect(t.deps.sealer.open(row!.apiSecretSealed, `tenant:${tenant.id}:api_secret`)).toBe(tenant.apiSecret)
    expect(() => t.deps.sealer.open(row!.apiSecretSealed, 'tenant:another:api_secret')).toThrow()
  })

  test('list, read, update settings (deep merge), read and rotate the secret', async () => {
    const tenant = await f.tenant()
    const list = await f.api.get('/v1/admin/tenants?limit=100', { token: admin })
    expect(list.status).toBe(200)
    expect(list.body.data.some((x: { id: string }) => x.id === tenant.id)).toBe(true)
    expect(list.body.pagination.limit).toBe(100)
    const patch = await f.api.patch(`/v1/admin/tenants/${tenant.id}`, {
      refreshTokenRotation: true,
      walletMode: 'mpc',
      passwordReset: { enabled: true },
      chains: { enabled: ['ethereum', 'solana'] },
      bankRamp: { sandbox: { connected: true, apiKey: 'partner-key-123' } },
    }, { token: admin })
    expect(patch.status).toBe(200)
    expect(patch.body.settings.refreshTokenRotation).toBe(true)
    expect(patch.body.settings.walletMode).toBe('mpc')
    expect(patch.body.settings.passwordReset.enabled).toBe(true)
    expect(patch.body.settings.passwordReset.tokenTtlMinutes).toBe(60)
    expect(patch.body.settings.chains.enabled).toEqual(['ethereum', 'solana'])
    expect(patch.body.settings.bankRamp.sandbox).toEqual({ connected: true, baseUrl: null, apiKeySet: true, webhookKeySet: false, functions: { kyc: false, payin: false, payout: false } })
    expect(JSON.stringify(patch.body)).not.toContain('partner-key-123')
    const nested = await f.api.patch(`/v1/admin/tenants/${tenant.id}`, { settings: { passwordReset: { tokenTtlMinutes: 30 } } }, { token: admin })
    expect(nested.body.settings.passwordReset).toMatchObject({ enabled: true, tokenTtlMinutes: 30 })
    const read = await f.api.get(`/v1/admin/tenants/${tenant.id}`, { token: admin })
    expect(read.body.settings).toEqual(nested.body.settings)
    const secret = await f.api.get(`/v1/admin/tenants/${tenant.id}/api-secret`, { token: admin })
    expect(secret.body).toEqual({ apiKey: tenant.apiKey, apiSecret: tenant.apiSecret })
  })

  test('bad inputs answer 400 and change nothing', async () => {
    const tenant = await f.tenant()
    for (const body of [{ walletMode: 'banana' }, { passwordReset: { tokenTtlMinutes: 'x' } }, { unknownSetting: true }, { passwordReset: { bogus: 1 } }, { name: '' }, { name: 'x'.repeat(101) }]) {
      const res = await f.api.patch(`/v1/admin/tenants/${tenant.id}`, body, { token: admin })
      expect(res.status).toBe(400)
      expect(res.body.message).toBe('Request validation failed')
      expect(res.body.details.length).toBeGreaterThan(0)
    }
    const create = await f.api.post('/v1/admin/tenants', { name: 42 }, { token: admin })
    expect(create.status).toBe(400)
    expect(create.body.details[0]).toMatchObject({ instancePath: '/name', keyword: 'type' })
    const missing = await f.api.post('/v1/admin/tenants', {}, { token: admin })
    expect(missing.body.details[0]).toMatchObject({ keyword: 'required', params: { missingProperty: 'name' } })
    const read = await f.api.get(`/v1/admin/tenants/${tenant.id}`, { token: admin })
    expect(read.body.settings.walletMode).toBe('custodial')
    expect((await f.api.get('/v1/admin/tenants/not-a-uuid', { token: admin })).status).toBe(404)
    expect((await f.api.get(`/v1/admin/tenants/${crypto.randomUUID()}`, { token: admin })).status).toBe(404)
  })

  test('a tenantadmin sees and changes only its own tenant; other ids answer 404', async () => {
    const mine = await f.tenant()
    const other = await f.tenant()
    const ta = await f.tenantAdmin(mine)
    const list = await f.api.get('/v1/admin/tenants', { token: ta.accessToken })
    expect(list.body.data.map((x: Tenant) => x.id)).toEqual([mine.id])
    expect((await f.api.get(`/v1/admin/tenants/${mine.id}`, { token: ta.accessToken })).status).toBe(200)
    for (const [method, path] of [
      ['GET', `/v1/admin/tenants/${other.id}`], ['PATCH', `/v1/admin/tenants/${other.id}`], ['GET', `/v1/admin/tenants/${other.id}/api-secret`],
      ['POST', `/v1/admin/tenants/${other.id}/rotate-secret`], ['GET', `/v1/admin/tenants/${other.id}/activity`],
    ] as const) {
      const res = await f.api.call(method, path, method === 'PATCH' ? { walletMode: 'mpc' } : undefined, { token: ta.accessToken })
      expect(res.status).toBe(404)
    }
    expect((await f.api.patch(`/v1/admin/tenants/${mine.id}`, { status: 'disabled' }, { token: ta.accessToken })).status).toBe(403)
    expect((await f.api.post('/v1/admin/tenants', { name: 'nope' }, { token: ta.accessToken })).status).toBe(403)
  })

  test('plain users and anonymous callers are refused', async () => {
    const tenant = await f.tenant()
    const u = await f.user(tenant)
    expect((await f.api.get('/v1/admin/tenants', { token: u.accessToken })).status).toBe(403)
    const anon = await f.api.get('/v1/admin/tenants')
    expect(anon.status).toBe(401)
    expect(anon.body).toEqual({ statusCode: 401, error: 'UnauthorizedError', message: 'Authentication required' })
  })

  test('every operator action lands in the activity log, never with a secret', async () => {
    const tenant = await f.tenant()
    await f.api.patch(`/v1/admin/tenants/${tenant.id}`, { bankRamp: { production: { apiKey: 'very-secret-partner-key' } } }, { token: admin })
    await f.api.get(`/v1/admin/tenants/${tenant.id}/api-secret`, { token: admin })
    const rotated = await f.api.post(`/v1/admin/tenants/${tenant.id}/rotate-secret`, undefined, { token: admin })
    const log = await f.api.get(`/v1/admin/tenants/${tenant.id}/activity`, { token: admin })
    expect(log.status).toBe(200)
    expect(log.body.data.map((e: { action: string }) => e.action)).toEqual(['tenant.api_secret.rotated', 'tenant.api_secret.read', 'tenant.updated', 'tenant.created'])
    const adminId = (await f.api.post('/v1/auth/admin/login', { username: 'root', password: 'Root-Passw0rd' })).body.user.id
    for (const e of log.body.data) {
      expect(e.actorId).toBe(adminId)
      expect(e.actorRole).toBe('admin')
      expect(e.requestId).toMatch(/^[0-9a-f-]{36}$/)
      expect(e.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/)
    }
    expect(log.body.data[2].details.changed).toEqual(['bankRamp.production.apiKey'])
    const text = JSON.stringify(log.body)
    for (const secret of [tenant.apiSecret, rotated.body.apiSecret, 'very-secret-partner-key']) expect(text).not.toContain(secret)
  })
})
