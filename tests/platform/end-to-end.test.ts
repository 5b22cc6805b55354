import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Api } from '@tests/helpers/client'

// The API as operators run it: `bun src/index.ts` on a SQLite file, over real HTTP.
let proc: ReturnType<typeof Bun.spawn>
let api: Api
const dir = mkdtempSync(join(tmpdir(), 'slipway-e2e-'))

beforeAll(async () => {
  const port = 21000 + Math.floor(Math.random() * 20000)
  proc = Bun.spawn([process.execPath, 'src/index.ts'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `file:${dir}/slipway.db`, BOOTSTRAP_ADMIN_USERNAME: 'ops', BOOTSTRAP_ADMIN_PASSWORD: 'Ops-passw0rd', LOG_LEVEL: 'silent' },
    stdout: 'ignore', stderr: 'inherit',
  })
  api = new Api(`http://127.0.0.1:${port}`)
  for (let i = 0; i < 100; i++) {
    try {
      if ((await api.get('/health')).status === 200) return
    } catch { /* starting */ }
    await Bun.sleep(50)
  }
  throw new Error('the API did not start')
})
afterAll(async () => {
  proc.kill()
  await proc.exited
})

test('health, admin login, tenant creation, register, login and profile over HTTP', async () => {
  const admin = await api.post('/v1/auth/admin/login', { username: 'ops', password: 'Ops-passw0rd' })
  expect(admin.status).toBe(200)
  const tenant = await api.post('/v1/admin/tenants', { name: 'E2E Co' }, { token: admin.body.accessToken })
  expect(tenant.status).toBe(201)
  const creds = { apiKey: tenant.body.apiKey, apiSecret: tenant.body.apiSecret }
  const reg = await api.post('/v1/auth/register', { username: 'e2e_user', email: 'e2e@example.com', password: 'E2e-passw0rd' }, { signedBy: creds })
  expect(reg.status).toBe(201)
  const login = await api.post('/v1/auth/login', { username: 'e2e_user', password: 'E2e-passw0rd' }, { signedBy: creds })
  expect(login.status).toBe(200)
  const me = await api.get(`/v1/users/${login.body.user.id}`, { token: login.body.accessToken })
  expect(me.body).toMatchObject({ username: 'e2e_user', email: 'e2e@example.com', tenantId: tenant.body.id })
  const refreshed = await api.post('/v1/auth/refresh', { refreshToken: login.body.refreshToken })
  expect(refreshed.status).toBe(200)
})
