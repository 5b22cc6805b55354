/**
 * The passkey tests' world: a Slipway app (manual clock), two tenants with their own relying
 * parties, and a tenant front end on http://app.localhost:<port> (and b.app.localhost, the
 * second tenant's) whose page loads @simplewebauthn/browser and whose backend forwards its calls to
 * Slipway, signing them with the tenant's secret. Chromium holds passkeys in a CDP virtual
 * authenticator (CTAP2, resident keys, user verification on).
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core'
import { makeApp, ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, type Tenant } from '@tests/helpers/factories'
import { launchChromium } from '@tests/helpers/browser'

const BROWSER_LIB = readFileSync(resolve(import.meta.dir, '../../node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js'), 'utf8')

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Tenant app</title>
<script src="/simplewebauthn.js"></script>
<script>
  // the tenant's front end: every call goes to its own backend, which signs it for Slipway
  window.api = async (method, path, body, opts = {}) => {
    const res = await fetch('/api', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method, path, body, ...opts }) })
    return res.json()
  }
  window.SW = SimpleWebAuthnBrowser
</script></head><body><h1>Tenant app</h1></body></html>`

export interface World {
  t: TestApp
  f: Factory
  clock: ManualClock
  port: number
  /** tenant A: relying party `app.localhost`, origin http://app.localhost:<port>, key export guarded */
  a: Tenant
  /** tenant B: relying party `b.app.localhost`, origin http://b.app.localhost:<port> */
  b: Tenant
  browser: Browser
  close(): Promise<void>
}

export async function makeWorld(): Promise<World> {
  const clock = new ManualClock(Date.now())
  const t = await makeApp({ clock })
  const f = new Factory(t)
  const tenants: Record<string, Tenant> = {}
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (req) => {
      const url = new URL(req.url)
      if (url.pathname === '/') return new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } })
      if (url.pathname === '/simplewebauthn.js') return new Response(BROWSER_LIB, { headers: { 'content-type': 'text/javascript' } })
      if (url.pathname === '/api' && req.method === 'POST') {
        const call = await req.json() as { method: string; path: string; body?: unknown; raw?: string; token?: string; signed?: boolean; headers?: Record<string, string> }
        const tenant = url.hostname.startsWith('b.') ? tenants.b! : tenants.a!
        const res = await f.api.call(call.method, call.path, call.body, { token: call.token, signedBy: call.signed ? tenant : undefined, headers: call.headers, raw: call.raw })
        return Response.json({ status: res.status, body: res.body })
      }
      return new Response('not found', { status: 404 })
    },
  })
  const port = server.port!
  tenants.a = await f.tenant({ passkeys: { rpId: 'app.localhost', origins: [`http://app.localhost:${port}`], stepUp: { operations: ['key_export'] } } })
  tenants.b = await f.tenant({ passkeys: { rpId: 'b.app.localhost', origins: [`http://b.app.localhost:${port}`] } })
  const browser = await launchChromium()
  return {
    t, f, clock, port, a: tenants.a, b: tenants.b, browser,
    close: async () => {
      await browser.close()
      server.stop(true)
      await t.close()
    },
  }
}

export interface Device {
  context: BrowserContext
  page: Page
  cdp: CDPSession
  authenticatorId: string
  close(): Promise<void>
}

/** A browser tab on `host` (app.localhost, b.app.localhost, or another name under localhost) with its own virtual authenticator. */
export async function openDevice(w: World, host = 'app.localhost'): Promise<Device> {
  const context = await w.browser.newContext()
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send('WebAuthn.enable', { enableUI: false })
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  })
  await page.goto(`http://${host}:${w.port}/`)
  await page.waitForFunction(() => typeof (window as any).SW?.startRegistration === 'function')
  return { context, page, cdp, authenticatorId, close: () => context.close() }
}

/** Runs the browser ceremony for options the test already holds: `create` or `get`, with optional changes to the options first. */
export function ceremony(d: Device, kind: 'create' | 'get', optionsJSON: unknown, patch: Record<string, unknown> = {}): Promise<any> {
  return d.page.evaluate(async ({ kind, optionsJSON, patch }) => {
    const SW = (window as any).SW
    const options = { ...(optionsJSON as object), ...patch }
    return kind === 'create' ? SW.startRegistration({ optionsJSON: options }) : SW.startAuthentication({ optionsJSON: options })
  }, { kind, optionsJSON, patch })
}

/** Registers a passkey for `token`'s user on the device (options and verification from the test's side). */
export async function registerPasskey(w: World, d: Device, token: string, name = 'Test passkey') {
  const options = await w.f.api.post('/v1/passkeys/registration/options', {}, { token })
  if (options.status !== 200) throw new Error(`registration options: ${options.status} ${options.text}`)
  const response = await ceremony(d, 'create', options.body)
  const res = await w.f.api.post('/v1/passkeys/registration/verify', { response, name }, { token })
  if (res.status !== 201) throw new Error(`registration verify: ${res.status} ${res.text}`)
  return res.body as { id: string; credentialId: string; counter: number }
}

/** A fresh assertion for a sign-in at `tenant` (discoverable unless `username`), not yet verified. */
export async function signInAssertion(w: World, d: Device, tenant: Tenant, username?: string, patch: Record<string, unknown> = {}) {
  const options = await w.f.api.post('/v1/auth/passkey/options', username ? { username } : {}, { signedBy: tenant })
  if (options.status !== 200) throw new Error(`sign-in options: ${options.status} ${options.text}`)
  return ceremony(d, 'get', options.body, patch)
}

/** A passkey approval for one request (`raw` is the exact body to be sent), the device's passkey answering. */
export async function approvalFor(w: World, d: Device, token: string, operation: string, method: string, path: string, raw: string) {
  const bodyHash = new Bun.CryptoHasher('sha256').update(raw).digest('hex')
  const options = await w.f.api.post('/v1/passkeys/approvals/options', { operation, method, path, bodyHash }, { token })
  if (options.status !== 200) throw new Error(`approval options: ${options.status} ${options.text}`)
  const response = await ceremony(d, 'get', options.body)
  const res = await w.f.api.post('/v1/passkeys/approvals/verify', { response }, { token })
  if (res.status !== 200) throw new Error(`approval verify: ${res.status} ${res.text}`)
  return res.body.approval as string
}
