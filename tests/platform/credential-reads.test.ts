/**
 * The credential reads on a local file (src/db/native-read.ts): the bearer check's user and
 * tenant, and the tenant of an API key, read natively on a second connection. They read the
 * last committed state: a write transaction still open (the user deleted, the tenant
 * disabled, not yet committed) is not seen, and once committed it is refused at once. The
 * rest of tests/platform runs on `:memory:`, where these reads keep the drizzle path.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'

let t: TestApp
let f: Factory
let dir: string
let tenant: Tenant
let user: SignedInUser

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'slipway-credential-reads-'))
  t = await makeApp({ env: { DATABASE_URL: `file:${join(dir, 'slipway.db')}` } })
  f = new Factory(t)
  tenant = await f.tenant()
  // registered with the tenant's signature: the API key read on the reader connection
  user = await f.user(tenant)
})
afterAll(async () => {
  await t.close()
  rmSync(dir, { recursive: true, force: true })
})

const profile = (u: SignedInUser) => f.api.get(`/v1/users/${u.id}`, { token: u.accessToken })

test('a local file has the reader connection, and the bearer read answers through it', async () => {
  expect(t.deps.database.reader).toBeDefined()
  const res = await profile(user)
  expect(res.status).toBe(200)
  expect((res.body as { id: string; status: string }).id).toBe(user.id)
})

test('an open transaction deleting the user is not seen; once committed, the token is refused at once', async () => {
  const other = await f.user(tenant)
  const rolledBack = new Error('rolled back on purpose')
  let during: number | undefined
  await t.deps.database.write(async (tx) => {
    await tx.run(sql`update users set status = 'deleted' where id = ${other.id}`)
    // the same process answers while the transaction is open: the committed row is what counts
    during = (await profile(other)).status
    throw rolledBack
  }).catch((err) => {
    if (err !== rolledBack) throw err
  })
  expect(during).toBe(200)
  expect((await profile(other)).status).toBe(200)
  await t.deps.database.write((tx) => tx.run(sql`update users set status = 'deleted' where id = ${other.id}`))
  expect((await profile(other)).status).toBe(401)
})

test('a tenant disabled and committed refuses its users\' tokens and its API key at once', async () => {
  const other = await f.tenant()
  const member = await f.user(other)
  expect((await profile(member)).status).toBe(200)
  await t.deps.database.write((tx) => tx.run(sql`update tenants set status = 'disabled' where id = ${other.id}`))
  expect((await profile(member)).status).toBe(401)
  const res = await f.api.post('/v1/auth/register', { username: 'after_disable', email: 'after@example.com', password: 'Str0ng-Passw0rd' }, { signedBy: other })
  expect(res.status).toBe(404)
})

test('the caller\'s tenant settings, read and parsed on first use after the native read, are the stored settings, a fresh object per request', async () => {
  const { loadCaller } = await import('@/http/auth')
  const { verifyAccessToken } = await import('@/lib/jwt')
  const { tenants, users } = await import('@/db/schema')
  const { findActor } = await import('@/db/callers')
  const { eq } = await import('drizzle-orm')
  const claims = verifyAccessToken(t.deps.jwtKey, user.accessToken, t.deps.clock.now())!
  const stored = await t.deps.database.db.select({ settings: tenants.settings }).from(tenants).where(eq(tenants.id, tenant.id)).get()
  const first = (await loadCaller(t.deps, claims))!.tenant!
  const second = (await loadCaller(t.deps, claims))!.tenant!
  expect(first.settings).toEqual(stored!.settings)
  expect(first.settings).toBe(first.settings)
  expect(second.settings).not.toBe(first.settings)
  // spread and serialised as a plain object would be
  expect({ ...first }).toEqual({ id: tenant.id, name: first.name, settings: stored!.settings })
  expect(JSON.parse(JSON.stringify(first)).settings).toEqual(stored!.settings)
  first.settings = { replaced: true }
  expect(first.settings).toEqual({ replaced: true })
  // left out of the credential read: read when first used, so a change committed in between is what is read
  const third = (await loadCaller(t.deps, claims))!.tenant!
  const changed = { ...stored!.settings, marker: 'committed after the credential read' }
  await t.deps.database.write((tx) => tx.update(tenants).set({ settings: changed }).where(eq(tenants.id, tenant.id)))
  expect(third.settings).toEqual(changed)
  await t.deps.database.write((tx) => tx.update(tenants).set({ settings: stored!.settings }).where(eq(tenants.id, tenant.id)))
  // a platform admin has no tenant, so nothing to read later
  const admin = await t.deps.database.db.select({ id: users.id }).from(users).where(eq(users.role, 'admin')).get()
  expect((await findActor(t.deps.database, admin!.id))!.tenantSettings).toBeNull()
})

test('a route that reads the tenant\'s settings answers from them on the native path', async () => {
  // the MPC configuration is built from the tenant's settings (walletMode, chains)
  const res = await f.api.get('/v1/mpc/config', { token: user.accessToken })
  expect(res.status).toBe(200)
  expect(res.body).toMatchObject({ enabled: false })
  expect((res.body as { chains: string[] }).chains.length).toBeGreaterThan(0)
})

test('the native decoder builds the same row as drizzle: nested columns, JSON, nulls, fields in order', async () => {
  const { rowDecoder } = await import('@/db/native-read')
  const { tenants, users } = await import('@/db/schema')
  const { eq } = await import('drizzle-orm')
  const db = t.deps.database.db
  const query = () => db
    .select({ user: users, tenantStatus: tenants.status, tenant: { id: tenants.id, settings: tenants.settings, createdAt: tenants.createdAt } })
    .from(users).leftJoin(tenants, eq(tenants.id, users.tenantId)).where(eq(users.id, user.id))
  const viaDrizzle = await query().get()
  const raw = t.deps.database.reader!().prepare(query().toSQL().sql).raw(true).get(user.id)
  const decoded = rowDecoder(query())(raw!) as typeof viaDrizzle
  expect(decoded).toEqual(viaDrizzle)
  expect(Object.keys(decoded!)).toEqual(['user', 'tenantStatus', 'tenant'])
  expect(Object.keys(decoded!.user)).toEqual(Object.keys(viaDrizzle!.user))
  expect(typeof decoded!.user.createdAt).toBe('number')
  expect(decoded!.tenant!.settings).toEqual(viaDrizzle!.tenant!.settings)
  // a column left as the driver gives it when asked (`undecoded`), and nulls kept as null
  const asText = rowDecoder(query(), ['tenantStatus'])(raw!) as Record<string, unknown>
  expect(asText.tenantStatus).toBe('active')
  const withNulls = rowDecoder(query())(raw!.map(() => null)) as { user: Record<string, unknown>; tenantStatus: unknown }
  expect(Object.values(withNulls.user).every((v) => v === null)).toBe(true)
  expect(withNulls.tenantStatus).toBeNull()
})
