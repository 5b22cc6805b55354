/**
 * Passkeys in process, with a software authenticator (tests/helpers/soft-authenticator.ts):
 * the sign-in's rate limit, unreadable responses, challenges of another ceremony, the settings'
 * validation and the activity log. The browser tests cover the ceremonies in Chromium.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type Tenant } from '@tests/helpers/factories'
import { SoftAuthenticator } from '@tests/helpers/soft-authenticator'

const ORIGIN = 'https://app.example'
let t: TestApp
let f: Factory
let tenant: Tenant

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  tenant = await f.tenant({ passkeys: { rpId: 'app.example', origins: [ORIGIN] } })
})
afterAll(() => t.close())

async function withPasskey() {
  const u = await f.user(tenant)
  const device = new SoftAuthenticator()
  const options = await f.api.post('/v1/passkeys/registration/options', {}, { token: u.accessToken })
  const created = await f.api.post('/v1/passkeys/registration/verify', { response: device.create(options.body, ORIGIN), name: 'Soft key' }, { token: u.accessToken })
  expect(created.status).toBe(201)
  return { u, device, passkey: created.body }
}

describe('passkeys in process', () => {
  test('adding and removing a passkey is in the tenant\'s activity log', async () => {
    const { u, passkey } = await withPasskey()
    expect((await f.api.delete(`/v1/passkeys/${passkey.id}`, { token: u.accessToken })).status).toBe(200)
    const log = await f.api.get(`/v1/admin/tenants/${tenant.id}/activity`, { token: await f.adminToken() })
    const mine = log.body.data.filter((e: { targetId: string }) => e.targetId === u.id).map((e: { action: string }) => e.action)
    expect(mine).toEqual(['user.passkey_removed', 'user.passkey_added'])
  })

  test('an unreadable response is refused with a code, never a 500; so is a challenge of another ceremony', async () => {
    const { u, device } = await withPasskey()
    const options = await f.api.post('/v1/auth/passkey/options', {}, { signedBy: tenant })
    const good = device.get(options.body, ORIGIN)
    const garbled = { ...good, response: { ...good.response, clientDataJSON: 'bm90LWpzb24' } }
    const res = await f.api.post('/v1/auth/passkey/verify', { response: garbled }, { signedBy: tenant })
    expect(res.status).toBe(401)
    expect(res.body.code).toBe('PASSKEY_RESPONSE_INVALID')
    // an approval's challenge answered at the sign-in
    const approval = await f.api.post('/v1/passkeys/approvals/options', { operation: 'key_export', method: 'POST', path: '/v1/wallets/export-key', bodyHash: '0'.repeat(64) }, { token: u.accessToken })
    const crossed = await f.api.post('/v1/auth/passkey/verify', { response: device.get(approval.body, ORIGIN) }, { signedBy: tenant })
    expect(crossed.status).toBe(401)
    expect(crossed.body.code).toBe('PASSKEY_CHALLENGE_UNKNOWN')
    // a sign-in's challenge answered at an approval
    const signIn = await f.api.post('/v1/auth/passkey/options', {}, { signedBy: tenant })
    const asApproval = await f.api.post('/v1/passkeys/approvals/verify', { response: device.get(signIn.body, ORIGIN) }, { token: u.accessToken })
    expect(asApproval.status).toBe(400)
    expect(asApproval.body.code).toBe('PASSKEY_CHALLENGE_UNKNOWN')
  })

  test('a challenge named for one user is not answered by another user\'s passkey', async () => {
    const alice = await withPasskey()
    const bob = await withPasskey()
    const options = await f.api.post('/v1/auth/passkey/options', { username: alice.u.username }, { signedBy: tenant })
    const res = await f.api.post('/v1/auth/passkey/verify', { response: bob.device.get({ ...options.body, rpId: 'app.example' }, ORIGIN) }, { signedBy: tenant })
    expect(res.status).toBe(401)
    expect(res.body.code).toBe('PASSKEY_CREDENTIAL_UNKNOWN')
  })

  test('the passkey sign-in has the password sign-in\'s limit: 20 a minute per client IP, options and verification together', async () => {
    const other = await makeApp()
    try {
      const g = new Factory(other)
      const tn = await g.tenant({ passkeys: { rpId: 'app.example', origins: [ORIGIN] } })
      const answers: number[] = []
      for (let i = 0; i < 21; i++) answers.push((await g.api.post('/v1/auth/passkey/options', {}, { signedBy: tn })).status)
      expect(answers.slice(0, 20).every((s) => s === 200)).toBe(true)
      expect(answers[20]).toBe(429)
      expect((await g.api.post('/v1/auth/passkey/verify', { response: new SoftAuthenticator().create({ challenge: 'x', rp: { id: 'a' }, user: { id: 'u' } }, ORIGIN) }, { signedBy: tn })).status).toBe(429)
    } finally {
      await other.close()
    }
  })

  test('the settings refuse a relying party id or an origin that is not one, or origins outside the relying party', async () => {
    const admin = await f.adminToken()
    for (const passkeys of [{ rpId: 'https://app.example' }, { origins: ['https://app.example/path'] }, { stepUp: { operations: ['everything'] } }, { stepUp: { amountAbove: '1.5' } }]) {
      const res = await f.api.patch(`/v1/admin/tenants/${tenant.id}`, { passkeys }, { token: admin })
      expect(res.status, JSON.stringify(passkeys)).toBe(400)
    }
    // an origin a browser could not use with the relying party: 422 naming it
    const outside = await f.api.patch(`/v1/admin/tenants/${tenant.id}`, { passkeys: { rpId: 'other.example' } }, { token: admin })
    expect(outside.status).toBe(422)
    expect(outside.body.details).toMatchObject([{ path: '/passkeys/origins/0', message: 'https://app.example is not on other.example or a subdomain of it' }])
  })
})
