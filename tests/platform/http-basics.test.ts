import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parse } from 'yaml'
import { eq } from 'drizzle-orm'
import { tenants } from '@/db/schema'
import { observed } from '@/http/core'
import { bunFetch } from '@/app'
import { ADMIN, makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory } from '@tests/helpers/factories'

let t: TestApp
let server: HttpServer
let api: Api
let f: Factory

beforeAll(async () => {
  t = await makeApp()
  server = serve(t)
  api = new Api(server.url)
  f = new Factory(t, api)
})
afterAll(async () => {
  await server.stop()
  await t.close()
})

describe('errors', () => {
  test('an unknown route answers the spec text', async () => {
    const res = await api.post('/v1/nothing/here?x=1')
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ message: 'Route POST:/v1/nothing/here not found', error: 'Not Found', statusCode: 404 })
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  test('unparsable JSON answers 400, never 500', async () => {
    const res = await api.post('/v1/admin/tenants', undefined, { raw: '{"name": "x"', token: await f.adminToken() })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Request body is not valid JSON' })
  })

  test('schema failures list details in the one issue shape: the field\'s path, then Ajv\'s fields', async () => {
    const res = await api.post('/v1/admin/tenants', { name: 'x'.repeat(101) }, { token: await f.adminToken() })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      statusCode: 400, error: 'Bad Request', message: 'Request validation failed',
      details: [{ path: '/name', instancePath: '/name', schemaPath: '#/properties/name/maxLength', keyword: 'maxLength', params: { maxLength: 100 }, message: 'must NOT have more than 100 characters' }],
    })
  })

  test('an unexpected failure answers 500 Internal server error with nothing internal, and is logged without secrets', async () => {
    const victim = await f.tenant()
    const donor = await f.tenant()
    // A ciphertext moved to another row fails to decrypt: the associated data binds it to its tenant.
    const donorRow = await t.deps.database.db.select().from(tenants).where(eq(tenants.id, donor.id)).get()
    await t.deps.database.write((tx) => tx.update(tenants).set({ apiSecretSealed: donorRow!.apiSecretSealed }).where(eq(tenants.id, victim.id)))
    const res = await api.get('/v1/tenant/public', { signedBy: victim })
    expect(res.status).toBe(500)
    expect(res.body).toEqual({ statusCode: 500, error: 'InternalServerError', message: 'Internal server error' })
    t.deps.logger.flush()
    const line = t.logs.find((l) => l.includes('unhandled error'))
    expect(line).toBeDefined()
    expect(line).not.toContain(donor.apiSecret)
    expect(line).not.toContain(donorRow!.apiSecretSealed)
  })
})

describe('request log', () => {
  test('one JSON line per request with the request id sent back as x-request-id; no secrets', async () => {
    const tenant = await f.tenant()
    const reg = await api.post('/v1/auth/register', { username: 'logcheck', email: 'logcheck@example.com', password: 'Secr3t-password' }, { signedBy: tenant })
    expect(reg.status).toBe(201)
    const rid = reg.headers.get('x-request-id')
    expect(rid).toMatch(/^[0-9a-f-]{36}$/)
    await api.get(`/v1/auth/reset-password/validate?token=super-secret-token`)
    await Bun.sleep(20)
    t.deps.logger.flush()
    const entries = t.logs.map((l) => JSON.parse(l))
    const entry = entries.find((e) => e.requestId === rid)
    expect(entry).toMatchObject({ level: 'info', msg: 'request', method: 'POST', path: '/v1/auth/register', status: 201 })
    expect(typeof entry.durationMs).toBe('number')
    const all = t.logs.join('\n')
    for (const secret of ['Secr3t-password', reg.body.accessToken, reg.body.refreshToken, tenant.apiSecret, 'super-secret-token']) expect(all).not.toContain(secret)
  })
})

describe('request log and metrics around the app', () => {
  test('a route with no async work answers without a promise (no body parser on GET routes)', async () => {
    const out = t.app.fetch(new Request('http://localhost/health'))
    expect(out).toBeInstanceOf(Response)
    const res = out as Response
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  test('unmatched, HTML and odd paths: each one JSON line, the id on the answer, the route pattern in metrics', async () => {
    const odd = `/v1/nothing/%22q%5C${'x'.repeat(600)}`
    const answers = [await t.handle(new Request(`http://localhost${odd}?token=hidden`)), await t.handle(new Request('http://localhost/admin/webhook-deliveries', { headers: { authorization: `Basic ${btoa(`${ADMIN.username}:${ADMIN.password}`)}` } })), await t.handle(new Request('http://localhost/health'))]
    expect(answers.map((r) => r.status)).toEqual([404, 200, 200])
    const ids = answers.map((r) => r.headers.get('x-request-id'))
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/)
    t.deps.logger.flush()
    const entries = t.logs.map((l) => JSON.parse(l)).filter((e) => ids.includes(e.requestId))
    expect(entries.map((e) => [e.msg, e.status])).toEqual([['request', 404], ['request', 200], ['request', 200]])
    expect(entries[0].path).toBe(`${odd.slice(0, 512)}…(${odd.length} chars)`)
    expect(entries[2].path).toBe('/health')
    expect(t.logs.join('\n')).not.toContain('hidden')
    const metrics = await t.deps.metrics.render()
    expect(metrics).toMatch(/slipway_http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} [1-9]/)
    expect(metrics).toMatch(/slipway_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/admin\/webhook-deliveries",status="200"\} [1-9]/)
  })

  test('GET /health from the server\'s own router: the app\'s answer, its id, one log line and the metric; other methods and paths reach the app', async () => {
    const viaApp = await t.handle(new Request('http://localhost/health'))
    const before = (await t.deps.metrics.render()).match(/slipway_http_request_duration_seconds_count\{method="GET",route="\/health",status="200"\} (\d+)/)
    const viaServer = await fetch(`${server.url}/health?probe=1`)
    expect(viaServer.status).toBe(200)
    expect(await viaServer.text()).toBe(await viaApp.text())
    const names = (h: Headers) => Object.keys(h.toJSON()).filter((k) => k !== 'date' && k !== 'content-length').sort()
    expect(names(viaServer.headers)).toEqual(names(viaApp.headers))
    expect(viaServer.headers.get('content-type')).toBe(viaApp.headers.get('content-type'))
    const rid = viaServer.headers.get('x-request-id')!
    expect(rid).toMatch(/^[0-9a-f-]{36}$/)
    expect(rid).not.toBe(viaApp.headers.get('x-request-id'))
    const head = await fetch(`${server.url}/health`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
    t.deps.logger.flush()
    const lines = t.logs.map((l) => JSON.parse(l)).filter((e) => e.requestId === rid)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ level: 'info', msg: 'request', method: 'GET', path: '/health', status: 200 })
    expect(typeof lines[0].durationMs).toBe('number')
    const after = (await t.deps.metrics.render()).match(/slipway_http_request_duration_seconds_count\{method="GET",route="\/health",status="200"\} (\d+)/)
    expect(Number(after![1])).toBe(Number(before![1]) + 1)
    // what the server's router does not take reaches the app, as before
    const post = await fetch(`${server.url}/health`, { method: 'POST' })
    expect(post.status).toBe(404)
    expect(post.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const slash = await fetch(`${server.url}/health/`)
    expect(slash.status).toBe(200)
    expect(await slash.json()).toEqual({ status: 'ok' })
  })

  test('the server routes are counted for draining: once draining, their answers carry Connection: close', () => {
    const fetch = bunFetch(t.app)
    expect(Object.keys(fetch.routes)).toEqual(['/health'])
    const before = fetch.state.lastRequestAt
    const open = fetch.routes['/health']!.GET(new Request('http://localhost/health'))
    expect(open.status).toBe(200)
    expect(open.headers.get('connection')).toBeNull()
    expect(fetch.state.lastRequestAt).toBeGreaterThan(before)
    fetch.state.draining = true
    const closing = fetch.routes['/health']!.GET(new Request('http://localhost/health'))
    expect(closing.headers.get('connection')).toBe('close')
    expect(closing.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  test('each server-route answer keeps its own id, its own headers, its log line and its metric; HEAD is logged as HEAD', async () => {
    const fetch = bunFetch(t.app)
    const answer = fetch.routes['/health']!.GET
    const count = async () => Number((await t.deps.metrics.render()).match(/slipway_http_request_duration_seconds_count\{method="GET",route="\/health",status="200"\} (\d+)/)?.[1] ?? 0)
    const before = await count()
    const first = answer(new Request('http://localhost/health'))
    const second = answer(new Request('http://localhost/health'))
    const head = answer(new Request('http://localhost/health', { method: 'HEAD' }))
    // the answers are made from one set of headers: each copies it when made
    const ids = [first, second, head].map((r) => r.headers.get('x-request-id')!)
    expect(new Set(ids).size).toBe(3)
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/)
    first.headers.set('x-extra', '1')
    expect(second.headers.get('x-extra')).toBeNull()
    expect(answer(new Request('http://localhost/health')).headers.get('x-extra')).toBeNull()
    expect(await first.json()).toEqual({ status: 'ok' })
    expect(first.headers.get('content-type')).toBe('application/json;charset=utf-8')
    expect(await count()).toBe(before + 3)
    t.deps.logger.flush()
    const logged = t.logs.map((l) => JSON.parse(l)).filter((e) => ids.includes(e.requestId))
    expect(logged.map((e) => [e.requestId, e.method, e.path, e.status])).toEqual([[ids[0], 'GET', '/health', 200], [ids[1], 'GET', '/health', 200], [ids[2], 'HEAD', '/health', 200]])
    expect(await t.deps.metrics.render()).toMatch(/slipway_http_request_duration_seconds_count\{method="HEAD",route="\/health",status="200"\} [1-9]/)
  })

  test('an answer whose headers cannot change (a redirect or a fetched answer under Deno) is copied to carry the request id', async () => {
    class FrozenHeaders extends Headers {
      override set(): void {
        throw new TypeError('immutable')
      }
    }
    class Immutable extends Response {
      readonly #headers: Headers
      constructor(body: BodyInit | null, init: ResponseInit) {
        super(body, init)
        this.#headers = new FrozenHeaders(super.headers)
      }
      override get headers(): Headers {
        return this.#headers
      }
    }
    const app = observed(t.deps, { fetch: () => new Immutable(null, { status: 302, headers: { location: '/elsewhere' } }) })
    const res = await app.handle(new Request('http://localhost/old'))
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/elsewhere')
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe('docs', () => {
  test('OpenAPI JSON lists every route with its security and error responses; YAML is the same document', async () => {
    const json = await api.get('/v1/docs/json')
    expect(json.status).toBe(200)
    expect(json.body.openapi).toMatch(/^3\./)
    const paths = json.body.paths
    expect(paths['/v1/auth/login'].post.security).toEqual([{ tenantApiKey: [], tenantTimestamp: [], tenantSignature: [] }])
    expect(paths['/v1/users/'].post.security).toEqual([{ bearerAuth: [] }])
    expect(paths['/v1/auth/refresh'].post.security).toEqual([])
    expect(Object.keys(paths['/v1/auth/login'].post.responses).sort()).toEqual(['200', '400', '401', '404', '413', '415', '429', '500'])
    expect(paths['/v1/users/'].post.responses['409']).toBeDefined()
    for (const [path, ops] of Object.entries(paths as Record<string, Record<string, { operationId?: string; responses: object }>>)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(op.operationId, `${method} ${path}`).toBeString()
        expect(Object.keys(op.responses).length, `${method} ${path}`).toBeGreaterThan(0)
      }
    }
    const yaml = await api.get('/v1/docs/yaml')
    expect(yaml.headers.get('content-type')).toContain('yaml')
    expect(parse(yaml.text)).toEqual(json.body)
  })

  test('the docs UI loads its script from the app, not a CDN', async () => {
    const page = await api.get('/v1/docs')
    expect(page.status).toBe(200)
    expect(page.text).toContain('/v1/docs/assets/scalar.js')
    expect(page.text).not.toMatch(/https?:\/\/(cdn|unpkg|jsdelivr)/)
    const script = await fetch(`${server.url}/v1/docs/assets/scalar.js`)
    expect(script.status).toBe(200)
    expect((await script.text()).length).toBeGreaterThan(100_000)
  })

  test('GET /health needs no credentials', async () => {
    expect((await api.get('/health')).body).toEqual({ status: 'ok' })
  })
})
