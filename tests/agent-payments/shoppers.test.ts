/**
 * Agent payments shoppers (routes 25-31), in process: what each route answers to a tenant
 * admin (J) and to a merchant key (M): its own merchant only (another's 404), a missing scope
 * 403, a revoked key 401, the 121st request in a minute 403; bad input 400; another tenant's
 * ids 404; audit entries and events. Mandates naming a shopper, `?shopperId`, and the AP2
 * authorization by the shopper's JWS (a valid one; a tampered one, another key's, another
 * content's, an expired one refused).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { CompactSign, exportJWK, generateKeyPair, SignJWT } from 'jose'
import { and, eq } from 'drizzle-orm'
import { sha256Hex } from '@/lib/crypto'
import { webhookDeliveries } from '@/modules/webhooks/schema'
import { ManualClock } from '@/lib/clock'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'

const BASE = '/v1/agent-payments'
const PAY_TO = { network: 'sepolia', address: '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001' }
const UNKNOWN = '00000000-0000-4000-8000-000000000000'
const DAY = 86_400_000

let t: TestApp
let f: Factory
let clock: ManualClock
let a: Tenant
let b: Tenant
let admin: SignedInUser
let otherAdmin: SignedInUser
let user: SignedInUser
let merchantId: string
let otherMerchantId: string
let foreignMerchantId: string
let agentId: string
let allScopes: string

const as = (token: SignedInUser | string) => ({ token: typeof token === 'string' ? token : token.accessToken })
const ALL = ['shoppers:read', 'shoppers:write', 'mandates:read', 'executions:read']

async function merchantKey(merchant: string, scopes: string[] = ALL) {
  const r = await f.api.post(`${BASE}/merchants/${merchant}/api-keys`, { name: 'shop', scopes }, as(admin))
  expect(r.status).toBe(201)
  return r.body as { id: string; key: string }
}
async function createShopper(body: Record<string, unknown>, token: SignedInUser | string = admin) {
  const r = await f.api.post(`${BASE}/shoppers`, body, as(token))
  expect(r.status).toBe(201)
  return r.body
}

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2026, 10, 25, 10))
  t = await makeApp({ clock })
  f = new Factory(t)
  a = await f.tenant({ bankRamp: { sandbox: { connected: true } } })
  b = await f.tenant()
  admin = await f.tenantAdmin(a)
  otherAdmin = await f.tenantAdmin(b)
  user = await f.user(a)
  // merchants paid on sepolia: their shoppers' events go to the sandbox webhook
  const hook = await f.api.put(`/v1/admin/tenants/${a.id}/webhooks/sandbox`, { url: 'https://hooks.example.com/in', eventTypes: [] }, { token: await f.adminToken() })
  expect(hook.status).toBe(201)
  merchantId = (await f.api.post(`${BASE}/merchants`, { name: 'Rail', payTo: PAY_TO }, as(admin))).body.id
  otherMerchantId = (await f.api.post(`${BASE}/merchants`, { name: 'Air', payTo: PAY_TO }, as(admin))).body.id
  foreignMerchantId = (await f.api.post(`${BASE}/merchants`, { name: 'B', payTo: PAY_TO }, as(otherAdmin))).body.id
  const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, as(user))
  expect(w.status).toBe(201)
  agentId = (await f.api.post(`${BASE}/agents`, { name: 'booker', walletId: w.body.id }, as(admin))).body.id
  // the wallet's owner lets the agent pay from it (docs/agent-payments.md, "The wallet owner's consent")
  expect((await f.api.post(`${BASE}/agents/${agentId}/wallet-consent`, {}, as(user))).status).toBe(200)
  allScopes = (await merchantKey(merchantId)).key
  expect([merchantId, otherMerchantId, foreignMerchantId, agentId].every(Boolean)).toBe(true)
})

afterAll(() => t.close())

describe('shoppers as a tenant admin (J)', () => {
  test('ten creations of one externalRef at once: one 201, nine 409 SHOPPER_EXISTS, never a 500', async () => {
    const all = await Promise.all(Array.from({ length: 10 }, () => f.api.post(`${BASE}/shoppers`, { externalRef: 'racing-ref', merchantId }, as(admin))))
    const statuses = all.map((r) => r.status).sort()
    expect(statuses).toEqual([201, ...Array(9).fill(409)])
    expect(all.filter((r) => r.status === 409).every((r) => r.body.code === 'SHOPPER_EXISTS')).toBe(true)
  })

  test('create, one, list, patch, delete; audit and events', async () => {
    const s = await createShopper({ externalRef: 'cust-1', email: 'ada@example.com', userId: 'u-1', merchantId })
    expect(s).toEqual({
      id: expect.any(String), merchantId, externalRef: 'cust-1', userId: 'u-1', email: 'ada@example.com', publicKeyJwk: null, keyThumbprint: null, keyChangedAt: null,
      createdAt: expect.any(String), updatedAt: expect.any(String),
    })
    expect((await f.api.get(`${BASE}/shoppers/${s.id}`, as(admin))).body).toEqual(s)
    const other = await createShopper({ externalRef: 'cust-1', merchantId: otherMerchantId })
    const list = await f.api.get(`${BASE}/shoppers`, as(admin))
    expect(list.status).toBe(200)
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual(expect.arrayContaining([s.id, other.id]))
    expect((await f.api.get(`${BASE}/shoppers?merchantId=${otherMerchantId}`, as(admin))).body).toEqual({ data: [other], total: 1 })
    const page = await f.api.get(`${BASE}/shoppers?limit=1&offset=1`, as(admin))
    expect(page.body.data).toHaveLength(1)
    expect(page.body.total).toBe(list.body.total)

    clock.advance(1000)
    const patched = await f.api.patch(`${BASE}/shoppers/${s.id}`, { email: null, externalRef: 'cust-1b' }, as(admin))
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ email: null, externalRef: 'cust-1b', userId: 'u-1' })
    expect(patched.body.updatedAt).not.toBe(s.updatedAt)
    const same = await f.api.patch(`${BASE}/shoppers/${s.id}`, { email: null }, as(admin))
    expect(same.body).toEqual(patched.body)

    const del = await f.api.delete(`${BASE}/shoppers/${s.id}`, as(admin))
    expect(del.status).toBe(200)
    expect((await f.api.get(`${BASE}/shoppers/${s.id}`, as(admin))).status).toBe(404)
    expect((await f.api.delete(`${BASE}/shoppers/${s.id}`, as(admin))).status).toBe(404)
    // its externalRef is free again
    await createShopper({ externalRef: 'cust-1b', merchantId })

    const log = await f.api.get(`${BASE}/audit-log?resourceType=shopper&resourceId=${s.id}`, as(admin))
    expect(log.body.data.map((e: { action: string; actorType: string }) => [e.action, e.actorType])).toEqual([
      ['shopper.deleted', 'user'], ['shopper.updated', 'user'], ['shopper.created', 'user'],
    ])
    const deliveries = await t.deps.database.db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.tenantId, a.id), eq(webhookDeliveries.environment, 'sandbox')))
    const ours = deliveries.filter((d) => JSON.parse(d.body as string).data?.id === s.id).map((d) => d.type)
    expect(ours.sort()).toEqual(['agent_payments.shopper.created', 'agent_payments.shopper.deleted', 'agent_payments.shopper.updated'])
  })

  test('bad input answers 400; duplicates 409; unknown merchant 404', async () => {
    for (const body of [
      {}, { externalRef: '', merchantId }, { externalRef: 'x', merchantId: 'nope' }, { externalRef: 'x', merchantId, email: 'not-an-email' },
      { externalRef: 'x', merchantId, publicKeyJwk: 'key' }, { externalRef: 'x'.repeat(201), merchantId },
    ]) expect(`${JSON.stringify(body)} ${(await f.api.post(`${BASE}/shoppers`, body, as(admin))).status}`).toBe(`${JSON.stringify(body)} 400`)
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true })
    const priv = await f.api.post(`${BASE}/shoppers`, { externalRef: 'x', merchantId, publicKeyJwk: await exportJWK(privateKey) }, as(admin))
    expect({ status: priv.status, code: priv.body.code }).toEqual({ status: 400, code: 'SHOPPER_JWK_PRIVATE' })
    const rsa = await f.api.post(`${BASE}/shoppers`, { externalRef: 'x', merchantId, publicKeyJwk: { kty: 'RSA', n: 'AQAB', e: 'AQAB' } }, as(admin))
    expect({ status: rsa.status, code: rsa.body.code }).toEqual({ status: 400, code: 'SHOPPER_JWK_INVALID' })
    const badPoint = await f.api.post(`${BASE}/shoppers`, { externalRef: 'x', merchantId, publicKeyJwk: { kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' } }, as(admin))
    expect({ status: badPoint.status, code: badPoint.body.code }).toEqual({ status: 400, code: 'SHOPPER_JWK_INVALID' })
    expect((await f.api.post(`${BASE}/shoppers`, { externalRef: 'x', merchantId, publicKeyJwk: await exportJWK(publicKey) }, as(admin))).status).toBe(201)
    const dup = await f.api.post(`${BASE}/shoppers`, { externalRef: 'x', merchantId }, as(admin))
    expect({ status: dup.status, code: dup.body.code }).toEqual({ status: 409, code: 'SHOPPER_EXISTS' })
    expect((await f.api.post(`${BASE}/shoppers`, { externalRef: 'y', merchantId: UNKNOWN }, as(admin))).status).toBe(404)
    expect((await f.api.post(`${BASE}/shoppers`, { externalRef: 'y', merchantId: foreignMerchantId }, as(admin))).status).toBe(404)
    for (const q of ['limit=0', 'limit=201', 'offset=-1', 'merchantId=nope']) expect((await f.api.get(`${BASE}/shoppers?${q}`, as(admin))).status).toBe(400)
    expect((await f.api.get(`${BASE}/shoppers/nope`, as(admin))).status).toBe(400)
    expect((await f.api.get(`${BASE}/shoppers/${UNKNOWN}`, as(admin))).status).toBe(404)
    const s = await createShopper({ externalRef: 'z', merchantId })
    expect((await f.api.patch(`${BASE}/shoppers/${s.id}`, {}, as(admin))).status).toBe(400)
    expect((await f.api.patch(`${BASE}/shoppers/${s.id}`, { merchantId: otherMerchantId }, as(admin))).status).toBe(400)
    const taken = await f.api.patch(`${BASE}/shoppers/${s.id}`, { externalRef: 'x' }, as(admin))
    expect({ status: taken.status, code: taken.body.code }).toEqual({ status: 409, code: 'SHOPPER_EXISTS' })
  })

  test('another tenant\'s shopper answers 404 everywhere; a plain user 403', async () => {
    const s = await createShopper({ externalRef: 'ten', merchantId })
    for (const path of [`/shoppers/${s.id}`, `/shoppers/${s.id}/mandates`, `/shoppers/${s.id}/executions`]) {
      expect((await f.api.get(`${BASE}${path}`, as(otherAdmin))).status).toBe(404)
    }
    expect((await f.api.patch(`${BASE}/shoppers/${s.id}`, { email: 'x@example.com' }, as(otherAdmin))).status).toBe(404)
    expect((await f.api.delete(`${BASE}/shoppers/${s.id}`, as(otherAdmin))).status).toBe(404)
    expect((await f.api.get(`${BASE}/shoppers`, as(otherAdmin))).body).toEqual({ data: [], total: 0 })
    expect((await f.api.get(`${BASE}/shoppers`, as(user))).status).toBe(403)
    expect((await f.api.get(`${BASE}/shoppers`)).status).toBe(401)
  })
})

describe('shoppers with a merchant key (M)', () => {
  test('a key sees and changes only its merchant\'s shoppers; audit names the merchant', async () => {
    const mine = await createShopper({ externalRef: 'm-1', merchantId }, allScopes)
    expect(mine.merchantId).toBe(merchantId)
    const theirs = await createShopper({ externalRef: 'm-2', merchantId: otherMerchantId })
    // creating for another merchant: 404
    expect((await f.api.post(`${BASE}/shoppers`, { externalRef: 'm-3', merchantId: otherMerchantId }, as(allScopes))).status).toBe(404)
    expect((await f.api.get(`${BASE}/shoppers/${mine.id}`, as(allScopes))).body).toEqual(mine)
    for (const path of [`/shoppers/${theirs.id}`, `/shoppers/${theirs.id}/mandates`, `/shoppers/${theirs.id}/executions`]) {
      expect((await f.api.get(`${BASE}${path}`, as(allScopes))).status).toBe(404)
    }
    expect((await f.api.patch(`${BASE}/shoppers/${theirs.id}`, { email: 'x@example.com' }, as(allScopes))).status).toBe(404)
    expect((await f.api.delete(`${BASE}/shoppers/${theirs.id}`, as(allScopes))).status).toBe(404)
    const list = await f.api.get(`${BASE}/shoppers`, as(allScopes))
    expect(list.body.data.every((x: { merchantId: string }) => x.merchantId === merchantId)).toBe(true)
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(mine.id)
    expect((await f.api.get(`${BASE}/shoppers?merchantId=${otherMerchantId}`, as(allScopes))).body).toEqual({ data: [], total: 0 })
    const patched = await f.api.patch(`${BASE}/shoppers/${mine.id}`, { userId: 'u-9' }, as(allScopes))
    expect(patched.body.userId).toBe('u-9')
    expect((await f.api.get(`${BASE}/shoppers/${mine.id}/mandates`, as(allScopes))).body).toEqual({ data: [], total: 0 })
    expect((await f.api.get(`${BASE}/shoppers/${mine.id}/executions`, as(allScopes))).body).toEqual({ data: [], total: 0 })
    expect((await f.api.delete(`${BASE}/shoppers/${mine.id}`, as(allScopes))).status).toBe(200)
    const log = await f.api.get(`${BASE}/audit-log?resourceType=shopper&resourceId=${mine.id}`, as(admin))
    expect(log.body.data.map((e: { actorType: string; actorId: string }) => [e.actorType, e.actorId])).toEqual([
      ['merchant', merchantId], ['merchant', merchantId], ['merchant', merchantId],
    ])
    // a merchant key is still refused on the other routes, and ignores a tenantId
    expect((await f.api.get(`${BASE}/mandates`, as(allScopes))).status).toBe(403)
    expect((await f.api.get(`${BASE}/shoppers?tenantId=${b.id}`, as(allScopes))).body.data.every((x: { merchantId: string }) => x.merchantId === merchantId)).toBe(true)
  })

  test('each route needs its scope: 403 without it', async () => {
    const s = await createShopper({ externalRef: 'scoped', merchantId })
    const read = (await merchantKey(merchantId, ['shoppers:read'])).key
    const write = (await merchantKey(merchantId, ['shoppers:write'])).key
    const none = (await merchantKey(merchantId, ['mandates:read'])).key
    const execs = (await merchantKey(merchantId, ['executions:read'])).key
    const calls: Array<[string, () => Promise<{ status: number; body: { message?: string } }>]> = [
      ['POST', () => f.api.post(`${BASE}/shoppers`, { externalRef: 'n', merchantId }, as(read))],
      ['PATCH', () => f.api.patch(`${BASE}/shoppers/${s.id}`, { userId: 'n' }, as(read))],
      ['DELETE', () => f.api.delete(`${BASE}/shoppers/${s.id}`, as(read))],
      ['GET list', () => f.api.get(`${BASE}/shoppers`, as(write))],
      ['GET one', () => f.api.get(`${BASE}/shoppers/${s.id}`, as(none))],
      ['GET mandates', () => f.api.get(`${BASE}/shoppers/${s.id}/mandates`, as(read))],
      ['GET executions', () => f.api.get(`${BASE}/shoppers/${s.id}/executions`, as(read))],
    ]
    for (const [name, call] of calls) expect(`${name} ${(await call()).status}`).toBe(`${name} 403`)
    expect((await f.api.get(`${BASE}/shoppers/${s.id}`, as(read))).status).toBe(200)
    expect((await f.api.get(`${BASE}/shoppers/${s.id}/mandates`, as(none))).status).toBe(200)
    expect((await f.api.get(`${BASE}/shoppers/${s.id}/executions`, as(execs))).status).toBe(200)
    expect((await f.api.get(`${BASE}/shoppers/${s.id}/executions`, as(none))).status).toBe(403)
  })

  test('a revoked key 401, a key of a disabled merchant 401, an unknown key 401', async () => {
    const k = await merchantKey(merchantId, ['shoppers:read'])
    expect((await f.api.get(`${BASE}/shoppers`, as(k.key))).status).toBe(200)
    await f.api.delete(`${BASE}/merchants/${merchantId}/api-keys/${k.id}`, as(admin))
    expect((await f.api.get(`${BASE}/shoppers`, as(k.key))).status).toBe(401)
    expect((await f.api.get(`${BASE}/shoppers`, as(`sk_merch_${'x'.repeat(40)}`))).status).toBe(401)
    const m = (await f.api.post(`${BASE}/merchants`, { name: 'gone', payTo: PAY_TO }, as(admin))).body.id
    const k2 = await merchantKey(m, ['shoppers:read'])
    await f.api.delete(`${BASE}/merchants/${m}`, as(admin))
    expect((await f.api.get(`${BASE}/shoppers`, as(k2.key))).status).toBe(401)
  })

  test('120 requests a minute per key; the 121st answers 403 Rate limit exceeded', async () => {
    const k = await merchantKey(merchantId, ['shoppers:read'])
    clock.advance(60_000)
    for (let i = 0; i < 120; i++) expect((await f.api.get(`${BASE}/shoppers?limit=1`, as(k.key))).status).toBe(200)
    const over = await f.api.get(`${BASE}/shoppers?limit=1`, as(k.key))
    expect(over.status).toBe(403)
    expect(over.body.message).toBe('Rate limit exceeded')
    expect((await f.api.get(`${BASE}/shoppers?limit=1`, as(allScopes))).status).toBe(200)
    clock.advance(60_000)
    expect((await f.api.get(`${BASE}/shoppers?limit=1`, as(k.key))).status).toBe(200)
  })
})

describe('mandates of a shopper, and its AP2 authorization', () => {
  const mandateBody = (shopperId: string, over: Record<string, unknown> = {}) => ({
    type: 'intent', agentId, shopperId, constraints: { maxAmount: '50.00', currency: 'USDC' },
    expiresAt: new Date(clock.now() + 7 * DAY).toISOString(), humanPresent: false, ...over,
  })
  async function withKey(alg: 'ES256' | 'EdDSA' = 'ES256') {
    const pair = await generateKeyPair(alg, { extractable: true })
    const s = await createShopper({ externalRef: `k-${crypto.randomUUID()}`, merchantId, publicKeyJwk: await exportJWK(pair.publicKey) })
    return { shopper: s, privateKey: pair.privateKey, alg }
  }
  async function mandateFor(shopperId: string) {
    const r = await f.api.post(`${BASE}/mandates`, mandateBody(shopperId), as(admin))
    expect(r.status).toBe(201)
    return r.body
  }
  /** the hash the shopper signs: GET the mandate, rebuild its canonical content */
  async function contentHashOf(mandateId: string) {
    const { mandateContent } = await import('@/modules/agent-payments/mandates/mandates')
    const { findMandate } = await import('@/modules/agent-payments/repo')
    return sha256Hex(mandateContent((await findMandate(t.deps.database.db, a.id, mandateId))!))
  }
  const sign = (claims: Record<string, unknown>, key: CryptoKey, alg: string, exp?: number) => {
    const jwt = new SignJWT(claims).setProtectedHeader({ alg }).setIssuedAt(Math.floor(clock.now() / 1000))
    if (exp !== undefined) jwt.setExpirationTime(exp)
    return jwt.sign(key)
  }
  const authorize = (mandateId: string, userAuthorization: string) => f.api.post(`${BASE}/mandates/${mandateId}/authorize`, { userAuthorization }, as(admin))

  test('a mandate names a shopper; ?shopperId and route 30 list it; unknown shopper 404', async () => {
    const { shopper } = await withKey()
    const m = await mandateFor(shopper.id)
    expect(m.shopperId).toBe(shopper.id)
    expect((await f.api.get(`${BASE}/mandates?shopperId=${shopper.id}`, as(admin))).body).toEqual({ data: [m], total: 1 })
    expect((await f.api.get(`${BASE}/shoppers/${shopper.id}/mandates`, as(admin))).body).toEqual({ data: [m], total: 1 })
    expect((await f.api.get(`${BASE}/shoppers/${shopper.id}/mandates`, as(allScopes))).body).toEqual({ data: [m], total: 1 })
    const unknown = await f.api.post(`${BASE}/mandates`, mandateBody(UNKNOWN), as(admin))
    expect({ status: unknown.status, code: unknown.body.code }).toEqual({ status: 404, code: 'SHOPPER_NOT_FOUND' })
    const foreign = (await f.api.post(`${BASE}/shoppers`, { externalRef: 'f', merchantId: foreignMerchantId }, as(otherAdmin))).body.id
    expect((await f.api.post(`${BASE}/mandates`, mandateBody(foreign), as(admin))).status).toBe(404)
    expect((await f.api.get(`${BASE}/mandates?shopperId=nope`, as(admin))).status).toBe(400)
  })

  test('a valid shopper JWS (ES256, EdDSA) authorizes it and its hash is stored; authorizedBy null', async () => {
    for (const alg of ['ES256', 'EdDSA'] as const) {
      const { shopper, privateKey } = await withKey(alg)
      const m = await mandateFor(shopper.id)
      const hash = await contentHashOf(m.id)
      const r = await authorize(m.id, await sign({ contentHash: hash }, privateKey, alg, Math.floor(clock.now() / 1000) + 600))
      expect(r.status).toBe(200)
      expect(r.body).toMatchObject({ status: 'active', authorization: { authorizedBy: null, contentHash: hash } })
      const log = await f.api.get(`${BASE}/audit-log?resourceType=mandate&resourceId=${m.id}`, as(admin))
      expect(log.body.data[0].action).toBe('mandate.authorized')
    }
  })

  test('refused: tampered payload, another key, another content, expired, malformed, no key, another algorithm', async () => {
    const { shopper, privateKey } = await withKey()
    const m = await mandateFor(shopper.id)
    const hash = await contentHashOf(m.id)
    const good = await sign({ contentHash: hash }, privateKey, 'ES256')
    const code = async (jws: string) => {
      const r = await authorize(m.id, jws)
      return `${r.status} ${r.body.code}`
    }
    const [h, , s] = good.split('.')
    const tampered = `${h}.${Buffer.from(JSON.stringify({ contentHash: '0'.repeat(64) })).toString('base64url')}.${s}`
    expect(await code(tampered)).toBe('400 SHOPPER_JWS_INVALID')
    const stranger = await generateKeyPair('ES256')
    expect(await code(await sign({ contentHash: hash }, stranger.privateKey, 'ES256'))).toBe('400 SHOPPER_JWS_INVALID')
    expect(await code(await sign({ contentHash: sha256Hex('other content') }, privateKey, 'ES256'))).toBe('400 SHOPPER_JWS_CONTENT_MISMATCH')
    expect(await code(await sign({ contentHash: hash }, privateKey, 'ES256', Math.floor(clock.now() / 1000) - 1))).toBe('400 SHOPPER_JWS_EXPIRED')
    expect(await code('not.a.jws')).toBe('400 SHOPPER_JWS_INVALID')
    // a bare JWS over the content (not a JWT with contentHash) is refused too
    const bare = await new CompactSign(new TextEncoder().encode(hash)).setProtectedHeader({ alg: 'ES256' }).sign(privateKey)
    expect(await code(bare)).toBe('400 SHOPPER_JWS_INVALID')
    // an HS256 token whose secret is the public key's x: refused by the algorithm list
    const hs = await new SignJWT({ contentHash: hash }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('x'.repeat(32)))
    expect(await code(hs)).toBe('400 SHOPPER_JWS_INVALID')
    expect((await f.api.get(`${BASE}/mandates/${m.id}`, as(admin))).body.status).toBe('pending_authorization')

    // a shopper without a key, and a removed shopper: SHOPPER_KEY_MISSING
    const keyless = await createShopper({ externalRef: `nokey-${crypto.randomUUID()}`, merchantId })
    const m2 = await mandateFor(keyless.id)
    const r2 = await authorize(m2.id, good)
    expect(`${r2.status} ${r2.body.code}`).toBe('400 SHOPPER_KEY_MISSING')
    await f.api.delete(`${BASE}/shoppers/${shopper.id}`, as(admin))
    expect(await code(good)).toBe('400 SHOPPER_KEY_MISSING')
    // a tenant admin may still approve it without a JWS
    const r3 = await f.api.post(`${BASE}/mandates/${m.id}/authorize`, {}, as(admin))
    expect(r3.body).toMatchObject({ status: 'active', authorization: { authorizedBy: admin.id, contentHash: hash } })
  })

  test('route 31: the executions under the shopper\'s mandates', async () => {
    const { shopper } = await withKey()
    const m = await mandateFor(shopper.id)
    const sepoliaMerchant = merchantId
    // a pending mandate refuses the payment: a rejected execution under it
    const ex = await f.api.post(`${BASE}/executions`, { agentId, merchantId: sepoliaMerchant, mandateId: m.id, amount: '2', currency: 'USDC', rail: 'onchain' }, as(admin))
    expect([200, 201]).toContain(ex.status)
    const other = await f.api.post(`${BASE}/executions`, { agentId, merchantId: sepoliaMerchant, amount: '2', currency: 'USDC', rail: 'onchain' }, as(admin))
    expect([200, 201]).toContain(other.status)
    const listed = await f.api.get(`${BASE}/shoppers/${shopper.id}/executions`, as(admin))
    expect(listed.body.total).toBe(1)
    expect(listed.body.data[0]).toMatchObject({ id: ex.body.id, mandateId: m.id })
    expect((await f.api.get(`${BASE}/shoppers/${shopper.id}/executions`, as(allScopes))).body.total).toBe(1)
    expect((await f.api.get(`${BASE}/executions?shopperId=${shopper.id}`, as(admin))).body.total).toBe(1)
  })
})
