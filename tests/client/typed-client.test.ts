/**
 * The client a tenant's engineer builds against (src/client): a misspelt path, parameter or
 * body field fails `tsc` (fixtures/typo.ts, compiled here), and over real HTTP on 127.0.0.1
 * the typed calls carry the credentials the OpenAPI document asks for: the tenant signature
 * on tenant-signed routes, the session's access token on bearer routes, refreshed before it
 * expires and once after a 401.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { SlipwayClient, operationCredentials, type TenantCredentials } from '@/client'
import type { ManualClock } from '@/lib/clock'
import { ADMIN, makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'

const ROOT = new URL('../../', import.meta.url).pathname
const FIXTURE = 'tests/client/fixtures/typo.ts'

describe('a typo fails tsc', () => {
  test('each misspelt path, parameter, body field or answer field in fixtures/typo.ts is a type error on its line, and nothing else is', () => {
    const expected = readFileSync(ROOT + FIXTURE, 'utf8').split('\n')
      .flatMap((line, i) => [...line.matchAll(/✗ (TS\d+)/g)].map((m) => `${i + 1} ${m[1]}`))
    expect(expected.length).toBeGreaterThanOrEqual(10)
    const run = Bun.spawnSync([`${ROOT}node_modules/.bin/tsc`, '--noEmit', '--pretty', 'false', '-p', 'tests/client/fixtures/tsconfig.json'], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
    const out = run.stdout.toString() + run.stderr.toString()
    expect(run.exitCode).toBe(2)
    const found = [...out.matchAll(/^(\S+)\((\d+),\d+\): error (TS\d+):/gm)].map((m) => `${m[1] === FIXTURE ? '' : `${m[1]}:`}${m[2]} ${m[3]}`)
    expect(found.sort()).toEqual(expected.sort())
  }, 60_000)

  test('the project\'s own type-check leaves the fixture out', () => {
    const tsconfig = JSON.parse(readFileSync(ROOT + 'tsconfig.json', 'utf8')) as { exclude?: string[] }
    expect(tsconfig.exclude).toContain('tests/client/fixtures')
  })
})

describe('over HTTP on 127.0.0.1', () => {
  let t: TestApp
  let server: HttpServer
  let tenant: TenantCredentials & { name: string }
  /** what each client sent, in order: method, path, and the credentials it carried */
  const sent: { method: string; path: string; signed: boolean; bearer: string | null; status?: number }[] = []

  const clock = () => t.clock as ManualClock
  const recording = async (request: Request) => {
    const entry: (typeof sent)[number] = { method: request.method, path: new URL(request.url).pathname, signed: request.headers.has('x-signature'), bearer: request.headers.get('authorization') }
    sent.push(entry)
    const response = await fetch(request)
    entry.status = response.status
    return response
  }
  const client = (creds?: TenantCredentials) => new SlipwayClient({ baseUrl: server.url, tenant: creds, fetch: recording, now: () => t.clock.now() })

  beforeAll(async () => {
    t = await makeApp()
    server = serve(t)
    // a platform admin's session creates the tenant: bearer routes with typed bodies
    const admin = client()
    expect((await admin.adminLogin(ADMIN)).response.status).toBe(200)
    const created = await admin.createTenant({ name: 'Typed Client Co' })
    if (!created.data) throw new Error(`createTenant answered ${created.response.status}`)
    tenant = { name: created.data.name, apiKey: created.data.apiKey, apiSecret: created.data.apiSecret }
    expect(sent.at(-1)).toMatchObject({ method: 'POST', path: '/v1/admin/tenants/', signed: false, status: 201 })
    expect(sent.at(-1)!.bearer).toStartWith('Bearer ')
  })
  afterAll(async () => {
    await server.stop()
    await t.close()
  })

  test('every operation the document marks tenant-signed or bearer is in operationCredentials', async () => {
    const doc = await (await fetch(`${server.url}/v1/docs/json`)).json() as { paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>> }
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const kind = op.security?.some((s) => 'tenantSignature' in s && 'bearerAuth' in s) ? 'both'
          : op.security?.some((s) => 'tenantSignature' in s) ? 'tenant' : op.security?.some((s) => 'bearerAuth' in s) ? 'bearer' : undefined
        expect(`${method} ${path} ${operationCredentials[`${method.toUpperCase()} ${path}`]}`).toBe(`${method} ${path} ${kind}`)
      }
    }
  })

  test('a tenant-signed route is signed by the middleware, a bearer route carries the token and no signature, and answers are typed', async () => {
    const slipway = client(tenant)
    const pub = await slipway.api.GET('/v1/tenant/public')
    expect(pub.data?.name).toBe(tenant.name)
    expect(sent.at(-1)).toMatchObject({ path: '/v1/tenant/public', signed: true, bearer: null, status: 200 })

    const reg = await slipway.register({ username: 'typed_alice', email: 'typed_alice@example.com', password: 'Str0ng-Passw0rd' })
    expect(reg.response.status).toBe(201)
    expect(sent.at(-1)).toMatchObject({ path: '/v1/auth/register', signed: true, bearer: null })
    const id = slipway.session!.userId
    expect(reg.data?.user.id).toBe(id)

    const me = await slipway.api.GET('/v1/users/{id}', { params: { path: { id } } })
    expect(me.data?.username).toBe('typed_alice')
    expect(sent.at(-1)).toMatchObject({ path: `/v1/users/${id}`, signed: false, bearer: `Bearer ${slipway.session!.accessToken}`, status: 200 })
  })

  test('two identical signed requests in the same second both pass: the second is signed one second later, not replayed', async () => {
    const slipway = client(tenant)
    await slipway.register({ username: 'typed_twice', email: 'typed_twice@example.com', password: 'Str0ng-Passw0rd' })
    // the test clock stands still: both logins are signed "in the same second"
    const [a, b] = await Promise.all([0, 1].map(() => slipway.login({ username: 'typed_twice', password: 'Str0ng-Passw0rd' })))
    expect([a!.response.status, b!.response.status]).toEqual([200, 200])
    // and the untyped path shares the same clock
    const c = await slipway.untyped('POST', '/v1/auth/login', { username: 'typed_twice', password: 'Str0ng-Passw0rd' }, { signed: true })
    expect(c.status).toBe(200)
  })

  test('two clients with the same credentials (two processes) sign the same login in the same second: the refused one signs again with the next second', async () => {
    const [one, two] = [client(tenant), client(tenant)]
    await one.register({ username: 'typed_procs', email: 'typed_procs@example.com', password: 'Str0ng-Passw0rd' })
    const before = sent.length
    const [a, b] = await Promise.all([one, two].map((c) => c.login({ username: 'typed_procs', password: 'Str0ng-Passw0rd' })))
    expect([a!.response.status, b!.response.status]).toEqual([200, 200])
    // three requests went out: the two logins and the one signed again after "Replay detected"
    expect(sent.slice(before).map((e) => e.status).sort()).toEqual([200, 200, 401])
  })

  test('a refused call answers the typed error envelope, with no data', async () => {
    const slipway = client(tenant)
    const wrong = await slipway.login({ username: 'typed_alice', password: 'not-her-password' })
    expect(wrong.response.status).toBe(401)
    expect(wrong.data).toBeUndefined()
    expect(wrong.error?.message).toBe('Invalid credentials')
    expect(slipway.session).toBeUndefined()
  })

  test('an access token about to expire is refreshed once before the call', async () => {
    const slipway = client(tenant)
    expect((await slipway.login({ username: 'typed_alice', password: 'Str0ng-Passw0rd' })).response.status).toBe(200)
    const first = slipway.session!.accessToken
    clock().advance(901_000)
    const from = sent.length
    const me = await slipway.getUser(slipway.session!.userId)
    expect(me.response.status).toBe(200)
    expect(sent.slice(from).map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual(['POST /v1/auth/refresh 200', `GET /v1/users/${slipway.session!.userId} 200`])
    expect(slipway.session!.accessToken).not.toBe(first)
  })

  test('after a 401 the session is refreshed once and the call sent again, body and all', async () => {
    const slipway = client(tenant)
    expect((await slipway.login({ username: 'typed_alice', password: 'Str0ng-Passw0rd' })).response.status).toBe(200)
    const id = slipway.session!.userId
    clock().advance(901_000)
    // the server's clock says the token expired; the client believes it fresh for an hour
    slipway.session = { ...slipway.session!, expiresAt: t.clock.now() + 3_600_000 }
    const from = sent.length
    const put = await slipway.api.PUT('/v1/users/{id}', { params: { path: { id } }, body: { email: 'typed_alice_2@example.com' } })
    expect(put.response.status).toBe(200)
    expect(put.data?.email).toBe('typed_alice_2@example.com')
    expect(sent.slice(from).map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual([`PUT /v1/users/${id} 401`, 'POST /v1/auth/refresh 200', `PUT /v1/users/${id} 200`])
  })

  test('a call that sets its own authorization is left alone', async () => {
    const slipway = client(tenant)
    const res = await slipway.api.GET('/v1/users/{id}', { params: { path: { id: crypto.randomUUID() } }, headers: { authorization: 'Bearer not-a-token' } })
    expect(res.response.status).toBe(401)
    expect(sent.at(-1)).toMatchObject({ bearer: 'Bearer not-a-token', status: 401 })
  })
})
