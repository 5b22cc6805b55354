/**
 * How the client fails, as a script's author sees it: answers are returned, never thrown, and
 * `orThrow` makes one a one-line `SlipwayError`; a server that is restarting is waited for
 * (connections refused, then answered); one that stays down is one line, not a stack of
 * ECONNREFUSED; two identical signed logins in the same second both pass.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { orThrow, SlipwayClient, SlipwayError, SlipwayUnreachableError, type TenantCredentials } from '@/client'
import { ADMIN, makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { freePort } from '@tests/helpers/process'
import { systemClock } from '@/lib/clock'

let t: TestApp
let server: HttpServer
let tenant: TenantCredentials

beforeAll(async () => {
  // the real clock: the signatures' seconds are the server's
  t = await makeApp({ clock: systemClock })
  server = serve(t)
  const admin = new SlipwayClient({ baseUrl: server.url })
  orThrow(await admin.adminLogin(ADMIN))
  const created = orThrow(await admin.createTenant({ name: 'Failures Co' }))
  tenant = { apiKey: created.apiKey, apiSecret: created.apiSecret }
})
afterAll(async () => {
  await server.stop()
  await t.close()
})

describe('answers are returned; orThrow throws them as one line', () => {
  test('a 401 login returns { error } with no session; orThrow throws SlipwayError with the call, status, code and message', async () => {
    const c = new SlipwayClient({ baseUrl: server.url, tenant })
    const res = await c.login({ username: 'nobody', password: 'Wrong-Passw0rd' })
    expect([res.response.status, res.data, c.session]).toEqual([401, undefined, undefined])
    expect(res.error).toBeDefined()
    let thrown: unknown
    try {
      orThrow(res)
    } catch (err) {
      thrown = err
    }
    expect(thrown).toBeInstanceOf(SlipwayError)
    const e = thrown as SlipwayError
    expect(e.status).toBe(401)
    expect(e.message).toStartWith('POST /v1/auth/login answered 401')
    expect(e.message).not.toContain('\n')
    // a 2xx: its data
    const u = `fail-${crypto.randomUUID().slice(0, 8)}`
    const made = orThrow(await c.register({ username: u, email: `${u}@example.com`, password: 'Str0ng-Passw0rd' }))
    expect(made.user.username).toBe(u)
    expect(c.session?.userId).toBe(made.user.id)
  })

  test('two clients with the same credentials log the same user in twice in the same second: both pass, no replay', async () => {
    const u = `twice-${crypto.randomUUID().slice(0, 8)}`
    const first = new SlipwayClient({ baseUrl: server.url, tenant })
    orThrow(await first.register({ username: u, email: `${u}@example.com`, password: 'Str0ng-Passw0rd' }))
    const clients = [new SlipwayClient({ baseUrl: server.url, tenant }), new SlipwayClient({ baseUrl: server.url, tenant })]
    const logins = await Promise.all([...clients, ...clients].map((c) => c.login({ username: u, password: 'Str0ng-Passw0rd' })))
    expect(logins.map((r) => r.response.status)).toEqual([200, 200, 200, 200])
  })
})

describe('a server that is down', () => {
  test('a call while the server restarts waits (connections refused), says so once, and is answered when it is back', async () => {
    const port = freePort()
    const waits: string[] = []
    const c = new SlipwayClient({ baseUrl: `http://127.0.0.1:${port}`, tenant, waitForServerMs: 15_000, onWait: ({ url }) => waits.push(url) })
    const u = `late-${crypto.randomUUID().slice(0, 8)}`
    const pending = c.register({ username: u, email: `${u}@example.com`, password: 'Str0ng-Passw0rd' })
    await Bun.sleep(700)
    const late = serve(t, port)
    try {
      const res = await pending
      expect(res.response.status).toBe(201)
      expect(res.data?.user.username).toBe(u)
      expect(waits).toEqual([`http://127.0.0.1:${port}`])
    } finally {
      await late.stop()
    }
  }, 20_000)

  test('one that stays down: SlipwayUnreachableError, one line saying where and what to check, after the wait', async () => {
    const port = freePort()
    const c = new SlipwayClient({ baseUrl: `http://127.0.0.1:${port}`, tenant, waitForServerMs: 600 })
    const started = Date.now()
    const err = await c.login({ username: 'x', password: 'Str0ng-Passw0rd' }).then(() => null, (e: unknown) => e)
    expect(err).toBeInstanceOf(SlipwayUnreachableError)
    expect((err as Error).message).toBe(`Slipway at http://127.0.0.1:${port} refused the connection for ${Math.round((Date.now() - started) / 1000)} s: is it running? (npm start)`)
    expect(Date.now() - started).toBeLessThan(3_000)
    const now = new SlipwayClient({ baseUrl: `http://127.0.0.1:${port}`, waitForServerMs: 0 })
    expect(await now.getUser('x').then(() => '', (e: Error) => e.message)).toBe(`Slipway at http://127.0.0.1:${port} refused the connection: is it running? (npm start)`)
  })
})
