import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { decodeJwt } from 'jose'
import { and, eq } from 'drizzle-orm'
import { refreshTokens, users } from '@/db/schema'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, unique, type Tenant } from '@tests/helpers/factories'

let t: TestApp
let f: Factory
let tenant: Tenant

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  tenant = await f.tenant()
})
afterAll(() => t.close())

describe('register', () => {
  test('creates a user and answers 201 with the token pair and profile', async () => {
    const username = unique('alice')
    const res = await f.api.post('/v1/auth/register', { username, email: `${username}@example.com`, password: 'Sup3rsecret' }, { signedBy: tenant })
    expect(res.status).toBe(201)
    expect(res.body.expiresIn).toBe(900)
    expect(res.body.user.username).toBe(username)
    expect(res.body.user.role).toBe('user')
    expect(res.body.wallet).toBeUndefined()
    const claims = decodeJwt(res.body.accessToken)
    expect(claims.sub).toBe(res.body.user.id)
    expect(claims.tenantId).toBe(tenant.id)
    expect(claims.role).toBe('user')
    expect((claims.exp as number) - (claims.iat as number)).toBe(900)
    expect(res.body.refreshToken.length).toBeGreaterThanOrEqual(43)
    // the answer is not re-checked at run time (TokenResponse is NoValidate): its shape is pinned here
    expect(Object.keys(res.body).sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken', 'user'])
    expect(res.body.user).toEqual({
      id: res.body.user.id, tenantId: tenant.id, username, email: `${username}@example.com`, displayName: null,
      role: 'user', status: 'active', createdAt: res.body.user.createdAt, updatedAt: res.body.user.createdAt,
    })
    expect(new Date(res.body.user.createdAt).toISOString()).toBe(res.body.user.createdAt)
  })

  test('a weak password answers 422 as the spec\'s example, its details in the one issue shape', async () => {
    const res = await f.api.post('/v1/auth/register', { username: unique('weak'), email: 'w@example.com', password: 'alllowercase1' }, { signedBy: tenant })
    expect(res.status).toBe(422)
    expect(res.body.error).toBe('Validation Error')
    expect(res.body).toEqual({
      statusCode: 422, error: 'Validation Error', message: 'Request validation failed',
      details: [{ path: '/password', message: 'Password must contain an uppercase letter', instancePath: '/password', schemaPath: '', keyword: 'endpointCheck', params: {} }],
    })
  })

  test('a schema failure answers 400 in the envelope, with its issues', async () => {
    const res = await f.api.post('/v1/auth/register', { username: 'a', email: 'not-an-email', password: 1 }, { signedBy: tenant })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: 'Request validation failed' })
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['/email', '/password', '/username'])
  })

  test('a taken username answers 409, whatever its case', async () => {
    const u = await f.user(tenant)
    const res = await f.api.post('/v1/auth/register', { username: u.username.toUpperCase(), email: 'other@example.com', password: 'Sup3rsecret' }, { signedBy: tenant })
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({ error: 'ConflictError', message: 'Username already taken' })
  })

  test('a taken email answers 409 whatever its case; a taken username is named first; a deleted account frees its email, not its username; another tenant\'s names are free', async () => {
    const register = (username: string, email: string, on = tenant) => f.api.post('/v1/auth/register', { username, email, password: 'Sup3rsecret' }, { signedBy: on })
    const u = await f.user(tenant)
    const email = await register(unique('fresh'), u.email.toUpperCase())
    expect(email.status).toBe(409)
    expect(email.body).toMatchObject({ error: 'ConflictError', message: 'Email already registered' })
    expect((await register(u.username, u.email)).body).toMatchObject({ error: 'ConflictError', message: 'Username already taken' })
    expect((await register(u.username, `${unique('free')}@example.com`)).body.message).toBe('Username already taken')
    // another tenant: both free
    expect((await register(u.username, u.email, await f.tenant())).status).toBe(201)
    // deleted: its email can register again, its username cannot
    const ta = await f.tenantAdmin(tenant)
    expect((await f.api.delete(`/v1/users/${u.id}`, { token: ta.accessToken })).status).toBe(204)
    expect((await register(u.username, `${unique('free')}@example.com`)).body.message).toBe('Username already taken')
    const again = await register(unique('again'), u.email)
    expect(again.status).toBe(201)
    expect(again.body.user.email).toBe(u.email)
  })

  test('two registrations racing for one username: one written with its session, the other 409 as the check answers, nothing of it written', async () => {
    const tokensOfTenant = async () => (await t.deps.database.db.select({ id: refreshTokens.id }).from(refreshTokens).where(eq(refreshTokens.tenantId, tenant.id))).length
    const before = await tokensOfTenant()
    const username = unique('racer')
    // both pass the check before the argon2 hash; the unique index refuses the second write
    const racing = await Promise.all([1, 2].map((i) => f.api.post('/v1/auth/register', { username, email: `${username}${i}@example.com`, password: 'Sup3rsecret' }, { signedBy: tenant })))
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409])
    const won = racing.find((r) => r.status === 201)!
    const lost = racing.find((r) => r.status === 409)!
    const late = await f.api.post('/v1/auth/register', { username, email: `${unique('late')}@example.com`, password: 'Sup3rsecret' }, { signedBy: tenant })
    expect(late.status).toBe(409)
    expect(lost.body).toEqual(late.body)
    expect(lost.body).toMatchObject({ statusCode: 409, error: 'ConflictError', message: 'Username already taken' })
    const rows = await t.deps.database.db.select({ id: users.id, email: users.email }).from(users).where(and(eq(users.scope, tenant.id), eq(users.usernameKey, username)))
    expect(rows).toEqual([{ id: won.body.user.id, email: won.body.user.email }])
    // the winner's one refresh token, and none for the loser
    expect(await tokensOfTenant()).toBe(before + 1)
    const refreshed = await f.api.post('/v1/auth/refresh', { refreshToken: won.body.refreshToken })
    expect(refreshed.status).toBe(200)
    expect(decodeJwt(refreshed.body.accessToken).sub).toBe(won.body.user.id)
  })
})

describe('login', () => {
  test('right credentials answer the token pair; wrong ones 401 in the envelope', async () => {
    const u = await f.user(tenant)
    const ok = await f.api.post('/v1/auth/login', { username: u.username, password: u.password }, { signedBy: tenant })
    expect(ok.status).toBe(200)
    expect(ok.body.user.id).toBe(u.id)
    const bad = await f.api.post('/v1/auth/login', { username: u.username, password: 'Wrong-passw0rd' }, { signedBy: tenant })
    expect(bad.status).toBe(401)
    expect(bad.body).toMatchObject({ error: 'UnauthorizedError', message: 'Invalid credentials' })
    const nobody = await f.api.post('/v1/auth/login', { username: 'nobody_here', password: 'Wrong-passw0rd' }, { signedBy: tenant })
    expect(nobody.body).toEqual(bad.body)
  })

  test('a user of another tenant cannot sign in here', async () => {
    const other = await f.tenant()
    const u = await f.user(other)
    const res = await f.api.post('/v1/auth/login', { username: u.username, password: u.password }, { signedBy: tenant })
    expect(res.status).toBe(401)
  })
})
