/**
 * The signing client of src/client (the one the README's quick start uses): the docs'
 * worked example is what it and the server's own primitives compute, the shell recipe
 * with openssl gives the same signature, and a session refreshes its access token on
 * expiry, once, even when requests race. The typed client over real HTTP, and the
 * type-check of misspelt calls: tests/client/.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SlipwayClient, sign, signingString } from '@/client'
import { SIGNING_EXAMPLE } from '@/http/openapi'
import { hmacSha256Hex, sha256Hex } from '@/lib/crypto'
import type { ManualClock } from '@/lib/clock'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type Tenant } from '@tests/helpers/factories'

let t: TestApp
let f: Factory
let tenant: Tenant
let rotating: Tenant

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  tenant = await f.tenant()
  rotating = await f.tenant({ refreshTokenRotation: true })
})
afterAll(() => t.close())

const clientFor = (creds: Tenant) => new SlipwayClient({ baseUrl: 'http://slipway.test', tenant: creds, fetch: (r) => t.handle(r), now: () => t.clock.now() })

describe('the signing recipe\'s worked example', () => {
  const e = SIGNING_EXAMPLE

  test('is what the client and the server\'s primitives compute, and the docs page states it', async () => {
    expect(sha256Hex(new TextEncoder().encode(e.body))).toBe(e.bodySha256)
    const toSign = `${e.method}\n${e.path}\n${e.timestamp}\n${e.bodySha256}`
    expect(signingString(e.method, e.path, e.body, e.timestamp)).toBe(toSign)
    expect(hmacSha256Hex(e.apiSecret, toSign)).toBe(e.signature)
    expect(sign(e.apiSecret, e.method, e.path, e.body, e.timestamp)).toBe(e.signature)
    const doc = await (await t.handle(new Request('http://slipway.test/v1/docs/json'))).json() as { info: { description: string } }
    for (const value of [e.apiSecret, e.timestamp, e.body, e.bodySha256, e.signature]) expect(doc.info.description).toContain(value)
  })

  test('the shell recipe (README, openssl) gives the same signature', () => {
    const script = `BODY='${e.body}'; TS=${e.timestamp}; API_SECRET=${e.apiSecret}
BODY_HASH=$(printf '%s' "$BODY" | openssl dgst -sha256 -hex | sed 's/^.* //')
SIG=$(printf '%s\\n%s\\n%s\\n%s' POST /v1/auth/login "$TS" "$BODY_HASH" | openssl dgst -sha256 -hmac "$API_SECRET" -hex | sed 's/^.* //')
echo "$SIG"`
    const run = Bun.spawnSync(['sh', '-c', script])
    expect(run.exitCode).toBe(0)
    expect(run.stdout.toString().trim()).toBe(e.signature)
  })

  test('a request the client signs is accepted; the same signature again is a replay', async () => {
    const client = clientFor(tenant)
    const first = await client.api.GET('/v1/tenant/public')
    expect(first.response.status).toBe(200)
    expect(first.data?.name).toBe(tenant.name)
    const ts = Math.floor(t.clock.now() / 1000)
    const a = await client.untyped('POST', '/v1/auth/login', { username: 'nobody', password: 'x' }, { signed: true, timestamp: ts })
    expect(a.status).toBe(401)
    expect(a.body.message).toBe('Invalid credentials')
    const b = await client.untyped('POST', '/v1/auth/login', { username: 'nobody', password: 'x' }, { signed: true, timestamp: ts })
    expect(b.body.message).toBe('Replay detected')
  })
})

describe('sessions', () => {
  test('register starts a session; an expired access token is refreshed before the call', async () => {
    const client = clientFor(tenant)
    const reg = await client.register({ username: 'client_alice', email: 'client_alice@example.com', password: 'Str0ng-Passw0rd' })
    expect(reg.response.status).toBe(201)
    const first = client.session!
    expect(first.userId).toBe(reg.data!.user.id)
    expect((await client.getUser(first.userId)).response.status).toBe(200)
    ;(t.clock as ManualClock).advance(901_000)
    const me = await client.getUser(first.userId)
    expect(me.response.status).toBe(200)
    expect(me.data?.username).toBe('client_alice')
    expect(client.session!.accessToken).not.toBe(first.accessToken)
  })

  test('a 401 (token expired by the server\'s clock, not the client\'s) is refreshed once and retried', async () => {
    const client = clientFor(tenant)
    expect((await client.login({ username: 'client_alice', password: 'Str0ng-Passw0rd' })).response.status).toBe(200)
    const stale = client.session!.accessToken
    ;(t.clock as ManualClock).advance(901_000)
    // the client believes the token fresh for another hour
    client.session = { ...client.session!, expiresAt: t.clock.now() + 3_600_000 }
    const me = await client.getUser(client.session.userId)
    expect(me.response.status).toBe(200)
    expect(client.session.accessToken).not.toBe(stale)
  })

  test('with refresh-token rotation, racing calls share one refresh (two would count as reuse and end the session)', async () => {
    const client = clientFor(rotating)
    expect((await client.register({ username: 'client_bob', email: 'client_bob@example.com', password: 'Str0ng-Passw0rd' })).response.status).toBe(201)
    const firstRefresh = client.session!.refreshToken
    ;(t.clock as ManualClock).advance(901_000)
    const answers = await Promise.all([1, 2, 3].map(() => client.getUser(client.session!.userId)))
    expect(answers.map((a) => a.response.status)).toEqual([200, 200, 200])
    expect(client.session!.refreshToken).not.toBe(firstRefresh)
    ;(t.clock as ManualClock).advance(901_000)
    expect((await client.getUser(client.session!.userId)).response.status).toBe(200)
  })
})
