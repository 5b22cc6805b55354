import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { decodeJwt } from 'jose'
import { makeApp, type ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, unique, type Tenant } from '@tests/helpers/factories'
import { FakeJwks } from '@tests/fakes/jwks'
import { userIdentities, users } from '@/db/schema'

const GOOGLE_WEB = 'web-client.apps.googleusercontent.com'
const GOOGLE_IOS = 'ios-client.apps.googleusercontent.com'
const APPLE_APP = 'com.acme.wallet'

let t: TestApp
let f: Factory
let google: FakeJwks
let apple: FakeJwks
let tenant: Tenant

beforeAll(async () => {
  google = await new FakeJwks('https://accounts.google.com').start()
  apple = await new FakeJwks('https://appleid.apple.com').start()
  t = await makeApp({ env: { GOOGLE_JWKS_URL: google.url, APPLE_JWKS_URL: apple.url } })
  f = new Factory(t)
  tenant = await f.tenant({ social: { googleClientIds: [GOOGLE_WEB, GOOGLE_IOS], appleClientIds: [APPLE_APP] } })
})
afterAll(async () => {
  await t.close()
  google.stop()
  apple.stop()
})
beforeEach(() => {
  t.deps.rateLimiter.reset()
  // every request in its own second, so equal bodies are not replays
  clock().advance(1000)
})

const clock = () => t.clock as ManualClock
const now = () => t.clock.now()

function googleToken(claims: Record<string, unknown> = {}, opts: Parameters<FakeJwks['sign']>[1] = {}) {
  return google.sign({ aud: GOOGLE_WEB, sub: unique('gsub'), email: `${unique('g')}@gmail.com`, email_verified: true, ...claims }, { nowMs: now(), ...opts })
}
function appleToken(claims: Record<string, unknown> = {}) {
  return apple.sign({ aud: APPLE_APP, sub: unique('asub'), email: `${unique('a')}@privaterelay.appleid.com`, email_verified: 'true', ...claims }, { nowMs: now() })
}
const signIn = (provider: 'google' | 'apple', body: Record<string, unknown>, to: Tenant = tenant) => f.api.post(`/v1/auth/${provider}`, body, { signedBy: to })

describe('POST /v1/auth/google', () => {
  test('the first sign-in creates a user; later ones find it by subject; the token response is login\'s', async () => {
    const sub = unique('gsub')
    const email = `${unique('first')}@gmail.com`
    const first = await signIn('google', { idToken: await googleToken({ sub, email }) })
    expect(first.status).toBe(200)
    expect(Object.keys(first.body).sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken', 'user'])
    expect(first.body.user.email).toBe(email)
    expect(first.body.user.username).toMatch(/^google_[A-Za-z0-9_-]{12}$/)
    expect(first.body.expiresIn).toBe(900)
    const claims = decodeJwt(first.body.accessToken)
    expect(claims.sub).toBe(first.body.user.id)
    expect(claims.tenantId).toBe(tenant.id)
    clock().advance(1000)
    // a later token may carry a changed email: the subject decides
    const again = await signIn('google', { idToken: await googleToken({ sub, email: `${unique('renamed')}@gmail.com`, aud: GOOGLE_IOS }) })
    expect(again.status).toBe(200)
    expect(again.body.user.id).toBe(first.body.user.id)
    const links = await t.deps.database.db.select().from(userIdentities)
    expect(links.filter((l) => l.subject === sub)).toHaveLength(1)
    const row = (await t.deps.database.db.select().from(users)).find((u) => u.id === first.body.user.id)!
    expect(row.passwordHash).toBeNull()
    // refresh works like any other session
    expect((await f.api.post('/v1/auth/refresh', { refreshToken: first.body.refreshToken })).status).toBe(200)
  })

  test('a token for another audience, issuer, or signed by an unknown key answers 401 in the envelope', async () => {
    const cases = [
      await googleToken({ aud: 'someone-else.apps.googleusercontent.com' }),
      await googleToken({ iss: 'https://accounts.evil.example' }),
      await googleToken({}, { key: await FakeJwks.strangerKey() }),
      'not.a.jwt-at-all',
    ]
    for (const idToken of cases) {
      clock().advance(1000)
      const res = await signIn('google', { idToken })
      expect(res.status).toBe(401)
      expect(res.body).toMatchObject({ error: 'UnauthorizedError', message: 'Invalid Google ID token' })
    }
  })

  test('an expired token answers 401 (clock moved past exp)', async () => {
    const idToken = await googleToken({ exp: Math.floor(now() / 1000) + 60 })
    clock().advance(2 * 60_000)
    const res = await signIn('google', { idToken })
    expect(res.status).toBe(401)
  })

  test('the nonce, when sent, must match the token\'s', async () => {
    const idToken = await googleToken({ nonce: 'n-123' })
    expect((await signIn('google', { idToken, nonce: 'n-999' })).status).toBe(401)
    clock().advance(1000)
    expect((await signIn('google', { idToken, nonce: 'n-123' })).status).toBe(200)
    const without = await googleToken()
    clock().advance(1000)
    expect((await signIn('google', { idToken: without, nonce: 'n-123' })).status).toBe(401)
  })

  test('an unverified email answers 422 ValidationError', async () => {
    const res = await signIn('google', { idToken: await googleToken({ email_verified: false }) })
    expect(res.status).toBe(422)
    expect(res.body.error).toBe('ValidationError')
    expect(res.body.message).toBe('Google account email is not verified')
    expect(res.body.statusCode).toBe(422)
  })

  test('an email that already belongs to a password account answers 409, and nothing is linked', async () => {
    const u = await f.user(tenant)
    const sub = unique('gsub')
    const res = await signIn('google', { idToken: await googleToken({ sub, email: u.email.toUpperCase() }) })
    expect(res.status).toBe(409)
    expect(res.body.error).toBe('ConflictError')
    expect((await t.deps.database.db.select().from(userIdentities)).some((l) => l.subject === sub)).toBe(false)
  })

  test('the same Google account in another tenant is another user', async () => {
    const other = await f.tenant({ social: { googleClientIds: [GOOGLE_WEB] } })
    const sub = unique('gsub')
    const email = `${unique('both')}@gmail.com`
    const here = await signIn('google', { idToken: await googleToken({ sub, email }) })
    const there = await signIn('google', { idToken: await googleToken({ sub, email }) }, other)
    expect(here.status).toBe(200)
    expect(there.status).toBe(200)
    expect(there.body.user.id).not.toBe(here.body.user.id)
    expect(there.body.user.tenantId).toBe(other.id)
  })

  test('a tenant without Google client ids answers 400', async () => {
    const bare = await f.tenant()
    const res = await signIn('google', { idToken: await googleToken() }, bare)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ error: 'BadRequestError', message: 'Google sign-in is not configured for this tenant' })
  })

  test('a deleted user cannot sign in again with the linked account', async () => {
    const sub = unique('gsub')
    const first = await signIn('google', { idToken: await googleToken({ sub }) })
    expect((await f.api.delete(`/v1/users/${first.body.user.id}?tenantId=${tenant.id}`, { token: await f.adminToken() })).status).toBeLessThan(300)
    clock().advance(1000)
    const res = await signIn('google', { idToken: await googleToken({ sub }) })
    expect(res.status).toBe(401)
  })

  test('keys are cached, and fetched again when a token names an unknown key id', async () => {
    await signIn('google', { idToken: await googleToken() })
    const fetches = google.fetches
    clock().advance(1000)
    expect((await signIn('google', { idToken: await googleToken() })).status).toBe(200)
    expect(google.fetches).toBe(fetches)
    await google.rotate()
    clock().advance(15_000)
    const res = await signIn('google', { idToken: await googleToken() })
    expect(res.status).toBe(200)
    expect(google.fetches).toBe(fetches + 1)
  })

  test('forged key ids do not make us fetch the keys again and again', async () => {
    clock().advance(15_000)
    await signIn('google', { idToken: await googleToken() })
    const fetches = google.fetches
    for (let i = 0; i < 3; i++) {
      clock().advance(1000)
      const forged = await googleToken({}, { key: await FakeJwks.strangerKey() })
      const [, body, sig] = forged.split('.')
      const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: `forged-${i}`, typ: 'JWT' })).toString('base64url')
      expect((await signIn('google', { idToken: `${header}.${body}.${sig}` })).status).toBe(401)
    }
    // at most one refetch per cool-down (10 s)
    expect(google.fetches - fetches).toBeLessThanOrEqual(1)
  })

  test('bad inputs answer 400 in the envelope; an unsigned request 401', async () => {
    const missing = await signIn('google', {})
    expect(missing.status).toBe(400)
    expect(missing.body).toMatchObject({ error: 'Bad Request', message: 'Request validation failed' })
    const unsigned = await f.api.post('/v1/auth/google', { idToken: await googleToken() })
    expect(unsigned.status).toBe(401)
  })

  test('limited to 20 per minute per client IP', async () => {
    for (let i = 0; i < 20; i++) await f.api.post('/v1/auth/google', {})
    const limited = await f.api.post('/v1/auth/google', {})
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).not.toBeNull()
  })
})

describe('POST /v1/auth/apple', () => {
  test('accepts email_verified as the string "true" and uses the name for the new user', async () => {
    const res = await signIn('apple', { idToken: await appleToken(), firstName: 'Ada', lastName: 'Lovelace' })
    expect(res.status).toBe(200)
    expect(res.body.user.displayName).toBe('Ada Lovelace')
    expect(res.body.user.username).toStartWith('apple_')
  })

  test('email_verified "false" answers 422', async () => {
    const res = await signIn('apple', { idToken: await appleToken({ email_verified: 'false' }) })
    expect(res.status).toBe(422)
    expect(res.body.message).toBe('Apple account email is not verified')
  })

  test('the nonce may be sent raw while the token holds its SHA-256', async () => {
    const raw = unique('nonce')
    const idToken = await appleToken({ nonce: createHash('sha256').update(raw).digest('hex') })
    expect((await signIn('apple', { idToken, nonce: raw })).status).toBe(200)
    clock().advance(1000)
    expect((await signIn('apple', { idToken, nonce: 'wrong' })).status).toBe(401)
  })

  test('a Google token is not an Apple token', async () => {
    const res = await signIn('apple', { idToken: await googleToken({ aud: APPLE_APP }) })
    expect(res.status).toBe(401)
    expect(res.body.message).toBe('Invalid Apple ID token')
  })
})

describe('when the provider\'s keys cannot be fetched', () => {
  test('keys fetched earlier keep working while the provider is down, past their max-age', async () => {
    const provider = await new FakeJwks('https://accounts.google.com').start()
    const app = await makeApp({ env: { GOOGLE_JWKS_URL: provider.url } })
    try {
      const af = new Factory(app)
      const tn = await af.tenant({ social: { googleClientIds: [GOOGLE_WEB] } })
      const token = () => provider.sign({ aud: GOOGLE_WEB, sub: 'stale-sub', email: 'stale@gmail.com', email_verified: true }, { nowMs: app.clock.now() })
      expect((await af.api.post('/v1/auth/google', { idToken: await token() }, { signedBy: tn })).status).toBe(200)
      provider.stop()
      ;(app.clock as ManualClock).advance(2 * 3_600_000)
      expect((await af.api.post('/v1/auth/google', { idToken: await token() }, { signedBy: tn })).status).toBe(200)
      expect(provider.fetches).toBe(1)
    } finally {
      await app.close()
    }
  })

  test('sign-in answers 503 and nothing is created', async () => {
    const down = await makeApp({ env: { GOOGLE_JWKS_URL: 'http://127.0.0.1:9/keys' } })
    try {
      const df = new Factory(down)
      const tn = await df.tenant({ social: { googleClientIds: [GOOGLE_WEB] } })
      const res = await df.api.post('/v1/auth/google', { idToken: await google.sign({ aud: GOOGLE_WEB, sub: 's', email: 'x@gmail.com', email_verified: true }, { nowMs: down.clock.now() }) }, { signedBy: tn })
      expect(res.status).toBe(503)
      expect(res.body).toMatchObject({ error: 'ServiceUnavailableError', message: 'Google sign-in is temporarily unavailable' })
      expect(await down.deps.database.db.select().from(userIdentities)).toHaveLength(0)
    } finally {
      await down.close()
    }
  })
})
