import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { unique, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { linkIn, tokenOf } from '@tests/fakes/smtp'
import { activityLog } from '@/db/schema'
import { makeWorld, resetOn, socialOnlyUser, type World } from './world'

let w: World
let tenant: Tenant
let other: Tenant
let tadmin: SignedInUser

beforeAll(async () => {
  w = await makeWorld()
  tenant = await w.f.tenant(resetOn())
  other = await w.f.tenant(resetOn())
  tadmin = await w.f.tenantAdmin(tenant)
})
afterAll(() => w.close())
beforeEach(() => w.t.deps.rateLimiter.reset())

const send = (body: Record<string, unknown>, token?: string) => w.f.api.post('/v1/auth/admin/send-reset', body, { token })

describe('POST /v1/auth/admin/send-reset', () => {
  test('a tenantadmin sends a working link to a user of its tenant; the send is in the activity log', async () => {
    const u = await w.f.user(tenant)
    const res = await send({ userId: u.id }, tadmin.accessToken)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ ok: true, sent: true })
    const [mail] = await w.smtp.waitFor(u.email)
    const token = tokenOf(linkIn(mail!))
    const reset = await w.f.api.post('/v1/auth/reset-password', { token, newPassword: 'Operator-Sent1' })
    expect(reset.status).toBe(200)
    expect(reset.body.userId).toBe(u.id)
    const log = await w.t.deps.database.db.select().from(activityLog)
    const entry = log.find((e) => e.action === 'user.password_reset.sent' && e.targetId === u.id)
    expect(entry?.actorId).toBe(tadmin.id)
    expect(JSON.stringify(log)).not.toContain(token)
  })

  test('a platform admin names the tenant; without tenantId it answers 400 the error envelope', async () => {
    const u = await w.f.user(other)
    const admin = await w.f.adminToken()
    const missing = await send({ userId: u.id }, admin)
    expect(missing.status).toBe(400)
    expect(missing.body).toMatchObject({ message: 'tenantId is required for platform admins' })
    const ok = await send({ userId: u.id, tenantId: other.id, locale: 'it' }, admin)
    expect(ok.body).toEqual({ ok: true, sent: true })
    const [mail] = await w.smtp.waitFor(u.email)
    expect(mail!.subject).toBe('Reimposta la password di Acme Wallet')
  })

  test('a tenantadmin cannot reach another tenant\'s users: 404 the error envelope', async () => {
    const stranger = await w.f.user(other)
    const byId = await send({ userId: stranger.id }, tadmin.accessToken)
    expect(byId.status).toBe(404)
    expect(byId.body).toMatchObject({ message: 'User not found' })
    const byTenant = await send({ userId: stranger.id, tenantId: other.id }, tadmin.accessToken)
    expect(byTenant.status).toBe(404)
    expect(Object.keys(byTenant.body).sort()).toEqual(expect.arrayContaining(['error', 'message', 'statusCode']))
    await Bun.sleep(150)
    expect(w.smtp.to(stranger.email)).toHaveLength(0)
  })

  test('a plain user is refused with 403 the error envelope; no token answers 401 the error envelope', async () => {
    const u = await w.f.user(tenant)
    const forbidden = await send({ userId: u.id }, u.accessToken)
    expect(forbidden.status).toBe(403)
    expect(forbidden.body).toMatchObject({ message: 'Forbidden' })
    const anonymous = await send({ userId: u.id })
    expect(anonymous.status).toBe(401)
    expect(Object.keys(anonymous.body).sort()).toEqual(expect.arrayContaining(['error', 'message', 'statusCode']))
  })

  test('404 the error envelope when the tenant has not enabled password reset', async () => {
    const off = await w.f.tenant()
    const u = await w.f.user(off)
    const res = await send({ userId: u.id, tenantId: off.id }, await w.f.adminToken())
    expect(res.status).toBe(404)
    expect(res.body).toMatchObject({ message: 'Password reset is not enabled for this tenant' })
  })

  test('a disabled tenant answers 404', async () => {
    const tn = await w.f.tenant(resetOn())
    const u = await w.f.user(tn)
    const admin = await w.f.adminToken()
    expect((await w.f.api.patch(`/v1/admin/tenants/${tn.id}`, { status: 'disabled' }, { token: admin })).status).toBe(200)
    const res = await send({ userId: u.id, tenantId: tn.id }, admin)
    expect(res.status).toBe(404)
    expect(Object.keys(res.body).sort()).toEqual(expect.arrayContaining(['error', 'message', 'statusCode']))
  })

  test('unknown, malformed and deleted users answer 404; a user without email answers 400', async () => {
    expect((await send({ userId: crypto.randomUUID() }, tadmin.accessToken)).status).toBe(404)
    expect((await send({ userId: 'not-a-uuid' }, tadmin.accessToken)).status).toBe(404)
    const gone = await w.f.user(tenant)
    const admin = await w.f.adminToken()
    expect((await w.f.api.delete(`/v1/users/${gone.id}?tenantId=${tenant.id}`, { token: admin })).status).toBeLessThan(300)
    expect((await send({ userId: gone.id }, tadmin.accessToken)).status).toBe(404)
    const username = unique('nomail')
    const created = await w.f.api.post('/v1/users/', { username, password: 'Passw0rd-long' }, { token: tadmin.accessToken })
    expect(created.status).toBe(201)
    const noEmail = await send({ userId: created.body.id }, tadmin.accessToken)
    expect(noEmail.status).toBe(400)
    expect(noEmail.body).toMatchObject({ message: 'The user has no email address' })
    expect((await send({}, tadmin.accessToken)).status).toBe(400)
  })

  test('a social-only user is sent the social sign-in email', async () => {
    const email = `${unique('soc')}@example.com`
    const u = await socialOnlyUser(w, tenant, email)
    expect((await send({ userId: u.id }, tadmin.accessToken)).status).toBe(200)
    const [mail] = await w.smtp.waitFor(email)
    expect(mail!.subject).toBe('How to sign in to Acme Wallet')
  })
})
