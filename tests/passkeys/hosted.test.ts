/**
 * The hosted passkey page in real Chromium, on Slipway's own origin (PUBLIC_BASE_URL
 * http://slipway.localhost:<port>, its relying party): the tenant's backend opens a session, the
 * page registers a passkey (then signs in with it), and the user comes back to the tenant's app
 * with a one-time code its backend exchanges for tokens.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { chromiumAvailable as available, launchChromium, warnIfNoChromium } from '@tests/helpers/browser'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Factory, type Tenant } from '@tests/helpers/factories'

warnIfNoChromium('hosted passkey page tests')

let t: TestApp
let f: Factory
let slipway: HttpServer
let app: ReturnType<typeof Bun.serve>
let tenant: Tenant
let other: Tenant
let browser: Browser
let returnUrl: string

beforeAll(async () => {
  if (!available) return
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  t = await makeApp({ env: { PUBLIC_BASE_URL: `http://slipway.localhost:${port}` } })
  slipway = serve(t, port)
  f = new Factory(t)
  // the tenant's app: where the page sends the user back
  app = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('<!doctype html><title>Back in the app</title>', { headers: { 'content-type': 'text/html' } }) })
  returnUrl = `http://localhost:${app.port}/passkey-done`
  tenant = await f.tenant({ passkeys: { hostedReturnUrls: [`http://localhost:${app.port}/`] } })
  other = await f.tenant({ passkeys: { hostedReturnUrls: [`http://localhost:${app.port}/`] } })
  browser = await launchChromium()
})
afterAll(async () => {
  if (!available) return
  await browser?.close()
  app?.stop(true)
  await slipway?.stop()
  await t?.close()
})

async function withAuthenticator<T>(fn: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext()
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send('WebAuthn.enable', { enableUI: false })
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  })
  try {
    return await fn(page)
  } finally {
    await context.close()
  }
}

/** Opens the page of a session and presses its button; answers the address the user came back to. */
async function runPage(page: Page, url: string, button: string) {
  await page.goto(url)
  await page.getByRole('button', { name: button }).click()
  await page.waitForURL((u) => u.pathname === '/passkey-done')
  return new URL(page.url())
}

describe.skipIf(!available)('hosted passkey page in Chromium', () => {
  test('register on the hosted page, come back with a code, exchange it; then sign in there without a username', async () => {
    const u = await f.user(tenant)
    await withAuthenticator(async (page) => {
      const reg = await f.api.post('/v1/passkeys/hosted/sessions', { mode: 'register', userId: u.id, returnUrl, state: 'st-1' }, { signedBy: tenant })
      expect(reg.status).toBe(201)
      expect(reg.body.url).toStartWith(`${slipway.url.replace('127.0.0.1', 'slipway.localhost')}/passkeys#session=`)
      const back = await runPage(page, reg.body.url, 'Create passkey')
      expect(back.searchParams.get('state')).toBe('st-1')
      const code = back.searchParams.get('code')!
      // another tenant cannot use it
      const stolen = await f.api.post('/v1/auth/passkey/exchange', { code }, { signedBy: other })
      expect(stolen.status).toBe(401)
      expect(stolen.body.code).toBe('PASSKEY_CODE_INVALID')
      const tokens = await f.api.post('/v1/auth/passkey/exchange', { code }, { signedBy: tenant })
      expect(tokens.status).toBe(200)
      expect(tokens.body.user.id).toBe(u.id)
      const again = await f.api.post('/v1/auth/passkey/exchange', { code }, { signedBy: tenant })
      expect(again.body.code).toBe('PASSKEY_CODE_INVALID')
      const list = await f.api.get('/v1/passkeys', { token: u.accessToken })
      expect(list.body.data.map((p: { rpId: string }) => p.rpId)).toEqual(['slipway.localhost'])

      const signIn = await f.api.post('/v1/passkeys/hosted/sessions', { mode: 'signin', returnUrl }, { signedBy: tenant })
      const back2 = await runPage(page, signIn.body.url, 'Sign in')
      const session = await f.api.post('/v1/auth/passkey/exchange', { code: back2.searchParams.get('code') }, { signedBy: tenant })
      expect(session.status).toBe(200)
      expect(session.body.user.id).toBe(u.id)
      // the session is spent: its page cannot run again
      const reused = await f.api.post('/v1/passkeys/hosted/options', { session: new URL(signIn.body.url).hash.slice('#session='.length) })
      expect(reused.status).toBe(400)
      expect(reused.body.code).toBe('PASSKEY_HOSTED_SESSION_INVALID')
    })
  })

  test('a return address the tenant did not list is refused; an expired or made-up session shows an error on the page', async () => {
    const res = await f.api.post('/v1/passkeys/hosted/sessions', { mode: 'signin', returnUrl: 'https://evil.example/steal' }, { signedBy: tenant })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('PASSKEY_RETURN_URL_NOT_ALLOWED')
    const foreignUser = await f.user(other)
    const notOurs = await f.api.post('/v1/passkeys/hosted/sessions', { mode: 'register', userId: foreignUser.id, returnUrl }, { signedBy: tenant })
    expect(notOurs.status).toBe(404)
    await withAuthenticator(async (page) => {
      await page.goto(`${slipway.url.replace('127.0.0.1', 'slipway.localhost')}/passkeys#session=made-up-session-token-0123456789`)
      await page.getByRole('alert').getByText('The hosted passkey session is invalid, expired or already used').waitFor()
    })
  })
})
