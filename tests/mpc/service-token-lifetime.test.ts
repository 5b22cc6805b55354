/**
 * A service party's token lives as long as the session (issue 37, item 10): with
 * MPC_SESSION_TTL_SECONDS at 3,600, a DKG whose device party comes back after five minutes
 * still completes with Slipway's own service party (the worker's job, over the relay's HTTP
 * routes), and the tenant-signed token answers the session's lifetime.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { runDkg } from '@/client/mpc-party'
import { makeApp, ManualClock, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { freePort } from '@tests/helpers/process'
import { until } from '@tests/helpers/until'

const clock = new ManualClock(Date.now())
let t: TestApp
let server: HttpServer
let api: Api
let f: Factory
let tenant: Tenant

beforeAll(async () => {
  const port = freePort()
  t = await makeApp({ clock, jobs: true, env: { MPC_RELAY_URL: `http://127.0.0.1:${port}`, MPC_SESSION_TTL_SECONDS: '3600' } })
  server = serve(t, port)
  api = new Api(server.url)
  f = new Factory(t, api)
  tenant = await f.tenant({ walletMode: 'mpc' })
}, 30_000)
afterAll(async () => {
  await server?.stop()
  await t?.close()
})

test('the tenant-signed service token lives as long as a session and still works after five minutes', async () => {
  const res = await api.post('/v1/mpc/service/token', undefined, { signedBy: tenant })
  expect(res.status).toBe(200)
  const token = res.body.token as string
  const u = await f.user(tenant)
  expect(res.body.expiresIn).toBe(3600)
  expect(Date.parse(res.body.expiresAt) - clock.now()).toBeGreaterThan(3599_000)
  const s = await api.post('/v1/mpc/wallets/dkg/start', { chain: 'sepolia' }, { token: u.accessToken })
  expect(s.status).toBe(200)
  clock.advance(301_000)
  expect((await api.get(`/v1/mpc/relay/session/${s.body.sessionId}/parties`, { token })).status).toBe(200)
  clock.advance(3300_000)
  expect((await api.get(`/v1/mpc/relay/session/${s.body.sessionId}/parties`, { token })).status).toBe(401)
})

test('a DKG whose device comes back after five minutes completes with Slipway\'s service party', async () => {
  clock.set(Date.now())
  const u: SignedInUser = await f.user(tenant)
  const start = await api.post('/v1/mpc/wallets/dkg/start', { chain: 'sepolia' }, { token: u.accessToken })
  expect(start.status).toBe(200)
  const sessionId = start.body.sessionId as string
  // the service party (a job) joins and waits for the others
  await until(() => api.get(`/v1/mpc/relay/session/${sessionId}/parties`, { token: u.accessToken }),
    (r) => r.body.parties?.some((p: { partyId: number; joined: boolean }) => p.partyId === 1 && p.joined), 20_000)
  // the device and the backup are slow: five minutes and a second pass (the session lives an hour)
  clock.advance(301_000)
  const relay = { baseUrl: server.url, token: u.accessToken, roundTimeoutMs: 20_000, engine: process.env.MPC_ENGINE! }
  const [device, backup] = await Promise.all([runDkg(relay, sessionId, 0), runDkg(relay, sessionId, 2)])
  expect(device.publicKey).toBe(backup.publicKey)
  const results = await until(() => api.get(`/v1/mpc/relay/session/${sessionId}/results`, { token: u.accessToken }), (r) => r.body.status !== 'open', 20_000)
  expect(results.body.status).toBe('completed')
  expect(results.body.results.map((r: { partyId: number }) => r.partyId)).toEqual([0, 1, 2])
}, 60_000)
