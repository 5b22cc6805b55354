/**
 * Who may change a shopper's key (issue 37, item 3), in process: a merchant key cannot replace
 * it and then pass its own JWS off as the shopper's consent; a tenant admin's change is audited
 * as `shopper.key_changed`; the shopper changes it with a JWS by its current key (POST
 * /shoppers/{id}/key, relayed by the merchant); a JWS never authorizes a mandate created before
 * the key changed; an authorization names, in the mandate and its audit entry, the key that signed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose'
import { sha256Hex } from '@/lib/crypto'
import { ManualClock } from '@/lib/clock'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'

const BASE = '/v1/agent-payments'
const PAY_TO = { network: 'sepolia', address: '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001' }
const DAY = 86_400_000

let t: TestApp
let f: Factory
let clock: ManualClock
let a: Tenant
let admin: SignedInUser
let otherAdmin: SignedInUser
let merchantId: string
let agentId: string
let merchantKey: string

const as = (token: SignedInUser | string) => ({ token: typeof token === 'string' ? token : token.accessToken })

interface Pair { privateKey: CryptoKey; jwk: JWK; thumbprint: string }
async function pair(alg: 'ES256' | 'EdDSA' = 'ES256'): Promise<Pair> {
  const p = await generateKeyPair(alg, { extractable: true })
  const jwk = await exportJWK(p.publicKey)
  return { privateKey: p.privateKey, jwk, thumbprint: await calculateJwkThumbprint(jwk, 'sha256') }
}
const algOf = (k: Pair) => (k.jwk.kty === 'OKP' ? 'EdDSA' : 'ES256')
const sign = (claims: Record<string, unknown>, k: Pair) =>
  new SignJWT(claims).setProtectedHeader({ alg: algOf(k) }).setIssuedAt(Math.floor(clock.now() / 1000)).sign(k.privateKey)
/** A key change: it must expire, at most 15 minutes ahead (10 here unless told) */
const signKeyChange = (claims: Record<string, unknown>, k: Pair, expiresInS = 600) =>
  new SignJWT(claims).setProtectedHeader({ alg: algOf(k) }).setIssuedAt(Math.floor(clock.now() / 1000))
    .setExpirationTime(Math.floor(clock.now() / 1000) + expiresInS).sign(k.privateKey)

async function shopperWith(key: Pair | null, token: SignedInUser | string = merchantKey) {
  const r = await f.api.post(`${BASE}/shoppers`, { externalRef: `s-${crypto.randomUUID()}`, merchantId, ...(key ? { publicKeyJwk: key.jwk } : {}) }, as(token))
  expect(r.status).toBe(201)
  return r.body as { id: string; keyThumbprint: string | null }
}
async function mandateFor(shopperId: string) {
  const r = await f.api.post(`${BASE}/mandates`, {
    type: 'intent', agentId, shopperId, constraints: { maxAmount: '50.00', currency: 'USDC' }, expiresAt: new Date(clock.now() + 7 * DAY).toISOString(), humanPresent: false,
  }, as(admin))
  expect(r.status).toBe(201)
  return r.body as { id: string }
}
async function contentHashOf(mandateId: string) {
  const { mandateContent } = await import('@/modules/agent-payments/mandates/mandates')
  const { findMandate } = await import('@/modules/agent-payments/repo')
  return sha256Hex(mandateContent((await findMandate(t.deps.database.db, a.id, mandateId))!))
}
const authorizeWith = async (mandateId: string, k: Pair) =>
  f.api.post(`${BASE}/mandates/${mandateId}/authorize`, { userAuthorization: await sign({ contentHash: await contentHashOf(mandateId) }, k) }, as(admin))
const changeKey = (shopperId: string, body: Record<string, unknown>, token: SignedInUser | string = merchantKey) =>
  f.api.post(`${BASE}/shoppers/${shopperId}/key`, body, as(token))
const outcome = (r: { status: number; body: { code?: string } }) => `${r.status} ${r.body.code ?? ''}`.trim()

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2026, 10, 25, 10))
  t = await makeApp({ clock })
  f = new Factory(t)
  a = await f.tenant()
  const b = await f.tenant()
  admin = await f.tenantAdmin(a)
  otherAdmin = await f.tenantAdmin(b)
  const user = await f.user(a)
  merchantId = (await f.api.post(`${BASE}/merchants`, { name: 'Rail', payTo: PAY_TO }, as(admin))).body.id
  const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, as(user))
  agentId = (await f.api.post(`${BASE}/agents`, { name: 'booker', walletId: w.body.id }, as(admin))).body.id
  // the attacker's credential: a merchant key with only shoppers:write
  const k = await f.api.post(`${BASE}/merchants/${merchantId}/api-keys`, { name: 'shop', scopes: ['shoppers:write'] }, as(admin))
  expect(k.status).toBe(201)
  merchantKey = k.body.key
})

afterAll(() => t.close())

describe('a merchant key cannot forge a shopper\'s consent', () => {
  test('replacing the key by PATCH answers 403 SHOPPER_KEY_CHANGE_FORBIDDEN; a JWS by the merchant\'s key then authorizes nothing', async () => {
    const shopperKey = await pair()
    const forger = await pair()
    const s = await shopperWith(shopperKey)
    expect(s.keyThumbprint).toBe(shopperKey.thumbprint)
    const m = await mandateFor(s.id)
    const patch = await f.api.patch(`${BASE}/shoppers/${s.id}`, { publicKeyJwk: forger.jwk }, as(merchantKey))
    expect(outcome(patch)).toBe('403 SHOPPER_KEY_CHANGE_FORBIDDEN')
    // clearing it is a key change as well
    expect(outcome(await f.api.patch(`${BASE}/shoppers/${s.id}`, { publicKeyJwk: null }, as(merchantKey)))).toBe('403 SHOPPER_KEY_CHANGE_FORBIDDEN')
    const after = await f.api.get(`${BASE}/shoppers/${s.id}`, as(admin))
    expect(after.body).toMatchObject({ publicKeyJwk: shopperKey.jwk, keyThumbprint: shopperKey.thumbprint, keyChangedAt: null })
    expect(outcome(await authorizeWith(m.id, forger))).toBe('400 SHOPPER_JWS_INVALID')
    expect((await f.api.get(`${BASE}/mandates/${m.id}`, as(admin))).body.status).toBe('pending_authorization')
    // the same key sent back, with another change, is no key change
    const same = await f.api.patch(`${BASE}/shoppers/${s.id}`, { publicKeyJwk: shopperKey.jwk, email: 'ada@example.com' }, as(merchantKey))
    expect(same.status).toBe(200)
    expect(same.body).toMatchObject({ email: 'ada@example.com', keyThumbprint: shopperKey.thumbprint, keyChangedAt: null })
  })

  test('a shopper created without a key: the merchant key cannot set one later', async () => {
    const forger = await pair()
    const s = await shopperWith(null)
    expect(outcome(await f.api.patch(`${BASE}/shoppers/${s.id}`, { publicKeyJwk: forger.jwk }, as(merchantKey)))).toBe('403 SHOPPER_KEY_CHANGE_FORBIDDEN')
    const m = await mandateFor(s.id)
    expect(outcome(await authorizeWith(m.id, forger))).toBe('400 SHOPPER_KEY_MISSING')
    // nor through the shopper's own route: there is no current key to sign with
    expect(outcome(await changeKey(s.id, { publicKeyJwk: forger.jwk, authorization: await signKeyChange({ shopperId: s.id, newKeyThumbprint: forger.thumbprint }, forger) }))).toBe('409 SHOPPER_KEY_MISSING')
  })
})

describe('a tenant admin changes the key, audited', () => {
  test('PATCH by the admin: 200, keyChangedAt set, audited as shopper.key_changed with both thumbprints', async () => {
    const k1 = await pair()
    const k2 = await pair('EdDSA')
    const s = await shopperWith(k1, admin)
    clock.advance(1000)
    const r = await f.api.patch(`${BASE}/shoppers/${s.id}`, { publicKeyJwk: k2.jwk }, as(admin))
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ keyThumbprint: k2.thumbprint, keyChangedAt: new Date(clock.now()).toISOString() })
    const log = await f.api.get(`${BASE}/audit-log?resourceType=shopper&resourceId=${s.id}`, as(admin))
    const entry = log.body.data[0]
    expect(entry).toMatchObject({ action: 'shopper.key_changed', actorType: 'user', actorId: admin.id })
    expect(entry.before.keyThumbprint).toBe(k1.thumbprint)
    expect(entry.after.keyThumbprint).toBe(k2.thumbprint)
  })
})

describe('the shopper changes its key with a JWS by its current key', () => {
  test('relayed by the merchant key: 200; the new key authorizes later mandates, the old one no longer', async () => {
    const k1 = await pair()
    const k2 = await pair()
    const s = await shopperWith(k1)
    clock.advance(1000)
    const proof = await signKeyChange({ shopperId: s.id, newKeyThumbprint: k2.thumbprint }, k1)
    const r = await changeKey(s.id, { publicKeyJwk: k2.jwk, authorization: proof })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ keyThumbprint: k2.thumbprint, keyChangedAt: new Date(clock.now()).toISOString() })
    const log = await f.api.get(`${BASE}/audit-log?resourceType=shopper&resourceId=${s.id}`, as(admin))
    expect(log.body.data[0]).toMatchObject({ action: 'shopper.key_changed', actorType: 'merchant', actorId: merchantId })
    // the same proof again: signed by a key that is no longer the shopper's
    expect(outcome(await changeKey(s.id, { publicKeyJwk: k2.jwk, authorization: proof }))).toBe('400 SHOPPER_JWS_INVALID')
    clock.advance(1000)
    const m = await mandateFor(s.id)
    expect(outcome(await authorizeWith(m.id, k1))).toBe('400 SHOPPER_JWS_INVALID')
    const ok = await authorizeWith(m.id, k2)
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ status: 'active', authorization: { authorizedBy: null, keyThumbprint: k2.thumbprint } })
  })

  test('refused: signed by another key, naming another key or shopper, expired, bad input; another tenant 404', async () => {
    const k1 = await pair()
    const k2 = await pair()
    const stranger = await pair()
    const s = await shopperWith(k1)
    const other = await shopperWith(await pair())
    const body = async (claims: Record<string, unknown>, by: Pair) => ({ publicKeyJwk: k2.jwk, authorization: await signKeyChange(claims, by) })
    expect(outcome(await changeKey(s.id, await body({ shopperId: s.id, newKeyThumbprint: k2.thumbprint }, stranger)))).toBe('400 SHOPPER_JWS_INVALID')
    expect(outcome(await changeKey(s.id, await body({ shopperId: s.id, newKeyThumbprint: stranger.thumbprint }, k1)))).toBe('400 SHOPPER_JWS_CONTENT_MISMATCH')
    expect(outcome(await changeKey(s.id, await body({ shopperId: other.id, newKeyThumbprint: k2.thumbprint }, k1)))).toBe('400 SHOPPER_JWS_CONTENT_MISMATCH')
    // a mandate's authorization is not a key change
    expect(outcome(await changeKey(s.id, await body({ contentHash: '0'.repeat(64) }, k1)))).toBe('400 SHOPPER_JWS_CONTENT_MISMATCH')
    const expired = await new SignJWT({ shopperId: s.id, newKeyThumbprint: k2.thumbprint }).setProtectedHeader({ alg: 'ES256' }).setExpirationTime(Math.floor(clock.now() / 1000) - 1).sign(k1.privateKey)
    expect(outcome(await changeKey(s.id, { publicKeyJwk: k2.jwk, authorization: expired }))).toBe('400 SHOPPER_JWS_EXPIRED')
    // a key change that never expires, or only after more than 15 minutes
    const forever = { publicKeyJwk: k2.jwk, authorization: await sign({ shopperId: s.id, newKeyThumbprint: k2.thumbprint }, k1) }
    expect(outcome(await changeKey(s.id, forever))).toBe('400 SHOPPER_JWS_INVALID')
    const tooLong = { publicKeyJwk: k2.jwk, authorization: await signKeyChange({ shopperId: s.id, newKeyThumbprint: k2.thumbprint }, k1, 15 * 60 + 1) }
    expect(outcome(await changeKey(s.id, tooLong))).toBe('400 SHOPPER_JWS_INVALID')
    expect((await changeKey(s.id, { publicKeyJwk: k2.jwk })).status).toBe(400)
    expect((await changeKey('not-a-uuid', await body({ shopperId: s.id, newKeyThumbprint: k2.thumbprint }, k1))).status).toBe(400)
    expect(outcome(await changeKey(s.id, { publicKeyJwk: { ...k2.jwk, d: 'secret' }, authorization: 'x.y.z' }))).toBe('400 SHOPPER_JWK_PRIVATE')
    expect((await changeKey(s.id, await body({ shopperId: s.id, newKeyThumbprint: k2.thumbprint }, k1), otherAdmin)).status).toBe(404)
    expect((await f.api.get(`${BASE}/shoppers/${s.id}`, as(admin))).body.keyThumbprint).toBe(k1.thumbprint)
  })
})

describe('a key change refuses mandates created before it', () => {
  test('created before: 409 SHOPPER_KEY_CHANGED with the new key and the old; created after: authorized, the audit entry names the key', async () => {
    const k1 = await pair()
    const k2 = await pair()
    const s = await shopperWith(k1)
    const before = await mandateFor(s.id)
    clock.advance(1000)
    expect((await f.api.patch(`${BASE}/shoppers/${s.id}`, { publicKeyJwk: k2.jwk }, as(admin))).status).toBe(200)
    expect(outcome(await authorizeWith(before.id, k2))).toBe('409 SHOPPER_KEY_CHANGED')
    expect(outcome(await authorizeWith(before.id, k1))).toBe('409 SHOPPER_KEY_CHANGED')
    expect((await f.api.get(`${BASE}/mandates/${before.id}`, as(admin))).body.status).toBe('pending_authorization')
    // a tenant admin may still approve it as themself
    const byAdmin = await f.api.post(`${BASE}/mandates/${before.id}/authorize`, {}, as(admin))
    expect(byAdmin.body).toMatchObject({ status: 'active', authorization: { authorizedBy: admin.id, keyThumbprint: null } })

    clock.advance(1000)
    const after = await mandateFor(s.id)
    const ok = await authorizeWith(after.id, k2)
    expect(ok.status).toBe(200)
    expect(ok.body.authorization.keyThumbprint).toBe(k2.thumbprint)
    const log = await f.api.get(`${BASE}/audit-log?resourceType=mandate&resourceId=${after.id}`, as(admin))
    expect(log.body.data[0]).toMatchObject({ action: 'mandate.authorized' })
    expect(log.body.data[0].after.authorization.keyThumbprint).toBe(k2.thumbprint)
  })

  test('the view\'s thumbprint is RFC 7638\'s (jose\'s calculateJwkThumbprint), for ES256 and EdDSA keys', async () => {
    const { jwkThumbprint } = await import('@/modules/agent-payments/merchants/shopper-jws')
    for (const alg of ['ES256', 'EdDSA'] as const) {
      const k = await pair(alg)
      expect(jwkThumbprint({ ...k.jwk, kid: 'extra', use: 'sig' } as Record<string, unknown>)).toBe(k.thumbprint)
    }
  })

  test('a key change does not apply twice: once the shopper went back to the key that signed it, the old change has expired', async () => {
    const k1 = await pair()
    const k2 = await pair()
    const s = await shopperWith(k1)
    const toK2 = { publicKeyJwk: k2.jwk, authorization: await signKeyChange({ shopperId: s.id, newKeyThumbprint: k2.thumbprint }, k1) }
    expect((await changeKey(s.id, toK2)).status).toBe(200)
    clock.advance(1000)
    const backToK1 = { publicKeyJwk: k1.jwk, authorization: await signKeyChange({ shopperId: s.id, newKeyThumbprint: k1.thumbprint }, k2) }
    expect((await changeKey(s.id, backToK1)).status).toBe(200)
    clock.advance(11 * 60_000)
    expect(outcome(await changeKey(s.id, toK2))).toBe('400 SHOPPER_JWS_EXPIRED')
    expect((await f.api.get(`${BASE}/shoppers/${s.id}`, as(admin))).body.keyThumbprint).toBe(k1.thumbprint)
  })
})
