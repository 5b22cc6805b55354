import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SignJWT, base64url } from 'jose'
import { makeApp, ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, type Tenant } from '@tests/helpers/factories'

let t: TestApp
let f: Factory
let clock: ManualClock
let plain: Tenant
let rotating: Tenant

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2026, 10, 1))
  t = await makeApp({ clock })
  f = new Factory(t)
  plain = await f.tenant()
  rotating = await f.tenant({ refreshTokenRotation: true })
})
afterAll(() => t.close())

const profile = (token: string, id: string) => f.api.get(`/v1/users/${id}`, { token })

describe('refresh', () => {
  test('without rotation: a new access token and no new refresh token; the old one keeps working', async () => {
    const u = await f.user(plain)
    clock.advance(1000)
    const a = await f.api.post('/v1/auth/refresh', { refreshToken: u.refreshToken })
    expect(a.status).toBe(200)
    expect(a.body.refreshToken).toBeUndefined()
    expect(a.body.expiresIn).toBe(900)
    expect((await profile(a.body.accessToken, u.id)).status).toBe(200)
    expect((await f.api.post('/v1/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(200)
  })

  test('with rotation: a new refresh token; reusing the old one answers 401 and revokes the family', async () => {
    const u = await f.user(rotating)
    const first = await f.api.post('/v1/auth/refresh', { refreshToken: u.refreshToken })
    expect(first.status).toBe(200)
    expect(first.body.refreshToken).toBeString()
    const second = await f.api.post('/v1/auth/refresh', { refreshToken: first.body.refreshToken })
    expect(second.status).toBe(200)
    const reuse = await f.api.post('/v1/auth/refresh', { refreshToken: u.refreshToken })
    expect(reuse.status).toBe(401)
    expect(reuse.body.error).toBe('UnauthorizedError')
    expect(reuse.body.statusCode).toBe(401)
    // the newest token of that sign-in is revoked too
    expect((await f.api.post('/v1/auth/refresh', { refreshToken: second.body.refreshToken })).status).toBe(401)
    // another sign-in of the same user is untouched
    const login = await f.api.post('/v1/auth/login', { username: u.username, password: u.password }, { signedBy: rotating })
    expect((await f.api.post('/v1/auth/refresh', { refreshToken: login.body.refreshToken })).status).toBe(200)
  })

  test('concurrent refreshes of one token under rotation: exactly one wins', async () => {
    const u = await f.user(rotating)
    const results = await Promise.all(Array.from({ length: 5 }, () => f.api.post('/v1/auth/refresh', { refreshToken: u.refreshToken })))
    expect(results.filter((r) => r.status === 200)).toHaveLength(1)
  })

  test('refresh tokens expire after 7 days', async () => {
    const u = await f.user(plain)
    clock.advance(7 * 24 * 3600 * 1000 - 1000)
    expect((await f.api.post('/v1/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(200)
    clock.advance(2000)
    expect((await f.api.post('/v1/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(401)
  })

  test('refresh tokens issued before a password change are refused', async () => {
    const u = await f.user(plain)
    clock.advance(1000)
    const changed = await f.api.put(`/v1/users/${u.id}`, { password: 'N3w-password', currentPassword: u.password }, { token: u.accessToken })
    expect(changed.status).toBe(200)
    expect((await f.api.post('/v1/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(401)
    const login = await f.api.post('/v1/auth/login', { username: u.username, password: 'N3w-password' }, { signedBy: plain })
    expect(login.status).toBe(200)
    expect((await f.api.post('/v1/auth/refresh', { refreshToken: login.body.refreshToken })).status).toBe(200)
  })

  test('bad refresh bodies answer 400 in the envelope', async () => {
    for (const body of [{}, { refreshToken: 5 }, { refreshToken: '' }]) {
      const res = await f.api.post('/v1/auth/refresh', body)
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: 'Request validation failed' })
      expect(res.body.details.length).toBeGreaterThan(0)
    }
    const res = await f.api.post('/v1/auth/refresh', undefined, { raw: '{"refreshToken":' })
    expect(res.status).toBe(400)
  })
})

describe('access tokens', () => {
  test('expire after 900 seconds', async () => {
    const u = await f.user(plain)
    clock.advance(899_000)
    expect((await profile(u.accessToken, u.id)).status).toBe(200)
    clock.advance(2000)
    const res = await profile(u.accessToken, u.id)
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ statusCode: 401, error: 'UnauthorizedError', message: 'Authentication required' })
  })

  test('verification is pinned to HS256: alg none and other keys are refused', async () => {
    const u = await f.user(plain)
    const [, payload] = u.accessToken.split('.')
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${payload}.`
    expect((await profile(none, u.id)).status).toBe(401)
    const forged = await new SignJWT({ tenantId: plain.id, role: 'tenantadmin' }).setProtectedHeader({ alg: 'HS256' }).setSubject(u.id)
      .setIssuedAt(Math.floor(clock.now() / 1000)).setExpirationTime(Math.floor(clock.now() / 1000) + 900).sign(new TextEncoder().encode('another-key-another-key-another-key!'))
    expect((await profile(forged, u.id)).status).toBe(401)
    for (const header of ['Bearer', 'Basic abc', `bearer ${u.accessToken}x`]) {
      const res = await f.api.get(`/v1/users/${u.id}`, { headers: { authorization: header } })
      expect(res.status).toBe(401)
    }
  })

  test('a soft-deleted user cannot use its token, refresh or sign in', async () => {
    const u = await f.user(plain)
    const ta = await f.tenantAdmin(plain)
    const del = await f.api.delete(`/v1/users/${u.id}`, { token: ta.accessToken })
    expect(del.status).toBe(204)
    expect((await profile(u.accessToken, u.id)).status).toBe(401)
    expect((await f.api.post('/v1/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(401)
    expect((await f.api.post('/v1/auth/login', { username: u.username, password: u.password }, { signedBy: plain })).status).toBe(401)
  })
})

describe('admin login', () => {
  test('answers the token response with tenantId null; tenant users cannot use it', async () => {
    const res = await f.api.post('/v1/auth/admin/login', { username: 'root', password: 'Root-Passw0rd' })
    expect(res.status).toBe(200)
    expect(res.body.user.role).toBe('admin')
    expect(res.body.user.tenantId).toBeNull()
    const wrong = await f.api.post('/v1/auth/admin/login', { username: 'root', password: 'nope-nope' })
    expect(wrong.status).toBe(401)
    expect(wrong.body).toMatchObject({ error: 'UnauthorizedError', message: 'Invalid credentials' })
    const u = await f.user(plain)
    expect((await f.api.post('/v1/auth/admin/login', { username: u.username, password: u.password })).status).toBe(401)
  })
})
