import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, unique, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import Database from 'libsql'
import { and, eq } from 'drizzle-orm'
import { users } from '@/db/schema'
import * as usersRepo from '@/modules/users/repo'

let t: TestApp
let f: Factory
let tenant: Tenant
let other: Tenant
let ta: SignedInUser

/** A fresh app with a tenant and its tenantadmin. */
async function tenantWithOperator() {
  const t = await makeApp()
  const f = new Factory(t)
  const tenant = await f.tenant()
  return { t, f, tenant, ta: await f.tenantAdmin(tenant) }
}

beforeAll(async () => {
  ;({ t, f, tenant, ta } = await tenantWithOperator())
  other = await f.tenant()
})
afterAll(() => t.close())

describe('POST /v1/users/', () => {
  test('a tenantadmin creates a user: 201 with status active and a PNG QR code of a send deep link', async () => {
    const username = unique('bob')
    const res = await f.api.post('/v1/users/', { username, password: 'whatever8', email: `${username}@example.com` }, { token: ta.accessToken })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ username, email: `${username}@example.com`, role: 'user', status: 'active', tenantId: tenant.id })
    expect(res.body.qrCode).toStartWith('data:image/png;base64,')
    const png = Buffer.from(res.body.qrCode.split(',')[1], 'base64')
    expect(png.subarray(1, 4).toString()).toBe('PNG')
    const login = await f.api.post('/v1/auth/login', { username, password: 'whatever8' }, { signedBy: tenant })
    expect(login.status).toBe(200)
  })

  test('a taken username answers 409 and bad input 400, in the envelope with `detail`', async () => {
    const u = await f.user(tenant)
    const taken = await f.api.post('/v1/users/', { username: u.username, password: 'whatever8' }, { token: ta.accessToken })
    expect(taken.status).toBe(409)
    expect(taken.body).toMatchObject({ detail: 'Username already taken' })
    for (const body of [{ username: 'ab', password: 'whatever8' }, { username: 'ok_name', password: 'short' }, { username: 'bad name!', password: 'whatever8' }, { username: 'x'.repeat(101), password: 'whatever8' }, { password: 'whatever8' }, { username: 'fine_name', password: 'whatever8', role: 'admin' }]) {
      const res = await f.api.post('/v1/users/', body, { token: ta.accessToken })
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ statusCode: 400, error: expect.any(String), message: expect.any(String), detail: expect.any(String) })
    }
  })

  test('the same username may exist in two tenants', async () => {
    const u = await f.user(tenant)
    const res = await f.api.post('/v1/users/', { username: u.username, password: 'whatever8', tenantId: other.id }, { token: await f.adminToken() })
    expect(res.status).toBe(201)
  })

  test('a platform admin must name the tenant; a plain user is refused', async () => {
    const res = await f.api.post('/v1/users/', { username: unique('x'), password: 'whatever8' }, { token: await f.adminToken() })
    expect(res.status).toBe(400)
    expect(res.body.detail).toContain('tenantId')
    const u = await f.user(tenant)
    expect((await f.api.post('/v1/users/', { username: unique('x'), password: 'whatever8' }, { token: u.accessToken })).status).toBe(403)
    const foreign = await f.api.post('/v1/users/', { username: unique('x'), password: 'whatever8', tenantId: other.id }, { token: ta.accessToken })
    expect(foreign.status).toBe(404)
  })
})

describe('reading, listing, searching', () => {
  test('list uses limit/offset pagination with total and hasMore', async () => {
    const fresh = await f.tenant()
    const admin = await f.tenantAdmin(fresh)
    for (let i = 0; i < 3; i++) await f.user(fresh)
    const first = await f.api.get('/v1/users/?limit=2&offset=0', { token: admin.accessToken })
    expect(first.status).toBe(200)
    expect(first.body.pagination).toEqual({ total: 4, limit: 2, offset: 0, hasMore: true })
    const second = await f.api.get('/v1/users/?limit=2&offset=2', { token: admin.accessToken })
    expect(second.body.pagination.hasMore).toBe(false)
    expect(second.body.data).toHaveLength(2)
    expect((await f.api.get('/v1/users/?limit=101', { token: admin.accessToken })).status).toBe(400)
    expect((await f.api.get('/v1/users/?offset=-1', { token: admin.accessToken })).status).toBe(400)
  })

  test('a read answers exactly the User schema\'s fields, as JSON with its request id, one\'s own row and another\'s alike', async () => {
    const a = await f.user(tenant)
    const { UserProfile } = await import('@/modules/users/view')
    const row = await usersRepo.findById(t.deps.database.db, tenant.id, a.id)
    const expected = {
      id: a.id, tenantId: tenant.id, username: a.username, email: row!.email, displayName: row!.displayName, role: 'user', status: 'active',
      createdAt: new Date(row!.createdAt).toISOString(), updatedAt: new Date(row!.updatedAt).toISOString(),
    }
    expect(Object.keys(expected)).toEqual(Object.keys(UserProfile.properties))
    for (const token of [a.accessToken, ta.accessToken]) {
      const res = await t.handle(new Request(`http://slipway.test/v1/users/${a.id}`, { headers: { authorization: `Bearer ${token}` } }))
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/json;charset=utf-8')
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
      expect(await res.text()).toBe(JSON.stringify(expected))
    }
  })

  test('a user reads itself; another user of the tenant or another tenant answers 404', async () => {
    const a = await f.user(tenant)
    const b = await f.user(tenant)
    const c = await f.user(other)
    expect((await f.api.get(`/v1/users/${a.id}`, { token: a.accessToken })).body.username).toBe(a.username)
    expect((await f.api.get(`/v1/users/${b.id}`, { token: a.accessToken })).status).toBe(404)
    expect((await f.api.get(`/v1/users/${c.id}`, { token: ta.accessToken })).status).toBe(404)
    expect((await f.api.get(`/v1/users/${b.id}`, { token: ta.accessToken })).status).toBe(200)
    expect((await f.api.get(`/v1/users/${c.id}?tenantId=${other.id}`, { token: await f.adminToken() })).status).toBe(200)
    for (const path of [`/v1/users/${c.id}/qr-code`, `/v1/users/${c.id}`]) {
      expect((await f.api.get(path, { token: a.accessToken })).status).toBe(404)
    }
    expect((await f.api.put(`/v1/users/${c.id}`, { email: 'x@example.com' }, { token: ta.accessToken })).status).toBe(404)
    expect((await f.api.delete(`/v1/users/${c.id}`, { token: ta.accessToken })).status).toBe(404)
  })

  test('search by username prefix stays inside the tenant and escapes wildcards', async () => {
    const prefix = unique('carol')
    const a = await f.user(tenant, { username: `${prefix}_one` })
    await f.user(other, { username: `${prefix}_two` })
    const res = await f.api.get(`/v1/users/search?username=${prefix}`, { token: a.accessToken })
    expect(res.status).toBe(200)
    expect(res.body.data).toEqual([{ id: a.id, username: a.username, displayName: null }])
    expect((await f.api.get('/v1/users/search?username=%25', { token: a.accessToken })).body.data).toEqual([])
    expect((await f.api.get('/v1/users/search', { token: a.accessToken })).status).toBe(400)
  })

  test('advanced search by username or user id, operators only', async () => {
    const a = await f.user(tenant)
    const byName = await f.api.get(`/v1/users/advanced-search?q=${a.username}`, { token: ta.accessToken })
    expect(byName.body.data.map((u: { id: string }) => u.id)).toEqual([a.id])
    const byId = await f.api.get(`/v1/users/advanced-search?q=${a.id}`, { token: ta.accessToken })
    expect(byId.body.data.map((u: { id: string }) => u.id)).toEqual([a.id])
    expect(byId.body.pagination.total).toBe(1)
    expect((await f.api.get(`/v1/users/advanced-search?q=${a.id}`, { token: a.accessToken })).status).toBe(403)
  })

  test('the QR code route answers the deep link and its PNG', async () => {
    const a = await f.user(tenant)
    const res = await f.api.get(`/v1/users/${a.id}/qr-code`, { token: a.accessToken })
    expect(res.status).toBe(200)
    expect(res.body.deepLink).toBe(`http://slipway.test/send?to=${a.id}&username=${a.username}`)
    expect(res.body.qrCode).toStartWith('data:image/png;base64,')
  })
})

describe('changing users', () => {
  test('PATCH /me changes username and display name; a taken name answers 409', async () => {
    const a = await f.user(tenant)
    const b = await f.user(tenant)
    const name = unique('renamed')
    const res = await f.api.patch('/v1/users/me', { username: name, displayName: 'Alice A.' }, { token: a.accessToken })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ username: name, displayName: 'Alice A.' })
    expect((await f.api.patch('/v1/users/me', { username: b.username }, { token: a.accessToken })).status).toBe(409)
    expect((await f.api.patch('/v1/users/me', {}, { token: a.accessToken })).status).toBe(400)
  })

  test('PATCH /me/fcm-token stores the push token', async () => {
    const a = await f.user(tenant)
    const res = await f.api.patch('/v1/users/me/fcm-token', { token: 'fcm-device-token-1' }, { token: a.accessToken })
    expect(res).toMatchObject({ status: 200, body: { ok: true } })
    expect((await f.api.patch('/v1/users/me/fcm-token', { token: 12 }, { token: a.accessToken })).status).toBe(400)
  })

  test('PUT changes email or password; own password needs the current one', async () => {
    const a = await f.user(tenant)
    expect((await f.api.put(`/v1/users/${a.id}`, {}, { token: a.accessToken })).status).toBe(400)
    const noCurrent = await f.api.put(`/v1/users/${a.id}`, { password: 'Another-1pass' }, { token: a.accessToken })
    expect(noCurrent.status).toBe(422)
    expect(noCurrent.body.details).toEqual([{ path: '/currentPassword', message: 'Current password is incorrect', instancePath: '/currentPassword', schemaPath: '', keyword: 'endpointCheck', params: {} }])
    const email = await f.api.put(`/v1/users/${a.id}`, { email: 'new-address@example.com' }, { token: a.accessToken })
    expect(email.body.email).toBe('new-address@example.com')
    const byOperator = await f.api.put(`/v1/users/${a.id}`, { password: 'Operator-set1' }, { token: ta.accessToken })
    expect(byOperator.status).toBe(200)
    expect((await f.api.post('/v1/auth/login', { username: a.username, password: 'Operator-set1' }, { signedBy: tenant })).status).toBe(200)
  })

  test('DELETE soft-deletes: 204, then 404 on read, the username stays reserved', async () => {
    const a = await f.user(tenant)
    expect((await f.api.delete(`/v1/users/${a.id}`, { token: a.accessToken })).status).toBe(403)
    expect((await f.api.delete(`/v1/users/${a.id}`, { token: ta.accessToken })).status).toBe(204)
    expect((await f.api.get(`/v1/users/${a.id}`, { token: ta.accessToken })).status).toBe(404)
    expect((await f.api.delete(`/v1/users/${a.id}`, { token: ta.accessToken })).status).toBe(404)
    const again = await f.api.post('/v1/auth/register', { username: a.username, email: 'again@example.com', password: 'Passw0rd-x' }, { signedBy: tenant })
    expect(again.status).toBe(409)
  })
})

describe('one active account per email in a tenant', () => {
  // an app of its own: sign-in routes are limited per client address, and the tests above registered many users
  let t: TestApp
  let f: Factory
  let tenant: Tenant
  let ta: SignedInUser
  beforeAll(async () => {
    ;({ t, f, tenant, ta } = await tenantWithOperator())
  })
  afterAll(() => t.close())

  const activeWith = async (email: string) => (await t.deps.database.db.select({ id: users.id }).from(users)
    .where(and(eq(users.scope, tenant.id), eq(users.emailKey, email), eq(users.status, 'active')))).length

  test('two admin creations, two email changes and two registrations racing for one email: one wins, the other answers 409', async () => {
    const created = unique('race') + '@example.com'
    const creations = await Promise.all([1, 2].map(() => f.api.post('/v1/users/', { username: unique('racer'), password: 'whatever8', email: created }, { token: ta.accessToken })))
    expect(creations.map((r) => r.status).sort()).toEqual([201, 409])
    expect(creations.find((r) => r.status === 409)!.body).toMatchObject({ detail: 'Email already registered' })
    expect(await activeWith(created)).toBe(1)

    // a password in the change puts an argon2 hash between the check and the write
    const [a, b] = [await f.user(tenant), await f.user(tenant)]
    const changed = unique('moved') + '@example.com'
    const changes = await Promise.all([a, b].map((u) => f.api.put(`/v1/users/${u.id}`, { email: changed, password: 'Operator-set1' }, { token: ta.accessToken })))
    expect(changes.map((r) => r.status).sort()).toEqual([200, 409])
    // the same answer as when the check before the write finds the email taken
    const loser = changes[0]!.status === 409 ? a : b
    const late = await f.api.put(`/v1/users/${loser.id}`, { email: changed }, { token: ta.accessToken })
    expect(late.status).toBe(409)
    expect(changes.find((r) => r.status === 409)!.body).toEqual(late.body)
    expect(late.body.message).toBe('Email already registered')
    expect(await activeWith(changed)).toBe(1)

    const registered = unique('signup') + '@example.com'
    const signups = await Promise.all([1, 2].map(() => f.api.post('/v1/auth/register', { username: unique('signup'), email: registered, password: 'Sup3rsecret' }, { signedBy: tenant })))
    expect(signups.map((r) => r.status).sort()).toEqual([201, 409])
    expect(signups.find((r) => r.status === 409)!.body).toMatchObject({ error: 'ConflictError', message: 'Email already registered' })
    expect(await activeWith(registered)).toBe(1)
  })

  test('every lookup of an active email searches the unique partial index, not the tenant\'s rows', async () => {
    // the SQL texts the repo prepares, seen at libSQL's prepare (which the statement cache wraps)
    const proto = Database.prototype as unknown as { prepare: (this: unknown, text: string) => unknown }
    const prepare = proto.prepare
    const texts = new Set<string>()
    proto.prepare = function (text: string) {
      texts.add(text)
      return prepare.call(this, text)
    }
    try {
      const db = t.deps.database.db
      await usersRepo.findByEmail(db, tenant.id, 'plan@example.com')
      await usersRepo.emailTaken(db, tenant.id, 'plan@example.com')
      await usersRepo.namesTaken(t.deps.database, tenant.id, 'plan_user', 'plan@example.com')
    } finally {
      proto.prepare = prepare
    }
    const lookups = [...texts].filter((text) => text.includes('"email_key" = ?'))
    expect(lookups.length).toBe(3)
    for (const text of lookups) {
      const plan = await t.deps.database.client.execute({ sql: `EXPLAIN QUERY PLAN ${text}`, args: Array.from(text.matchAll(/\?/g), () => 'x') })
      expect(plan.rows.map((r) => String(r.detail)).join('\n')).toContain('users_scope_active_email_uq')
    }
  })
})
