/**
 * The step-up guard on the other routes it covers, with passkeys held by Chromium's virtual
 * authenticator: email and password changes, removing a passkey, sends above the tenant's
 * amount, bank payouts, agent API keys; and the passkey list, rename and delete rules.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { chromiumAvailable as available, warnIfNoChromium } from '@tests/helpers/browser'
import type { Tenant } from '@tests/helpers/factories'
import { approvalFor, makeWorld, openDevice, registerPasskey, type Device, type World } from './world'

warnIfNoChromium('passkey step-up tests')

let w: World
let strict: Tenant
let d: Device

beforeAll(async () => {
  if (!available) return
  w = await makeWorld()
  strict = await w.f.tenant({
    passkeys: {
      rpId: 'app.localhost', origins: [`http://app.localhost:${w.port}`],
      stepUp: { operations: ['email_change', 'sign_in_method', 'send', 'payout', 'agent_api_key', 'agent_execution_approval'], amountAbove: '1000' },
    },
  })
})
// a fresh tab and virtual authenticator for each test
beforeEach(async () => {
  if (available) d = await openDevice(w)
})
afterEach(async () => {
  if (available) await d?.close()
})
afterAll(async () => {
  if (!available) return
  await w?.close()
})

const randomKey = () => `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}`

describe.skipIf(!available)('step-up on the guarded routes', () => {
  test('an email change needs an approval for its body; a user without a passkey changes it freely', async () => {
    const plain = await w.f.user(strict)
    const free = await w.f.api.put(`/v1/users/${plain.id}`, { email: `new-${plain.id}@example.com` }, { token: plain.accessToken })
    expect(free.status).toBe(200)

    const u = await w.f.user(strict)
    await registerPasskey(w, d, u.accessToken)
    const raw = JSON.stringify({ email: `changed-${u.id}@example.com` })
    const bare = await w.f.api.put(`/v1/users/${u.id}`, undefined, { token: u.accessToken, raw })
    expect(bare.status).toBe(403)
    expect(bare.body.code).toBe('PASSKEY_APPROVAL_REQUIRED')
    // an approval for another path (another user's id) does not fit
    const elsewhere = await approvalFor(w, d, u.accessToken, 'email_change', 'PUT', `/v1/users/${plain.id}`, raw)
    const wrongPath = await w.f.api.put(`/v1/users/${u.id}`, undefined, { token: u.accessToken, raw, headers: { 'passkey-approval': elsewhere } })
    expect(wrongPath.body.code).toBe('PASSKEY_APPROVAL_INVALID')
    const approval = await approvalFor(w, d, u.accessToken, 'email_change', 'PUT', `/v1/users/${u.id}`, raw)
    const ok = await w.f.api.put(`/v1/users/${u.id}`, undefined, { token: u.accessToken, raw, headers: { 'passkey-approval': approval } })
    expect(ok.status).toBe(200)
    expect(ok.body.email).toBe(`changed-${u.id}@example.com`)
  })

  test('a password change is a sign-in method change: an approval for email_change does not do', async () => {
    const u = await w.f.user(strict)
    await registerPasskey(w, d, u.accessToken)
    const raw = JSON.stringify({ password: 'Another-passw0rd', currentPassword: u.password })
    const asEmail = await approvalFor(w, d, u.accessToken, 'email_change', 'PUT', `/v1/users/${u.id}`, raw)
    const refused = await w.f.api.put(`/v1/users/${u.id}`, undefined, { token: u.accessToken, raw, headers: { 'passkey-approval': asEmail } })
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('PASSKEY_APPROVAL_INVALID')
    const approval = await approvalFor(w, d, u.accessToken, 'sign_in_method', 'PUT', `/v1/users/${u.id}`, raw)
    const ok = await w.f.api.put(`/v1/users/${u.id}`, undefined, { token: u.accessToken, raw, headers: { 'passkey-approval': approval } })
    expect(ok.status).toBe(200)
  })

  test('removing a passkey needs an approval (empty body); the last way to sign in cannot be removed', async () => {
    const u = await w.f.user(strict)
    const p = await registerPasskey(w, d, u.accessToken)
    const bare = await w.f.api.delete(`/v1/passkeys/${p.id}`, { token: u.accessToken })
    expect(bare.body.code).toBe('PASSKEY_APPROVAL_REQUIRED')
    // the account loses its password (as a Google-only account has none): the passkey is its last sign-in method
    await w.t.deps.database.write((tx) => tx.run(sql`update users set password_hash = null where id = ${u.id}`))
    const last = await w.f.api.delete(`/v1/passkeys/${p.id}`, { token: u.accessToken, headers: { 'passkey-approval': await approvalFor(w, d, u.accessToken, 'sign_in_method', 'DELETE', `/v1/passkeys/${p.id}`, '') } })
    expect(last.status).toBe(409)
    expect(last.body.code).toBe('PASSKEY_LAST_SIGN_IN_METHOD')
    expect((await w.f.api.get('/v1/passkeys', { token: u.accessToken })).body.data).toHaveLength(1)
  })

  test('a send above the tenant\'s amount needs an approval; one at or under it does not', async () => {
    const u = await w.f.user(strict)
    await registerPasskey(w, d, u.accessToken)
    const wallet = (await w.f.api.post('/v1/wallets/import', { chain: 'ethereum', privateKey: randomKey() }, { token: u.accessToken })).body
    const send = (amount: string, headers: Record<string, string> = {}) => w.f.api.post('/v1/transactions', undefined, {
      token: u.accessToken, headers, raw: JSON.stringify({ walletId: wallet.id, chain: 'sepolia', toAddress: '0x000000000000000000000000000000000000dEaD', amount }),
    })
    const small = await send('1000')
    // past the guard: the send itself answers (no node is reachable in this test)
    expect(small.body.code ?? '').not.toStartWith('PASSKEY_')
    const big = await send('1001')
    expect(big.status).toBe(403)
    expect(big.body.code).toBe('PASSKEY_APPROVAL_REQUIRED')
    const raw = JSON.stringify({ walletId: wallet.id, chain: 'sepolia', toAddress: '0x000000000000000000000000000000000000dEaD', amount: '1001' })
    const approved = await send('1001', { 'passkey-approval': await approvalFor(w, d, u.accessToken, 'send', 'POST', '/v1/transactions', raw) })
    expect(approved.body.code ?? '').not.toStartWith('PASSKEY_')
  })

  test('a bank payout above the amount needs an approval', async () => {
    const u = await w.f.user(strict)
    await registerPasskey(w, d, u.accessToken)
    const body = { channelId: crypto.randomUUID(), walletId: crypto.randomUUID(), cryptoAmount: '25000000', isTestnet: true }
    const res = await w.f.api.post('/v1/ramp/bank/payout/initiate', body, { token: u.accessToken })
    expect(res.status).toBe(403)
    expect(res.body.code).toBe('PASSKEY_APPROVAL_REQUIRED')
    const quote = await w.f.api.post('/v1/ramp/bank/payout/payouts', { quoteId: crypto.randomUUID(), isTestnet: true }, { token: u.accessToken })
    expect(quote.body.code).toBe('PASSKEY_APPROVAL_REQUIRED')
  })

  test('an operator with a passkey creates an agent API key only with an approval', async () => {
    const admin = await w.f.tenantAdmin(strict)
    await registerPasskey(w, d, admin.accessToken)
    const owner = await w.f.user(strict)
    const wallet = (await w.f.api.post('/v1/wallets/import', { chain: 'ethereum', privateKey: randomKey() }, { token: owner.accessToken })).body
    const agent = await w.f.api.post('/v1/agent-payments/agents', { name: 'booker', walletId: wallet.id }, { token: admin.accessToken })
    expect(agent.status, agent.text).toBe(201)
    const path = `/v1/agent-payments/agents/${agent.body.id}/api-keys`
    const raw = JSON.stringify({ name: 'worker' })
    const bare = await w.f.api.post(path, undefined, { token: admin.accessToken, raw })
    expect(bare.status).toBe(403)
    expect(bare.body.code).toBe('PASSKEY_APPROVAL_REQUIRED')
    const ok = await w.f.api.post(path, undefined, { token: admin.accessToken, raw, headers: { 'passkey-approval': await approvalFor(w, d, admin.accessToken, 'agent_api_key', 'POST', path, raw) } })
    expect(ok.status, ok.text).toBe(201)
  })

  test('approving an agent\'s execution needs an approval: the guard answers before the approval is looked up', async () => {
    const admin = await w.f.tenantAdmin(strict)
    await registerPasskey(w, d, admin.accessToken)
    const path = `/v1/agent-payments/approvals/${crypto.randomUUID()}/approve`
    const raw = JSON.stringify({})
    const bare = await w.f.api.post(path, undefined, { token: admin.accessToken, raw })
    expect(bare.status).toBe(403)
    expect(bare.body.code).toBe('PASSKEY_APPROVAL_REQUIRED')
    const wrongKind = await approvalFor(w, d, admin.accessToken, 'agent_api_key', 'POST', path, raw)
    const refused = await w.f.api.post(path, undefined, { token: admin.accessToken, raw, headers: { 'passkey-approval': wrongKind } })
    expect(refused.body.code).toBe('PASSKEY_APPROVAL_INVALID')
    // with the right approval the route goes on to its own answer: no such approval here
    const approval = await approvalFor(w, d, admin.accessToken, 'agent_execution_approval', 'POST', path, raw)
    const passed = await w.f.api.post(path, undefined, { token: admin.accessToken, raw, headers: { 'passkey-approval': approval } })
    expect(passed.status, passed.text).toBe(404)
  })
})

describe.skipIf(!available)('a user\'s passkeys', () => {
  test('list, rename; another user\'s or another tenant\'s passkey id answers 404', async () => {
    const u = await w.f.user(w.a)
    const p = await registerPasskey(w, d, u.accessToken, 'Laptop')
    const renamed = await w.f.api.patch(`/v1/passkeys/${p.id}`, { name: 'Work laptop' }, { token: u.accessToken })
    expect(renamed.status).toBe(200)
    expect(renamed.body.name).toBe('Work laptop')
    const list = await w.f.api.get('/v1/passkeys', { token: u.accessToken })
    expect(list.body.data.map((x: { id: string; name: string }) => [x.id, x.name])).toEqual([[p.id, 'Work laptop']])
    const other = await w.f.user(w.a)
    const foreign = await w.f.user(w.b)
    for (const token of [other.accessToken, foreign.accessToken]) {
      expect((await w.f.api.patch(`/v1/passkeys/${p.id}`, { name: 'mine' }, { token })).status).toBe(404)
      expect((await w.f.api.delete(`/v1/passkeys/${p.id}`, { token })).status).toBe(404)
    }
    expect((await w.f.api.patch(`/v1/passkeys/${p.id}`, { name: '' }, { token: u.accessToken })).status).toBe(400)
    // tenant A does not guard sign-in methods: deleting needs no approval, and the password remains
    expect((await w.f.api.delete(`/v1/passkeys/${p.id}`, { token: u.accessToken })).status).toBe(200)
    expect((await w.f.api.get('/v1/passkeys', { token: u.accessToken })).body.data).toEqual([])
  })

  test('a tenant without a relying party answers PASSKEYS_NOT_CONFIGURED', async () => {
    const bare = await w.f.tenant()
    const u = await w.f.user(bare)
    const res = await w.f.api.post('/v1/passkeys/registration/options', {}, { token: u.accessToken })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('PASSKEYS_NOT_CONFIGURED')
    const signIn = await w.f.api.post('/v1/auth/passkey/options', {}, { signedBy: bare })
    expect(signIn.status).toBe(401)
    expect(signIn.body.code).toBe('PASSKEYS_NOT_CONFIGURED')
  })
})
