import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import type { ManualClock } from '@tests/helpers/app'
import { unique, type Tenant } from '@tests/helpers/factories'
import { loadConfig } from '@/config'
import { activityLog } from '@/db/schema'
import { HIBP_TIMEOUT_MS, makeWorld, requestLink, resetOn, type World } from './world'

let w: World
let tenant: Tenant
const NEW_PASSWORD = 'Brand-new-Passw0rd'
const INVALID = 'This reset link is invalid or has expired. Please request a new one.'

beforeAll(async () => {
  w = await makeWorld()
  tenant = await w.f.tenant(resetOn())
})
afterAll(() => w.close())
beforeEach(() => {
  w.t.deps.rateLimiter.reset()
  w.hibp.mode = 'ok'
})
const clock = () => w.t.clock as ManualClock

async function login(username: string, password: string) {
  clock().advance(1000)
  return w.f.api.post('/v1/auth/login', { username, password }, { signedBy: tenant })
}

describe('GET /v1/auth/reset-password/validate', () => {
  test('answers valid: true without consuming the token, valid: false for unknown tokens', async () => {
    const u = await w.f.user(tenant)
    const { token } = await requestLink(w, tenant, u.email)
    for (let i = 0; i < 3; i++) expect((await w.f.api.get(`/v1/auth/reset-password/validate?token=${token}`)).body).toEqual({ valid: true })
    expect((await w.f.api.post('/v1/auth/reset-password', { token, newPassword: NEW_PASSWORD })).status).toBe(200)
    expect((await w.f.api.get(`/v1/auth/reset-password/validate?token=${token}`)).body).toEqual({ valid: false })
    expect((await w.f.api.get('/v1/auth/reset-password/validate?token=nope')).body).toEqual({ valid: false })
  })

  test('a missing token answers 400 the error envelope; throttled with 429 the error envelope', async () => {
    const missing = await w.f.api.get('/v1/auth/reset-password/validate')
    expect(missing.status).toBe(400)
    expect(Object.keys(missing.body).sort()).toEqual(expect.arrayContaining(['error', 'message', 'statusCode']))
    for (let i = 0; i < 29; i++) await w.f.api.get('/v1/auth/reset-password/validate?token=x')
    const limited = await w.f.api.get('/v1/auth/reset-password/validate?token=x')
    expect(limited.status).toBe(429)
    expect(limited.body).toMatchObject({ message: 'Too many requests, please try again later' })
  })
})

describe('POST /v1/auth/reset-password', () => {
  test('changes the password, returns a fresh token pair, rejects earlier refresh tokens and emails a notice', async () => {
    const u = await w.f.user(tenant)
    const second = await login(u.username, u.password)
    const { token } = await requestLink(w, tenant, u.email)
    clock().advance(1000)
    const res = await w.f.api.post('/v1/auth/reset-password', { token, newPassword: NEW_PASSWORD })
    expect(res.status).toBe(200)
    expect(Object.keys(res.body).sort()).toEqual(['accessToken', 'expiresIn', 'ok', 'refreshToken', 'userId'])
    expect(res.body.ok).toBe(true)
    expect(res.body.userId).toBe(u.id)
    expect(res.body.expiresIn).toBe(900)
    // earlier refresh tokens: both sign-ins
    for (const old of [u.refreshToken, second.body.refreshToken]) {
      const r = await w.f.api.post('/v1/auth/refresh', { refreshToken: old })
      expect(r.status).toBe(401)
    }
    const fresh = await w.f.api.post('/v1/auth/refresh', { refreshToken: res.body.refreshToken })
    expect(fresh.status).toBe(200)
    // the access token already issued stays valid until it expires
    expect((await w.f.api.get(`/v1/users/${u.id}`, { token: u.accessToken })).status).toBe(200)
    expect((await w.f.api.get(`/v1/users/${u.id}`, { token: res.body.accessToken })).status).toBe(200)
    expect((await login(u.username, u.password)).status).toBe(401)
    expect((await login(u.username, NEW_PASSWORD)).status).toBe(200)
    const mails = await w.smtp.waitFor(u.email, 2)
    expect(mails[1]!.subject).toBe('Your Acme Wallet password was changed')
    const log = await w.t.deps.database.db.select().from(activityLog)
    expect(log.find((e) => e.action === 'user.password_reset.completed' && e.targetId === u.id)?.details).toEqual({ origin: 'self' })
    expect(mails[1]!.text).toContain('Sessions opened before the change were signed out')
  })

  test('the notice follows the locale', async () => {
    const u = await w.f.user(tenant)
    const { token } = await requestLink(w, tenant, u.email, 'it')
    expect((await w.f.api.post('/v1/auth/reset-password', { token, newPassword: NEW_PASSWORD, locale: 'it' })).status).toBe(200)
    const mails = await w.smtp.waitFor(u.email, 2)
    expect(mails[1]!.subject).toBe('La tua password Acme Wallet è stata modificata')
  })

  test('a token works once: the second use answers 400 the error envelope', async () => {
    const u = await w.f.user(tenant)
    const { token } = await requestLink(w, tenant, u.email)
    expect((await w.f.api.post('/v1/auth/reset-password', { token, newPassword: NEW_PASSWORD })).status).toBe(200)
    const again = await w.f.api.post('/v1/auth/reset-password', { token, newPassword: 'Another-Passw0rd' })
    expect(again.status).toBe(400)
    expect(again.body).toMatchObject({ message: INVALID })
    expect((await login(u.username, NEW_PASSWORD)).status).toBe(200)
  })

  test('two concurrent resets with one token: exactly one wins', async () => {
    const u = await w.f.user(tenant)
    const { token } = await requestLink(w, tenant, u.email)
    const results = await Promise.all(['Concurrent-A1', 'Concurrent-B2'].map((newPassword) => w.f.api.post('/v1/auth/reset-password', { token, newPassword })))
    expect(results.map((r) => r.status).sort()).toEqual([200, 400])
    const winner = results.find((r) => r.status === 200)!
    const loser = results.find((r) => r.status === 400)!
    expect(loser.body).toMatchObject({ message: INVALID })
    const winningPassword = results.indexOf(winner) === 0 ? 'Concurrent-A1' : 'Concurrent-B2'
    const losingPassword = winningPassword === 'Concurrent-A1' ? 'Concurrent-B2' : 'Concurrent-A1'
    expect((await login(u.username, winningPassword)).status).toBe(200)
    expect((await login(u.username, losingPassword)).status).toBe(401)
  })

  test('a token expires after the tenant\'s window (injectable clock)', async () => {
    const u = await w.f.user(tenant)
    const { token } = await requestLink(w, tenant, u.email)
    w.advance(59 * 60_000)
    expect((await w.f.api.get(`/v1/auth/reset-password/validate?token=${token}`)).body).toEqual({ valid: true })
    w.advance(60_000)
    expect((await w.f.api.get(`/v1/auth/reset-password/validate?token=${token}`)).body).toEqual({ valid: false })
    const res = await w.f.api.post('/v1/auth/reset-password', { token, newPassword: NEW_PASSWORD })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ message: INVALID })
    expect((await login(u.username, u.password)).status).toBe(200)
  })

  test('a shorter tenant window is honoured', async () => {
    const short = await w.f.tenant(resetOn({ tokenTtlMinutes: 5 }))
    const u = await w.f.user(short)
    const { token } = await requestLink(w, short, u.email)
    w.advance(5 * 60_000)
    expect((await w.f.api.get(`/v1/auth/reset-password/validate?token=${token}`)).body).toEqual({ valid: false })
  })

  test('a weak password answers 400 the error envelope and leaves the link usable', async () => {
    const u = await w.f.user(tenant)
    const { token } = await requestLink(w, tenant, u.email)
    for (const weak of ['short1A', 'alllowercase1', 'ALLUPPERCASE1', 'NoDigitsHere']) {
      const res = await w.f.api.post('/v1/auth/reset-password', { token, newPassword: weak })
      expect(res.status).toBe(400)
      expect(Object.keys(res.body).sort()).toEqual(expect.arrayContaining(['error', 'message', 'statusCode']))
      expect(res.body.message).toStartWith('Password must')
    }
    expect((await w.f.api.get(`/v1/auth/reset-password/validate?token=${token}`)).body).toEqual({ valid: true })
  })

  test('a breached password answers 400 the error envelope; only a 5-character SHA-1 prefix is sent, with Add-Padding', async () => {
    const u = await w.f.user(tenant)
    const breached = `Breached-${unique('pw')}1A`
    w.hibp.addBreached(breached, 3)
    const { token } = await requestLink(w, tenant, u.email)
    const before = w.hibp.requests.length
    const res = await w.f.api.post('/v1/auth/reset-password', { token, newPassword: breached })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ message: 'This password has appeared in a known data breach; choose a different one' })
    const req = w.hibp.requests[before]!
    expect(req.path).toMatch(/^\/range\/[0-9A-F]{5}$/)
    expect(req.addPadding).toBe('true')
    expect((await w.f.api.get(`/v1/auth/reset-password/validate?token=${token}`)).body).toEqual({ valid: true })
  })

  test('zero-count padding lines are not breaches', async () => {
    const u = await w.f.user(tenant)
    const padded = `Padded-${unique('pw')}1A`
    w.hibp.addPaddingFor(padded)
    const { token } = await requestLink(w, tenant, u.email)
    expect((await w.f.api.post('/v1/auth/reset-password', { token, newPassword: padded })).status).toBe(200)
  })

  test('when the breach service fails or is slower than the timeout, the reset answers 503 the error envelope and the link stays usable', async () => {
    const u = await w.f.user(tenant)
    const { token } = await requestLink(w, tenant, u.email)
    for (const mode of ['error', 'slow'] as const) {
      w.hibp.mode = mode
      const started = Date.now()
      const res = await w.f.api.post('/v1/auth/reset-password', { token, newPassword: NEW_PASSWORD })
      expect(res.status).toBe(503)
      expect(res.body).toMatchObject({ message: 'The password could not be checked right now; please try again in a few minutes' })
      // HIBP_TIMEOUT_MS is 3 s in these tests; the fake takes 10 s when slow: the answer comes at
      // the limit, well before the fake's (the margin is for a busy machine)
      expect(Date.now() - started).toBeLessThan(w.hibp.slowMs - 2000)
      if (mode === 'slow') expect(Date.now() - started).toBeGreaterThanOrEqual(HIBP_TIMEOUT_MS - 50)
    }
    w.hibp.mode = 'ok'
    expect((await w.f.api.post('/v1/auth/reset-password', { token, newPassword: NEW_PASSWORD })).status).toBe(200)
  })

  test('a newer reset ends every other link of the account', async () => {
    const u = await w.f.user(tenant)
    const first = await requestLink(w, tenant, u.email)
    clock().advance(1000)
    const second = await requestLink(w, tenant, u.email)
    expect(first.token).not.toBe(second.token)
    expect((await w.f.api.post('/v1/auth/reset-password', { token: second.token, newPassword: NEW_PASSWORD })).status).toBe(200)
    expect((await w.f.api.get(`/v1/auth/reset-password/validate?token=${first.token}`)).body).toEqual({ valid: false })
  })

  test('links stop working when the tenant turns reset off or the user is deleted', async () => {
    const tn = await w.f.tenant(resetOn())
    const a = await w.f.user(tn)
    const b = await w.f.user(tn)
    const la = await requestLink(w, tn, a.email)
    const lb = await requestLink(w, tn, b.email)
    const admin = await w.f.adminToken()
    expect((await w.f.api.delete(`/v1/users/${b.id}?tenantId=${tn.id}`, { token: admin })).status).toBeLessThan(300)
    expect((await w.f.api.get(`/v1/auth/reset-password/validate?token=${lb.token}`)).body).toEqual({ valid: false })
    expect((await w.f.api.patch(`/v1/admin/tenants/${tn.id}`, { passwordReset: { enabled: false } }, { token: admin })).status).toBe(200)
    expect((await w.f.api.get(`/v1/auth/reset-password/validate?token=${la.token}`)).body).toEqual({ valid: false })
    expect((await w.f.api.post('/v1/auth/reset-password', { token: la.token, newPassword: NEW_PASSWORD })).status).toBe(400)
  })

  test('bad inputs answer 400 the error envelope, never a 500', async () => {
    for (const body of [{}, { token: 'x' }, { newPassword: NEW_PASSWORD }, { token: 'x', newPassword: NEW_PASSWORD, locale: 'de' }, { token: 1, newPassword: NEW_PASSWORD }]) {
      const res = await w.f.api.post('/v1/auth/reset-password', body)
      expect(res.status).toBe(400)
      expect(Object.keys(res.body).sort()).toEqual(expect.arrayContaining(['error', 'message', 'statusCode']))
    }
    const unknown = await w.f.api.post('/v1/auth/reset-password', { token: 'not-a-token', newPassword: NEW_PASSWORD })
    expect(unknown.body).toMatchObject({ message: INVALID })
  })

  test('throttled per client IP with 429 the error envelope', async () => {
    for (let i = 0; i < 10; i++) await w.f.api.post('/v1/auth/reset-password', { token: 'x', newPassword: NEW_PASSWORD })
    const limited = await w.f.api.post('/v1/auth/reset-password', { token: 'x', newPassword: NEW_PASSWORD })
    expect(limited.status).toBe(429)
    expect(limited.body).toMatchObject({ message: 'Too many requests, please try again later' })
  })
})

describe('breached-password check at registration (tenant setting)', () => {
  test('refused with 422 when the tenant turns it on, accepted when it is off', async () => {
    const breached = `Breached-${unique('reg')}1A`
    w.hibp.addBreached(breached)
    const strict = await w.f.tenant({ breachedPasswordCheck: { onRegister: true } })
    const lax = await w.f.tenant()
    const username = unique('reg')
    const refused = await w.f.api.post('/v1/auth/register', { username, email: `${username}@example.com`, password: breached }, { signedBy: strict })
    expect(refused.status).toBe(422)
    expect(refused.body.details).toEqual([{ path: '/password', message: 'This password has appeared in a known data breach; choose a different one', instancePath: '/password', schemaPath: '', keyword: 'endpointCheck', params: {} }])
    const before = w.hibp.requests.length
    const accepted = await w.f.api.post('/v1/auth/register', { username, email: `${username}@example.com`, password: breached }, { signedBy: lax })
    expect(accepted.status).toBe(201)
    expect(w.hibp.requests.length).toBe(before)
  })
})

describe('HIBP_ON_ERROR=allow', () => {
  test('a reset goes through when the breach service is down, and the outage is logged', async () => {
    const lenient = await makeWorld({ HIBP_ON_ERROR: 'allow' })
    try {
      const tn = await lenient.f.tenant(resetOn())
      const u = await lenient.f.user(tn)
      const { token } = await requestLink(lenient, tn, u.email)
      lenient.hibp.mode = 'error'
      expect((await lenient.f.api.post('/v1/auth/reset-password', { token, newPassword: NEW_PASSWORD })).status).toBe(200)
      lenient.t.deps.logger.flush()
      expect(lenient.t.logs.join('\n')).toContain('breached-password check unavailable')
    } finally {
      await lenient.close()
    }
  })

  test('an unknown HIBP_ON_ERROR value is refused at start-up', () => {
    expect(() => loadConfig({ HIBP_ON_ERROR: 'maybe' })).toThrow(/HIBP_ON_ERROR/)
  })
})
