/**
 * What the API reads of a body: at most MAX_BODY_BYTES (413 in the route's envelope, with
 * the limit in the message, in-process and over real HTTP, whatever the size: a declared
 * length is refused before reading, a chunked body once it passes the limit), JSON only (415 naming it), and
 * an empty body reads as `{}` so the missing fields are named.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Factory, type Tenant } from '@tests/helpers/factories'

const LIMIT = 4096
let t: TestApp
let f: Factory
let server: HttpServer
let tenant: Tenant
let admin: string

beforeAll(async () => {
  t = await makeApp({ env: { MAX_BODY_BYTES: String(LIMIT) } })
  f = new Factory(t)
  server = serve(t)
  tenant = await f.tenant()
  admin = await f.adminToken()
})
afterAll(async () => {
  await server.stop()
  await t.close()
})

const tooLarge = { statusCode: 413, error: 'Payload Too Large', message: `Request body is larger than the limit of ${LIMIT} bytes (MAX_BODY_BYTES)` }
const bigName = (bytes: number) => JSON.stringify({ name: 'x'.repeat(bytes) })

describe('MAX_BODY_BYTES', () => {
  test('defaults to 1 MiB', async () => {
    const d = await makeApp()
    try {
      expect(d.deps.config.maxBodyBytes).toBe(1024 * 1024)
    } finally {
      await d.close()
    }
  })

  test('a body one byte over answers 413 in the envelope with the limit; one at the limit is read', async () => {
    const over = await f.api.post('/v1/admin/tenants/', undefined, { token: admin, raw: bigName(LIMIT - 11 + 1) })
    expect(over.status).toBe(413)
    expect(over.body).toEqual(tooLarge)
    expect(over.headers.get('x-request-id')).toBeString()
    const at = await f.api.post('/v1/admin/tenants/', undefined, { token: admin, raw: bigName(LIMIT - 11) })
    expect(at.status).toBe(400)
    expect(at.body.details[0].keyword).toBe('maxLength')
  })

  test('over real HTTP: a declared length over the limit and a chunked body over it both answer 413 in the envelope', async () => {
    const body = bigName(LIMIT * 1.5)
    const declared = await fetch(`${server.url}/v1/admin/tenants/`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body })
    expect(declared.status).toBe(413)
    expect(declared.headers.get('x-request-id')).toBeString()
    expect(await declared.json()).toEqual(tooLarge)
    const bytes = new TextEncoder().encode(body)
    const chunked = await fetch(`${server.url}/v1/admin/tenants/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: new ReadableStream({ start(c) { c.enqueue(bytes.slice(0, 1000)); c.enqueue(bytes.slice(1000)); c.close() } }),
      duplex: 'half',
    } as RequestInit)
    expect(chunked.status).toBe(413)
    expect(await chunked.json()).toEqual(tooLarge)
  })

  test('over real HTTP, for any size: a declared length of three times the limit is refused before it is read', async () => {
    // Bun.serve's own cap once cut bodies over twice the limit with an empty 413
    const res = await fetch(`${server.url}/v1/admin/tenants/`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body: bigName(LIMIT * 3) })
    expect(res.status).toBe(413)
    expect(res.headers.get('content-type')).toStartWith('application/json')
    expect(await res.json()).toEqual(tooLarge)
    const login = await fetch(`${server.url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bigName(LIMIT * 3) })
    expect(login.status).toBe(413)
    expect(await login.json()).toEqual(tooLarge)
  })

  test('over real HTTP: a chunked body that keeps growing is counted as it arrives and refused once past the limit', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(1024))
    const ceiling = 64 * 1024 * 1024
    let sent = 0
    const res = await fetch(`${server.url}/v1/admin/tenants/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      // without end (up to a ceiling, so a server that reads it all still lets the test finish)
      body: new ReadableStream({
        pull(c) {
          if (sent >= ceiling) return c.close()
          if (sent === 0) c.enqueue(new TextEncoder().encode('{"name":"'))
          sent += chunk.length
          c.enqueue(chunk)
        },
      }),
      duplex: 'half',
    } as RequestInit)
    expect(res.status).toBe(413)
    expect(await res.json()).toEqual(tooLarge)
    // the server stopped reading near the limit, not at the end of the upload
    expect(sent).toBeLessThan(ceiling / 4)
  })

  test('sign-in routes answer it in the one envelope, before the signature is checked', async () => {
    const res = await f.api.post('/v1/auth/login', undefined, { raw: JSON.stringify({ username: 'a', password: 'p'.repeat(LIMIT) }), signedBy: tenant })
    expect(res.status).toBe(413)
    expect(res.body).toEqual(tooLarge)
  })
})

describe('content type', () => {
  test('a form-encoded body answers 415 naming application/json', async () => {
    const res = await f.api.post('/v1/admin/tenants/', undefined, { token: admin, raw: 'name=Acme', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(res.status).toBe(415)
    expect(res.body).toEqual({ statusCode: 415, error: 'Unsupported Media Type', message: 'Content-Type must be application/json, not application/x-www-form-urlencoded' })
  })

  test('application/json with a charset, and +json types, are read', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/merge-patch+json']) {
      const res = await f.api.post('/v1/admin/tenants/', { name: `ct-${type.length}` }, { token: admin, headers: { 'content-type': type } })
      expect(res.status, type).toBe(201)
    }
  })

  test('an empty body names the missing fields; a route whose body fields are all optional passes it to its own checks', async () => {
    const res = await f.api.post('/v1/admin/tenants/', undefined, { token: admin })
    expect(res.status).toBe(400)
    expect(res.body.details).toEqual([expect.objectContaining({ keyword: 'required', params: { missingProperty: 'name' } })])
    const u = await f.user(tenant)
    const me = await f.api.patch('/v1/users/me', undefined, { token: u.accessToken })
    // the schema takes `{}`; the service's own rule answers
    expect(me.status).toBe(400)
    expect(me.body.message).toBe('Provide username or displayName (at least one)')
  })

  test('a body that is not JSON, or not UTF-8, answers 400 saying so', async () => {
    const bad = await f.api.post('/v1/admin/tenants/', undefined, { token: admin, raw: '{"name":' })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toBe('Request body is not valid JSON')
    const res = await t.handle(new Request('http://slipway.test/v1/admin/tenants/', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body: new Uint8Array([0x7b, 0xff, 0x7d]) }))
    expect(res.status).toBe(400)
    expect(((await res.json()) as { message: string }).message).toBe('Request body is not valid UTF-8')
  })
})
