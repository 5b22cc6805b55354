import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeApp, ManualClock, type TestApp } from '@tests/helpers/app'
import { Api, signedHeaders } from '@tests/helpers/client'
import { Factory, type Tenant } from '@tests/helpers/factories'
import { PROCESS_ADMIN, startProcess } from '@tests/helpers/process'
import { REPLAY_PURGE_INTERVAL_MS, SIGNATURE_WINDOW_SECONDS } from '@/http/auth'

let t: TestApp
let f: Factory
let tenant: Tenant
const nowS = () => Math.floor(t.clock.now() / 1000)

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  tenant = await f.tenant()
})
afterAll(() => t.close())

async function raw(method: string, path: string, body: string, headers: Record<string, string>) {
  const res = await t.handle(new Request(`http://slipway.test${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body || undefined }))
  return { status: res.status, body: await res.json() }
}

describe('tenant signature', () => {
  const path = '/v1/tenant/public'

  test('a correctly signed request is accepted', async () => {
    const res = await f.api.get(path, { signedBy: tenant })
    expect(res.status).toBe(200)
    expect(res.body.id).toBe(tenant.id)
  })

  test('the query string is part of the signed path', async () => {
    const ts = String(nowS())
    const headers = signedHeaders(tenant, 'GET', '/v1/tenant/public?x=1', '', ts)
    expect((await raw('GET', '/v1/tenant/public?x=1', '', headers)).status).toBe(200)
    const mismatch = signedHeaders(tenant, 'GET', '/v1/tenant/public', '', String(nowS() - 1))
    const res = await raw('GET', '/v1/tenant/public?x=1', '', mismatch)
    expect(res).toEqual({ status: 401, body: { statusCode: 401, error: 'UnauthorizedError', message: 'Invalid signature' } })
  })

  test.each([
    ['x-tenant-api-key'], ['x-timestamp'], ['x-signature'],
  ])('a missing %s header answers 401 with the spec message', async (header) => {
    const headers: Record<string, string> = signedHeaders(tenant, 'GET', path, '', String(nowS()))
    delete headers[header]
    const res = await raw('GET', path, '', headers)
    expect(res.status).toBe(401)
    expect(res.body.message).toBe('Missing required HMAC headers: x-tenant-api-key, x-timestamp, x-signature')
  })

  test.each([['abc'], ['12.5'], ['-5'], ['']])('timestamp %p answers 401 Invalid x-timestamp header', async (ts) => {
    const headers = signedHeaders(tenant, 'GET', path, '', ts)
    const res = await raw('GET', path, '', headers)
    expect(res.status).toBe(401)
    expect(res.body.message).toBe(ts === '' ? 'Missing required HMAC headers: x-tenant-api-key, x-timestamp, x-signature' : 'Invalid x-timestamp header')
  })

  test('the window is 300 seconds either way', async () => {
    for (const [offset, status] of [[-301, 401], [301, 401], [-299, 200], [299, 200]] as const) {
      const res = await f.api.get(path, { signedBy: tenant, timestamp: nowS() + offset })
      expect(res.status).toBe(status)
      if (status === 401) expect(res.body.message).toBe('Request expired')
    }
  })

  test('an unknown API key answers 404 Invalid API key', async () => {
    const res = await f.api.get(path, { signedBy: { apiKey: 'pk_unknown', apiSecret: tenant.apiSecret } })
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ statusCode: 404, error: 'NotFoundError', message: 'Invalid API key' })
  })

  test('a disabled tenant answers 404 Invalid API key', async () => {
    const other = await f.tenant()
    const admin = await f.adminToken()
    expect((await f.api.patch(`/v1/admin/tenants/${other.id}`, { status: 'disabled' }, { token: admin })).status).toBe(200)
    const res = await f.api.get(path, { signedBy: other })
    expect(res.status).toBe(404)
  })

  test('a signature with another secret answers 401 Invalid signature', async () => {
    const other = await f.tenant()
    const res = await f.api.get(path, { signedBy: { apiKey: tenant.apiKey, apiSecret: other.apiSecret } })
    expect(res.body.message).toBe('Invalid signature')
  })

  test('the exact body bytes are signed: a changed body fails', async () => {
    const ts = String(nowS())
    const headers = signedHeaders(tenant, 'POST', '/v1/auth/login', '{"username":"abc","password":"x"}', ts)
    const res = await raw('POST', '/v1/auth/login', '{"username": "abc","password":"x"}', headers)
    expect(res.status).toBe(401)
    expect(res.body).toMatchObject({ error: 'UnauthorizedError', message: 'Invalid signature' })
  })

  test('a signature is accepted once: the replay answers 401 Replay detected', async () => {
    // a timestamp no other test here signs this path with
    const ts = String(nowS() - 17)
    const headers = signedHeaders(tenant, 'GET', path, '', ts)
    expect((await raw('GET', path, '', headers)).status).toBe(200)
    const again = await raw('GET', path, '', headers)
    expect(again).toEqual({ status: 401, body: { statusCode: 401, error: 'UnauthorizedError', message: 'Replay detected' } })
  })

  test('the same signature sent ten times at once is accepted once', async () => {
    const ts = String(nowS() - 23)
    const headers = signedHeaders(tenant, 'GET', path, '', ts)
    const statuses = await Promise.all(Array.from({ length: 10 }, () => raw('GET', path, '', headers).then((r) => r.status)))
    expect(statuses.sort()).toEqual([200, ...Array<number>(9).fill(401)])
  })

  test('accepted signatures are kept for the window and deleted once it is over (at most a second later)', async () => {
    const own = await f.tenant()
    const kept = async () => (await t.deps.database.client.execute({ sql: 'select count(*) as n from signature_replays where tenant_id = ?', args: [own.id] })).rows[0]!.n as number
    expect((await f.api.get(path, { signedBy: own })).status).toBe(200)
    expect(await kept()).toBe(1)
    // each is refused as a replay for twice the window (a timestamp may be 300 s either way)
    ;(t.clock as ManualClock).advance(SIGNATURE_WINDOW_SECONDS * 2 * 1000 - 2000)
    expect((await f.api.get(path, { signedBy: own })).status).toBe(200)
    expect(await kept()).toBe(2)
    ;(t.clock as ManualClock).advance(REPLAY_PURGE_INTERVAL_MS + 3000)
    expect((await f.api.get(path, { signedBy: own })).status).toBe(200)
    // the first is gone; the one signed 4 s ago and the one signed now are kept
    expect(await kept()).toBe(2)
  })

  test('body validation runs before the signature check', async () => {
    const res = await f.api.post('/v1/auth/login', { username: 5 }, { signedBy: { apiKey: tenant.apiKey, apiSecret: 'wrong' } })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ error: 'Bad Request', message: 'Request validation failed' })
  })

  test('routes outside the spec table do not check signatures', async () => {
    const res = await f.api.post('/v1/auth/refresh', { refreshToken: 'nope' })
    expect(res.status).toBe(401)
    expect(res.body.message).toBe('Invalid refresh token')
  })

  test('a rotated secret stops working at once', async () => {
    const other = await f.tenant()
    const rotated = await f.api.post(`/v1/admin/tenants/${other.id}/rotate-secret`, undefined, { token: await f.adminToken() })
    expect(rotated.status).toBe(200)
    expect(rotated.body.apiSecret).not.toBe(other.apiSecret)
    expect((await f.api.get(path, { signedBy: other })).body.message).toBe('Invalid signature')
    expect((await f.api.get(path, { signedBy: { apiKey: other.apiKey, apiSecret: rotated.body.apiSecret } })).status).toBe(200)
  })

  test('a sealed secret copied into another tenant\'s row does not open there, though it was opened for its own', async () => {
    const owner = await f.tenant()
    const victim = await f.tenant()
    // the owner's secret has been opened (and kept by the process) for a signed request
    expect((await f.api.get(path, { signedBy: owner })).status).toBe(200)
    const client = t.deps.database.client
    const sealed = String((await client.execute({ sql: 'SELECT api_secret_sealed FROM tenants WHERE id = ?', args: [owner.id] })).rows[0]!.api_secret_sealed)
    await client.execute({ sql: 'UPDATE tenants SET api_secret_sealed = ? WHERE id = ?', args: [sealed, victim.id] })
    const res = await f.api.get(path, { signedBy: { apiKey: victim.apiKey, apiSecret: owner.apiSecret } })
    // a row that does not open is a fault of the database, not of the request: answered as one
    expect(res.status).toBe(500)
    expect(res.body).toEqual({ statusCode: 500, error: 'InternalServerError', message: 'Internal server error' })
  })
})

describe('replay protection across processes', () => {
  test('two API processes sharing one database file refuse each other\'s accepted signatures', async () => {
    // two processes on one database file, each on a port the OS picked (see tests/helpers/process.ts)
    const env = { JWT_SECRET: 'x'.repeat(40), MASTER_KEY: Buffer.alloc(32, 3).toString('base64') }
    const a = await startProcess([process.execPath, 'src/index.ts'], { env })
    const b = await startProcess([process.execPath, 'src/index.ts'], { env, dir: a.dir })
    try {
      const apiA = new Api(a.url)
      const apiB = new Api(b.url)
      const login = await apiA.post('/v1/auth/admin/login', PROCESS_ADMIN)
      const created = await apiA.post('/v1/admin/tenants', { name: 'replay' }, { token: login.body.accessToken })
      const creds = { apiKey: created.body.apiKey, apiSecret: created.body.apiSecret }
      const ts = String(Math.floor(Date.now() / 1000))
      const headers = signedHeaders(creds, 'GET', '/v1/tenant/public', '', ts)
      expect((await apiA.get('/v1/tenant/public', { headers })).status).toBe(200)
      const replay = await apiB.get('/v1/tenant/public', { headers })
      expect(replay.status).toBe(401)
      expect(replay.body.message).toBe('Replay detected')
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  }, 30_000)
})
