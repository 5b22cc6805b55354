/**
 * The platform core's HTTP behaviour as one suite, run against any server that serves
 * Slipway (the Bun process, the Deno process, the compiled binary).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Api, signedHeaders } from './client'
import { PROCESS_ADMIN, type RunningProcess } from './process'

export function coreHttpSuite(name: string, start: () => Promise<RunningProcess>, timeoutMs = 30_000) {
  describe(name, () => {
    let server: RunningProcess
    let api: Api
    let admin: string
    let creds: { apiKey: string; apiSecret: string }
    let tenantId: string

    beforeAll(async () => {
      server = await start()
      api = new Api(server.url)
      const login = await api.post('/v1/auth/admin/login', PROCESS_ADMIN)
      expect(login.status).toBe(200)
      admin = login.body.accessToken
      const tenant = await api.post('/v1/admin/tenants', { name: `${name} tenant`, settings: { refreshTokenRotation: true } }, { token: admin })
      expect(tenant.status).toBe(201)
      creds = { apiKey: tenant.body.apiKey, apiSecret: tenant.body.apiSecret }
      tenantId = tenant.body.id
    }, timeoutMs)
    afterAll(async () => {
      await server?.stop()
    })

    test('health, docs and the unknown-route answer', async () => {
      expect((await api.get('/health')).body).toEqual({ status: 'ok' })
      const doc = await api.get('/v1/docs/json')
      expect(doc.body.paths['/v1/auth/register']).toBeDefined()
      expect((await api.get('/v1/docs/yaml')).text).toContain('openapi:')
      // the docs UI script, carried in the repository (src/http/assets): served whole under every runtime
      const script = await fetch(`${server.url}/v1/docs/assets/scalar.js`)
      expect(script.status).toBe(200)
      expect(await script.text()).toBe(await Bun.file(join(import.meta.dir, '../../src/http/assets/scalar-standalone.js')).text())
      expect((await api.get('/nope')).body).toEqual({ message: 'Route GET:/nope not found', error: 'Not Found', statusCode: 404 })
    })

    test('register, login, profile, refresh with rotation and reuse detection', async () => {
      const reg = await api.post('/v1/auth/register', { username: 'suite_user', email: 'suite@example.com', password: 'Suite-passw0rd' }, { signedBy: creds })
      expect(reg.status).toBe(201)
      const login = await api.post('/v1/auth/login', { username: 'suite_user', password: 'Suite-passw0rd' }, { signedBy: creds })
      expect(login.status).toBe(200)
      const me = await api.get(`/v1/users/${login.body.user.id}`, { token: login.body.accessToken })
      expect(me.body).toMatchObject({ username: 'suite_user', tenantId })
      const r1 = await api.post('/v1/auth/refresh', { refreshToken: login.body.refreshToken })
      expect(r1.status).toBe(200)
      expect(r1.body.refreshToken).toBeString()
      expect((await api.post('/v1/auth/refresh', { refreshToken: login.body.refreshToken })).status).toBe(401)
      expect((await api.post('/v1/auth/refresh', { refreshToken: r1.body.refreshToken })).status).toBe(401)
      const bad = await api.post('/v1/auth/login', { username: 'suite_user', password: 'wrong-password' }, { signedBy: creds })
      expect(bad.body).toMatchObject({ error: 'UnauthorizedError', message: 'Invalid credentials' })
    })

    test('tenant signature rules and replay', async () => {
      const ts = String(Math.floor(Date.now() / 1000))
      const headers = signedHeaders(creds, 'GET', '/v1/tenant/public', '', ts)
      expect((await api.get('/v1/tenant/public', { headers })).status).toBe(200)
      expect((await api.get('/v1/tenant/public', { headers })).body.message).toBe('Replay detected')
      expect((await api.get('/v1/tenant/public')).body.message).toBe('Missing required HMAC headers: x-tenant-api-key, x-timestamp, x-signature')
      expect((await api.get('/v1/tenant/public', { signedBy: creds, timestamp: Math.floor(Date.now() / 1000) - 400 })).body.message).toBe('Request expired')
      expect((await api.get('/v1/tenant/public', { signedBy: { ...creds, apiKey: 'pk_nope' } })).status).toBe(404)
      expect((await api.get('/v1/tenant/public', { signedBy: { ...creds, apiSecret: 'sk_nope' } })).body.message).toBe('Invalid signature')
      expect((await api.post('/v1/auth/login', { username: 1 }, { signedBy: { ...creds, apiSecret: 'sk_nope' } })).status).toBe(400)
    })

    test('errors: unparsable JSON, schema details, user creation\'s envelope with detail', async () => {
      const parse = await api.post('/v1/admin/tenants', undefined, { raw: '{oops', token: admin })
      expect(parse.status).toBe(400)
      const schema = await api.post('/v1/admin/tenants', {}, { token: admin })
      expect(schema.body.details[0]).toMatchObject({ keyword: 'required', params: { missingProperty: 'name' } })
      const user = await api.post('/v1/users/', { username: 'suite_user', password: 'whatever8', tenantId }, { token: admin })
      expect(user).toMatchObject({ status: 409, body: { statusCode: 409, detail: 'Username already taken' } })
    })

    test('rate limit headers on a limited route', async () => {
      const res = await api.post('/v1/auth/refresh', { refreshToken: 'x' })
      expect(res.headers.get('x-ratelimit-limit')).toBe('60')
      expect(res.headers.get('x-request-id')).toBeString()
    })
  })
}

/**
 * Wallet and transaction routes, whose code and chain libraries load on first use: a
 * wallet at registration (EVM), a Solana wallet, and a quote against an RPC that does
 * not answer (the server must be started with `RPC_URL_SOLANA=http://127.0.0.1:9`),
 * which must come back as the spec's 503, not a 500 from a module that failed to load.
 */
export function chainRoutesSuite(name: string, start: () => Promise<RunningProcess>, timeoutMs = 30_000) {
  describe(name, () => {
    test('wallet and transaction routes load their code on first use', async () => {
      const server = await start()
      try {
        const api = new Api(server.url)
        const admin = (await api.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
        const tenant = (await api.post('/v1/admin/tenants', { name: `${name} chain tenant` }, { token: admin })).body
        const reg = await api.post('/v1/auth/register', { username: 'lazy_user', email: 'lazy@example.com', password: 'Lazy-passw0rd', wallet: { option: 'create', chain: 'ethereum' } }, { signedBy: tenant })
        expect(reg.status).toBe(201)
        expect(reg.body.wallet.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
        const sol = await api.post('/v1/wallets/', { chain: 'solana' }, { token: reg.body.accessToken })
        expect(sol.status).toBe(201)
        const quote = await api.post('/v1/transactions/quote', { walletId: sol.body.id, chain: 'solana', toAddress: sol.body.address, amount: '1' }, { token: reg.body.accessToken })
        expect(quote.status).toBe(503)
        expect(quote.body.message).toBe('The solana network is temporarily unavailable')
      } finally {
        await server.stop()
      }
    }, timeoutMs)
  })
}
