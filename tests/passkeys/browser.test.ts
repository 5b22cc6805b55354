/**
 * Passkeys in real headless Chromium (Debian's `chromium`, driven by playwright-core) with a CDP
 * virtual authenticator: register on the tenant's page, sign in without a username, export a key
 * behind a fresh approval, and every refusal with its code, from responses the authenticator made.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { x25519 } from '@noble/curves/ed25519'
import { chromiumAvailable as available, warnIfNoChromium } from '@tests/helpers/browser'
import { openEnvelope } from '@tests/wallets/envelope'
import { ceremony, makeWorld, openDevice, registerPasskey, signInAssertion, type World } from './world'

warnIfNoChromium('passkey browser tests')

const HARDHAT_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
let w: World

beforeAll(async () => {
  if (available) w = await makeWorld()
})
afterAll(async () => {
  if (available) await w?.close()
})

describe.skipIf(!available)('passkeys in Chromium', () => {
  test('register a passkey on the tenant\'s page, then sign in with it without a username: a session like the password sign-in\'s', async () => {
    const u = await w.f.user(w.a)
    const d = await openDevice(w)
    try {
      const out = await d.page.evaluate(async (token) => {
        const { api, SW } = window as any
        const options = await api('POST', '/v1/passkeys/registration/options', {}, { token })
        const created = await SW.startRegistration({ optionsJSON: options.body })
        const registered = await api('POST', '/v1/passkeys/registration/verify', { response: created, name: 'Chromium' }, { token })
        const signInOptions = await api('POST', '/v1/auth/passkey/options', {}, { signed: true })
        const assertion = await SW.startAuthentication({ optionsJSON: signInOptions.body })
        const session = await api('POST', '/v1/auth/passkey/verify', { response: assertion }, { signed: true })
        return { options: options.body, registered, signInOptions: signInOptions.body, session }
      }, u.accessToken)
      expect(out.options.rp).toEqual({ id: 'app.localhost', name: expect.any(String) })
      expect(out.options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' })
      expect(out.registered.status).toBe(201)
      expect(out.registered.body).toMatchObject({ name: 'Chromium', rpId: 'app.localhost', lastUsedAt: null })
      // discoverable: no credential listed, the authenticator chose it and its user handle named the user
      expect(out.signInOptions.allowCredentials).toEqual([])
      expect(out.session.status).toBe(200)
      expect(out.session.body.user.id).toBe(u.id)
      const me = await w.f.api.get(`/v1/users/${u.id}`, { token: out.session.body.accessToken })
      expect(me.status).toBe(200)
      const refreshed = await w.f.api.post('/v1/auth/refresh', { refreshToken: out.session.body.refreshToken })
      expect(refreshed.status).toBe(200)
      const list = await w.f.api.get('/v1/passkeys', { token: u.accessToken })
      expect(list.body.data).toHaveLength(1)
      expect(list.body.data[0].lastUsedAt).not.toBeNull()
    } finally {
      await d.close()
    }
  })

  test('sign in naming the username lists that user\'s passkeys', async () => {
    const u = await w.f.user(w.a)
    const d = await openDevice(w)
    try {
      const p = await registerPasskey(w, d, u.accessToken)
      const options = await w.f.api.post('/v1/auth/passkey/options', { username: u.username }, { signedBy: w.a })
      expect(options.body.allowCredentials.map((c: { id: string }) => c.id)).toEqual([p.credentialId])
      const assertion = await ceremony(d, 'get', options.body)
      const session = await w.f.api.post('/v1/auth/passkey/verify', { response: assertion }, { signedBy: w.a })
      expect(session.status, session.text).toBe(200)
      expect(session.body.user.id).toBe(u.id)
    } finally {
      await d.close()
    }
  })

  test('key export needs a fresh approval for its exact body; one made for another body is refused', async () => {
    const u = await w.f.user(w.a)
    const d = await openDevice(w)
    try {
      await registerPasskey(w, d, u.accessToken)
      const wallet = (await w.f.api.post('/v1/wallets/import', { chain: 'ethereum', privateKey: HARDHAT_KEY }, { token: u.accessToken })).body
      const exportToken = async () => (await w.f.api.post('/v1/wallets/request-export-token', { walletId: wallet.id, password: u.password }, { token: u.accessToken })).body.exportToken
      const clientPriv = x25519.utils.randomPrivateKey()
      const body = JSON.stringify({ walletId: wallet.id, exportToken: await exportToken(), clientPublicKey: Buffer.from(x25519.getPublicKey(clientPriv)).toString('base64') })

      const bare = await w.f.api.post('/v1/wallets/export-key', undefined, { token: u.accessToken, raw: body })
      expect(bare.status).toBe(403)
      expect(bare.body.code).toBe('PASSKEY_APPROVAL_REQUIRED')

      // the page approves another body (another client key): refused for this one
      const otherBody = JSON.stringify({ ...JSON.parse(body), clientPublicKey: Buffer.from(x25519.getPublicKey(x25519.utils.randomPrivateKey())).toString('base64') })
      const approveIn = (raw: string) => d.page.evaluate(async ({ token, raw }) => {
        const { api, SW } = window as any
        const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(raw))
        const bodyHash = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
        const options = await api('POST', '/v1/passkeys/approvals/options', { operation: 'key_export', method: 'POST', path: '/v1/wallets/export-key', bodyHash }, { token })
        const assertion = await SW.startAuthentication({ optionsJSON: options.body })
        return api('POST', '/v1/passkeys/approvals/verify', { response: assertion }, { token })
      }, { token: u.accessToken, raw })
      const wrong = await approveIn(otherBody)
      expect(wrong.status).toBe(200)
      const mismatched = await w.f.api.post('/v1/wallets/export-key', undefined, { token: u.accessToken, raw: body, headers: { 'passkey-approval': wrong.body.approval } })
      expect(mismatched.status).toBe(403)
      expect(mismatched.body.code).toBe('PASSKEY_APPROVAL_INVALID')

      const approval = await approveIn(body)
      expect(approval.body).toMatchObject({ operation: 'key_export', expiresIn: 120 })
      const exported = await w.f.api.post('/v1/wallets/export-key', undefined, { token: u.accessToken, raw: body, headers: { 'passkey-approval': approval.body.approval } })
      expect(exported.status).toBe(200)
      expect(openEnvelope(clientPriv, exported.body.envelope)).toBe(HARDHAT_KEY)

      // single use: the same approval on a new export (new token, so new body) and on the same body again
      const again = await w.f.api.post('/v1/wallets/export-key', undefined, { token: u.accessToken, raw: body, headers: { 'passkey-approval': approval.body.approval } })
      expect(again.status).toBe(403)
      expect(again.body.code).toBe('PASSKEY_APPROVAL_INVALID')
    } finally {
      await d.close()
    }
  })

  test('a user without a passkey exports as before; with requirePasskey the tenant refuses them', async () => {
    const strict = await w.f.tenant({ passkeys: { rpId: 'app.localhost', origins: [`http://app.localhost:${w.port}`], stepUp: { operations: ['key_export'], requirePasskey: true } } })
    for (const [tenant, expected] of [[w.a, 200], [strict, 403]] as const) {
      const u = await w.f.user(tenant)
      const privateKey = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}`
      const wallet = (await w.f.api.post('/v1/wallets/import', { chain: 'ethereum', privateKey }, { token: u.accessToken })).body
      const tok = (await w.f.api.post('/v1/wallets/request-export-token', { walletId: wallet.id, password: u.password }, { token: u.accessToken })).body.exportToken
      const pub = Buffer.from(x25519.getPublicKey(x25519.utils.randomPrivateKey())).toString('base64')
      const res = await w.f.api.post('/v1/wallets/export-key', { walletId: wallet.id, exportToken: tok, clientPublicKey: pub }, { token: u.accessToken })
      expect(res.status, res.text).toBe(expected)
      if (expected === 403) expect(res.body.code).toBe('PASSKEY_REQUIRED')
    }
  })

  describe('refusals, each with its code', () => {
    test('a registration made on another origin', async () => {
      const u = await w.f.user(w.a)
      const d = await openDevice(w, 'b.localhost')
      try {
        const options = await w.f.api.post('/v1/passkeys/registration/options', {}, { token: u.accessToken })
        // the page on b.localhost can only use its own host as relying party
        const response = await ceremony(d, 'create', options.body, { rp: { id: 'b.localhost', name: 'elsewhere' } })
        const res = await w.f.api.post('/v1/passkeys/registration/verify', { response }, { token: u.accessToken })
        expect(res.status).toBe(400)
        expect(res.body.code).toBe('PASSKEY_ORIGIN_NOT_ALLOWED')
        expect((await w.f.api.get('/v1/passkeys', { token: u.accessToken })).body.data).toEqual([])
      } finally {
        await d.close()
      }
    })

    test('a replayed assertion', async () => {
      const u = await w.f.user(w.a)
      const d = await openDevice(w)
      try {
        await registerPasskey(w, d, u.accessToken)
        const assertion = await signInAssertion(w, d, w.a)
        expect((await w.f.api.post('/v1/auth/passkey/verify', { response: assertion }, { signedBy: w.a })).status).toBe(200)
        const replay = await w.f.api.post('/v1/auth/passkey/verify', { response: assertion }, { signedBy: w.a })
        expect(replay.status).toBe(401)
        expect(replay.body.code).toBe('PASSKEY_ASSERTION_REPLAYED')
      } finally {
        await d.close()
      }
    })

    test('a counter that went backwards (the authenticator restored to an older copy of its credential)', async () => {
      const u = await w.f.user(w.a)
      const d = await openDevice(w)
      try {
        await registerPasskey(w, d, u.accessToken)
        const { credentials } = await d.cdp.send('WebAuthn.getCredentials', { authenticatorId: d.authenticatorId })
        expect(credentials).toHaveLength(1)
        const copy = credentials[0]!
        for (let i = 0; i < 2; i++) {
          const ok = await w.f.api.post('/v1/auth/passkey/verify', { response: await signInAssertion(w, d, w.a) }, { signedBy: w.a })
          expect(ok.status).toBe(200)
        }
        const seen = (await w.f.api.get('/v1/passkeys', { token: u.accessToken })).body.data[0].counter
        expect(seen).toBeGreaterThan(copy.signCount)
        // a clone: the same key with the counter it had before the two sign-ins
        await d.cdp.send('WebAuthn.removeCredential', { authenticatorId: d.authenticatorId, credentialId: copy.credentialId })
        await d.cdp.send('WebAuthn.addCredential', { authenticatorId: d.authenticatorId, credential: copy })
        const cloned = await w.f.api.post('/v1/auth/passkey/verify', { response: await signInAssertion(w, d, w.a) }, { signedBy: w.a })
        expect(cloned.status).toBe(401)
        expect(cloned.body.code).toBe('PASSKEY_COUNTER_REGRESSED')
      } finally {
        await d.close()
      }
    })

    test('an expired challenge', async () => {
      const u = await w.f.user(w.a)
      const d = await openDevice(w)
      try {
        await registerPasskey(w, d, u.accessToken)
        const assertion = await signInAssertion(w, d, w.a)
        w.clock.advance(5 * 60 * 1000 + 1)
        const late = await w.f.api.post('/v1/auth/passkey/verify', { response: assertion }, { signedBy: w.a })
        expect(late.status).toBe(401)
        expect(late.body.code).toBe('PASSKEY_CHALLENGE_EXPIRED')
      } finally {
        await d.close()
      }
    })

    test('an assertion made for another tenant\'s relying party', async () => {
      const u = await w.f.user(w.a)
      const d = await openDevice(w)
      try {
        await registerPasskey(w, d, u.accessToken)
        // the same device on tenant B's page (b.app.localhost, an origin B allows) takes B's options, and
        // answers them with tenant A's passkey: its page may name the parent domain, A's relying party
        await d.page.goto(`http://b.app.localhost:${w.port}/`)
        await d.page.waitForFunction(() => typeof (window as any).SW?.startAuthentication === 'function')
        const assertion = await signInAssertion(w, d, w.b, undefined, { rpId: 'app.localhost' })
        const res = await w.f.api.post('/v1/auth/passkey/verify', { response: assertion }, { signedBy: w.b })
        expect(res.status).toBe(401)
        expect(res.body.code).toBe('PASSKEY_RP_MISMATCH')
      } finally {
        await d.close()
      }
    })

    test('a deleted credential', async () => {
      const u = await w.f.user(w.a)
      const d = await openDevice(w)
      try {
        const p = await registerPasskey(w, d, u.accessToken)
        expect((await w.f.api.delete(`/v1/passkeys/${p.id}`, { token: u.accessToken })).status).toBe(200)
        // the authenticator still holds it
        const assertion = await signInAssertion(w, d, w.a, undefined, { allowCredentials: [{ id: p.credentialId, type: 'public-key' }] })
        const res = await w.f.api.post('/v1/auth/passkey/verify', { response: assertion }, { signedBy: w.a })
        expect(res.status).toBe(401)
        expect(res.body.code).toBe('PASSKEY_CREDENTIAL_UNKNOWN')
      } finally {
        await d.close()
      }
    })
  })
})
