import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory } from '@tests/helpers/factories'
import { createClient } from '@libsql/client'
import { freePort, PROCESS_ADMIN, startProcess } from '@tests/helpers/process'
import { FakeHibp } from '@tests/fakes/hibp'
import { PASSWORD_HASH_MEMORY_KIB } from '@/lib/passwords'
import { startFakeSolana } from '@tests/fakes/solana-rpc'

describe('metrics and readiness', () => {
  let t: TestApp
  let f: Factory
  beforeAll(async () => {
    t = await makeApp({ env: { METRICS_TOKEN: 'scrape-token-0123456789' }, jobs: true })
    f = new Factory(t)
  })
  afterAll(() => t.close())

  test('/metrics needs the metrics token or a platform admin', async () => {
    expect((await f.api.get('/metrics')).status).toBe(401)
    expect((await f.api.get('/metrics', { token: 'wrong-token-wrong-token' })).status).toBe(401)
    const tenant = await f.tenant()
    const ta = await f.tenantAdmin(tenant)
    expect((await f.api.get('/metrics', { token: ta.accessToken })).status).toBe(401)
    expect((await f.api.get('/metrics', { token: await f.adminToken() })).status).toBe(200)
  })

  test('/metrics counts requests by route pattern and status with latency buckets', async () => {
    const tenant = await f.tenant()
    const u = await f.user(tenant)
    await f.api.get(`/v1/users/${u.id}`, { token: u.accessToken })
    await f.api.get('/v1/no/such/route')
    await Bun.sleep(20) // after-response hooks run once the answer is out
    const res = await f.api.get('/metrics', { token: 'scrape-token-0123456789' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/plain')
    expect(res.text).toMatch(/slipway_http_request_duration_seconds_count\{method="GET",route="\/v1\/users\/:id",status="200"\} 1/)
    expect(res.text).toContain('route="unmatched",status="404"')
    expect(res.text).not.toContain(u.id)
    expect(res.text).toContain('slipway_queue_depth{state="outbox"}')
  })

  test('/metrics times calls to chains and partners, by system and outcome', async () => {
    const sol = startFakeSolana()
    const hibp = new FakeHibp().start()
    const m = await makeApp({ env: { METRICS_TOKEN: 'scrape-token-0123456789', RPC_URL_SOLANA_DEVNET: sol.url, HIBP_BASE_URL: hibp.url } })
    try {
      const mf = new Factory(m)
      const u = await mf.user(await mf.tenant())
      const w = await mf.api.post('/v1/wallets/', { chain: 'solana-devnet' }, { token: u.accessToken })
      expect(w.status).toBe(201)
      expect((await mf.api.get(`/v1/wallets/${w.body.id}/balance`, { token: u.accessToken })).status).toBe(200)
      // a second wallet, so nothing is cached, while the RPC answers 500
      sol.mode = 'error'
      const w2 = await mf.api.post('/v1/wallets/', { chain: 'solana-devnet' }, { token: u.accessToken })
      expect((await mf.api.get(`/v1/wallets/${w2.body.id}/balance`, { token: u.accessToken })).status).toBe(503)
      await m.deps.breachedPasswords.occurrences('Correct-horse-1')
      const text = (await mf.api.get('/metrics', { token: 'scrape-token-0123456789' })).text
      const count = (labels: string) => Number(new RegExp(`^slipway_external_call_duration_seconds_count\\{${labels}\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0)
      expect(count('system="rpc:solana-devnet",outcome="ok"')).toBeGreaterThan(0)
      expect(count('system="rpc:solana-devnet",outcome="error"')).toBeGreaterThan(0)
      expect(count('system="hibp",outcome="ok"')).toBe(1)
      expect(text).not.toContain(sol.url)
    } finally {
      await m.close()
      sol.stop()
      hibp.stop()
    }
  })

  test('/health/ready checks the database and the queue', async () => {
    expect((await f.api.get('/health/ready')).body).toEqual({ status: 'ready', checks: { database: 'ok', queue: 'ok' } })
  })
})

describe('roles', () => {
  test('a worker serves only the operations routes; an API process has no queue', async () => {
    const worker = await startProcess([process.execPath, 'src/index.ts'], { env: { SLIPWAY_ROLE: 'worker' } })
    const api = await startProcess([process.execPath, 'src/index.ts'], { env: { SLIPWAY_ROLE: 'api' }, dir: worker.dir })
    try {
      const w = new Api(worker.url)
      expect((await w.get('/health/ready')).body.checks).toEqual({ database: 'ok', queue: 'ok' })
      expect((await w.post('/v1/auth/admin/login', PROCESS_ADMIN)).status).toBe(404)
      const a = new Api(api.url)
      expect((await a.get('/health/ready')).body.checks).toEqual({ database: 'ok' })
      expect((await a.post('/v1/auth/admin/login', PROCESS_ADMIN)).status).toBe(200)
    } finally {
      await Promise.all([worker.stop(), api.stop()])
    }
  }, 30_000)
})

describe('graceful shutdown', () => {
  test('SIGTERM during load: requests in flight finish; none fails with a connection error before the listener closes', async () => {
    // at the production cost of argon2id (the tests lower it, tests/setup.ts): argon2-bound requests keep several in flight when the signal arrives
    const p = await startProcess([process.execPath, 'src/index.ts'], { env: { PASSWORD_HASH_MEMORY_KIB: String(PASSWORD_HASH_MEMORY_KIB) } })
    const api = new Api(p.url)
    const inFlight = Array.from({ length: 16 }, (_, i) => api.post('/v1/auth/admin/login', { ...PROCESS_ADMIN, password: i % 2 ? PROCESS_ADMIN.password : 'wrong-pass' }, { headers: { 'x-forwarded-for': `10.0.0.${i}` } }).then((r) => r.status, (e) => `error: ${e}`))
    await Bun.sleep(5)
    const exited = p.stop('SIGTERM')
    const statuses = await Promise.all(inFlight)
    for (const s of statuses) expect([200, 401, 429]).toContain(s as number)
    expect(await exited).toBe(0)
    // after the listener closed, new connections are refused
    await expect(fetch(`${p.url}/health`)).rejects.toThrow()
  }, 30_000)
})

describe('no queued job is lost across a shutdown', () => {
  test('mails that could not be sent before SIGTERM are all delivered after the restart', async () => {
    // The first process's SMTP server refuses connections, so its mail jobs wait for retries in the queue.
    const firstStarted = Date.now()
    const first = await startProcess([process.execPath, 'src/index.ts'], { env: { SMTP_URL: `smtp://127.0.0.1:${freePort()}` } })
    const api = new Api(first.url)
    const admin = (await api.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
    const tenant = (await api.post('/v1/admin/tenants', { name: 'mailer', settings: { passwordReset: { enabled: true } } }, { token: admin })).body
    const N = 12
    const ids: string[] = []
    for (let i = 0; i < N; i++) {
      const u = await api.post('/v1/users/', { username: `mail_${i}`, password: 'whatever8', email: `mail_${i}@example.com`, tenantId: tenant.id }, { token: admin })
      ids.push(u.body.id)
    }
    const sends = await Promise.all(ids.map((userId) => api.post('/v1/auth/admin/send-reset', { userId, tenantId: tenant.id }, { token: admin })))
    for (const s of sends) expect(s.status).toBe(200)
    expect(await first.stop('SIGTERM')).toBe(0)
    // A mail's next try waits 2 s, 4 s, 8 s... after each failure, each times a random 0.5 to 1.5 (bunqueue's
    // jitter): after k failures within the first process's life L, the next waits 2^(k+1) s x 1.5 at most, and
    // 2^k s is at most L + 2 s, so at most 3 L + 6 s. The wait below covers it, plus the second start; it ends as soon
    // as every mail is there. (L + 10 s found none of the 12 after a restart, beside a CPU burner.)
    const lived = Date.now() - firstStarted
    const probe = createClient({ url: `file:${first.dir}/slipway.db` })
    const before = Number((await probe.execute("select count(*) as n from mail_outbox where to_address like 'mail_%@example.com'")).rows[0]!.n)
    probe.close()
    expect(before).toBe(0)
    // Same database, a new process: whatever was waiting is sent now (to the local outbox, no SMTP_URL).
    const second = await startProcess([process.execPath, 'src/index.ts'], { dir: first.dir })
    const db = createClient({ url: `file:${first.dir}/slipway.db` })
    try {
      let count = 0
      const deadline = Date.now() + 3 * lived + 15_000
      for (;;) {
        count = Number((await db.execute("select count(*) as n from mail_outbox where to_address like 'mail_%@example.com'")).rows[0]!.n)
        if (count >= N || Date.now() > deadline) break
        await Bun.sleep(100)
      }
      expect(count).toBe(N)
    } finally {
      db.close()
      await second.stop()
    }
  }, 180_000)
})
