import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'

describe('rate limits over real HTTP', () => {
  let t: TestApp
  let server: HttpServer
  let api: Api
  beforeAll(async () => {
    t = await makeApp()
    server = serve(t)
    api = new Api(server.url)
  })
  afterAll(async () => {
    await server.stop()
    await t.close()
  })

  test('limited routes send the x-ratelimit headers; the 21st login in a minute answers 429 with retry-after', async () => {
    const body = { username: 'nobody', password: 'wrong-password' }
    const first = await api.post('/v1/auth/admin/login', body)
    expect(first.headers.get('x-ratelimit-limit')).toBe('20')
    expect(first.headers.get('x-ratelimit-remaining')).toBe('19')
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0)
    for (let i = 0; i < 19; i++) await api.post('/v1/auth/admin/login', body)
    const limited = await api.post('/v1/auth/admin/login', body)
    expect(limited.status).toBe(429)
    expect(limited.body.statusCode).toBe(429)
    expect(limited.body.error).toBe('Error')
    expect(limited.body.message).toMatch(/retry in \d+ seconds/)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0')
    // other routes keep their own counters
    expect((await api.post('/v1/auth/refresh', { refreshToken: 'x' })).headers.get('x-ratelimit-limit')).toBe('60')
  })

  test('unlimited routes send no rate-limit headers', async () => {
    const res = await api.get('/health')
    expect(res.headers.get('x-ratelimit-limit')).toBeNull()
  })

  test('X-Forwarded-For is ignored without TRUSTED_PROXIES', async () => {
    const res = await api.post('/v1/auth/admin/login', { username: 'a', password: 'b' }, { headers: { 'x-forwarded-for': '203.0.113.9' } })
    expect(res.status).toBe(429)
  })

  test('the window resets with time', async () => {
    const clock = t.clock as unknown as { advance(ms: number): void }
    clock.advance(61_000)
    expect((await api.post('/v1/auth/admin/login', { username: 'a', password: 'b' })).status).toBe(401)
  })
})

describe('behind a trusted proxy', () => {
  test('X-Forwarded-For names the client when the socket is a trusted proxy', async () => {
    const t = await makeApp({ env: { TRUSTED_PROXIES: '127.0.0.0/8,::1' } })
    const server = serve(t)
    const api = new Api(server.url)
    try {
      const as = (ip: string) => api.post('/v1/auth/admin/login', { username: 'a', password: 'b' }, { headers: { 'x-forwarded-for': `198.51.100.7, ${ip}` } })
      for (let i = 0; i < 20; i++) expect((await as('203.0.113.1')).status).toBe(401)
      expect((await as('203.0.113.1')).status).toBe(429)
      // another client behind the same proxy has its own bucket
      expect((await as('203.0.113.2')).status).toBe(401)
    } finally {
      await server.stop()
      await t.close()
    }
  })
})
