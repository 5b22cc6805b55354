/**
 * Stored development routes (`slipway webhooks listen`) at unit level: whose deliveries
 * they serve (the storing tenant's sandbox only, never under NODE_ENV=production), which
 * addresses they make acceptable, and the listener's signature check against the
 * standardwebhooks library a tenant uses.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type Tenant } from '@tests/helpers/factories'
import type { Deps } from '@/deps'
import { findTenant } from '@/modules/tenants/service'
import { listenHost, listenUrl, startListening, stopListening } from '@/modules/webhooks/dev-listen'
import * as repo from '@/modules/webhooks/repo'
import { saveTenantWebhook, type CommandCtx } from '@/modules/webhooks/service'
import { deliveryHeaders, newWebhookSecret, verifyDelivery } from '@/modules/webhooks/signature'
import { devRouteOrigin } from '@/modules/webhooks/transport'

let t: TestApp
let f: Factory
let tenant: Tenant
let other: Tenant
const ORIGIN = 'http://127.0.0.1:9'

const withNodeEnv = (deps: Deps, nodeEnv: string): Deps => ({ ...deps, config: { ...deps.config, nodeEnv } })
const ctxOf = (deps: Deps): CommandCtx => ({ deps, actor: null, tenant: null, requestId: 'test' })

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  tenant = await f.tenant({ bankRamp: { sandbox: { connected: true }, production: { connected: true } } })
  other = await f.tenant({ bankRamp: { sandbox: { connected: true } } })
  await t.deps.database.write((tx) => repo.upsertDevRoute(tx, tenant.id, { host: listenHost(tenant.id), origin: ORIGIN, restoreUrl: null, createdAt: Date.now() }))
})
afterAll(() => t.close())

describe('a stored development route', () => {
  test('serves the sandbox deliveries of the tenant that stored it', async () => {
    expect(await devRouteOrigin(t.deps, listenHost(tenant.id), { tenantId: tenant.id, environment: 'sandbox' })).toBe(ORIGIN)
  })

  test('never another tenant\'s, nor production deliveries, nor a delivery without an owner', async () => {
    expect(await devRouteOrigin(t.deps, listenHost(tenant.id), { tenantId: other.id, environment: 'sandbox' })).toBeUndefined()
    expect(await devRouteOrigin(t.deps, listenHost(tenant.id), { tenantId: tenant.id, environment: 'production' })).toBeUndefined()
    expect(await devRouteOrigin(t.deps, listenHost(tenant.id))).toBeUndefined()
  })

  test('is ignored under NODE_ENV=production, for deliveries and for addresses', async () => {
    const prod = withNodeEnv(t.deps, 'production')
    expect(await devRouteOrigin(prod, listenHost(tenant.id), { tenantId: tenant.id, environment: 'sandbox' })).toBeUndefined()
    const row = (await findTenant(t.deps.database.db, tenant.id))!
    await expect(saveTenantWebhook(ctxOf(prod), row, 'sandbox', { url: listenUrl(tenant.id) })).rejects.toMatchObject({ details: { reason: 'reserved_name' } })
    await expect(startListening(ctxOf(prod), tenant.id, ORIGIN)).rejects.toThrow('NODE_ENV=production')
  })

  test('makes its host acceptable for that tenant\'s sandbox webhook only', async () => {
    const row = (await findTenant(t.deps.database.db, tenant.id))!
    const otherRow = (await findTenant(t.deps.database.db, other.id))!
    await expect(saveTenantWebhook(ctxOf(t.deps), otherRow, 'sandbox', { url: listenUrl(tenant.id) })).rejects.toMatchObject({ details: { reason: 'reserved_name' } })
    await expect(saveTenantWebhook(ctxOf(t.deps), row, 'production', { url: listenUrl(tenant.id) })).rejects.toMatchObject({ details: { reason: 'reserved_name' } })
    const saved = await saveTenantWebhook(ctxOf(t.deps), row, 'sandbox', { url: listenUrl(tenant.id) })
    expect(saved.record.url).toBe(listenUrl(tenant.id))
  })

  test('a listener leaves a webhook changed meanwhile as it is, and deletes only its own route', async () => {
    const session = await startListening(ctxOf(t.deps), other.id, 'http://127.0.0.1:10')
    expect(session.created).toBe(true)
    const row = (await findTenant(t.deps.database.db, other.id))!
    await saveTenantWebhook(ctxOf(t.deps), row, 'sandbox', { url: 'https://hooks.example.com/changed' })
    expect(await stopListening(ctxOf(t.deps), session)).toEqual({ webhook: 'left', url: 'https://hooks.example.com/changed' })
    expect(await repo.findDevRoute(t.deps.database.db, other.id, listenHost(other.id))).toBeUndefined()
    expect(await repo.findDevRoute(t.deps.database.db, tenant.id, listenHost(tenant.id))).toBeDefined()
  })
})

describe('the listener\'s signature check', () => {
  const secret = newWebhookSecret()
  const body = JSON.stringify({ id: 'evt_1', type: 'ramp.kyc.updated', data: { s: 'é✓' } })
  const now = Math.floor(Date.now() / 1000)

  test('accepts what Slipway sends and what the standardwebhooks library signs', () => {
    expect(verifyDelivery(secret, new Headers(deliveryHeaders(secret, 'evt_1', 'ramp.kyc.updated', now, body)), body, now)).toEqual({ ok: true })
    const headers = new Headers({ 'webhook-id': 'evt_1', 'webhook-timestamp': String(now), 'webhook-signature': `v1,bm90IGl0 ${new Webhook(secret).sign('evt_1', new Date(now * 1000), body)}` })
    expect(verifyDelivery(secret, headers, body, now)).toEqual({ ok: true })
  })

  test('refuses what the library refuses: another secret, another body, an old timestamp, missing headers', () => {
    const headers = deliveryHeaders(secret, 'evt_1', 'ramp.kyc.updated', now, body)
    const cases: Array<[string, Record<string, string>, string, number]> = [
      [newWebhookSecret(), headers, body, now],
      [secret, headers, `${body} `, now],
      [secret, headers, body, now + 301],
      [secret, { ...headers, 'webhook-signature': '' }, body, now],
    ]
    for (const [key, h, b, at] of cases) {
      expect(verifyDelivery(key, new Headers(h), b, at).ok).toBe(false)
      if (at === now) expect(() => new Webhook(key).verify(b, h)).toThrow()
    }
  })
})
