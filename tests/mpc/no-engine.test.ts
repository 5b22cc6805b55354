/**
 * A deployment without an MPC engine (MPC_ENGINE unset: Slipway carries none, docs/mpc.md "The
 * engine"): the config route says so, and every route that would start a protocol run answers
 * 503 MPC_ENGINE_NOT_CONFIGURED, a registration before its user is written.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'

let t: TestApp
let f: Factory
let mpc: Tenant
let u: SignedInUser

beforeAll(async () => {
  t = await makeApp({ env: { MPC_ENGINE: '' } })
  f = new Factory(t)
  mpc = await f.tenant({ walletMode: 'mpc' })
  u = await f.user(mpc)
})
afterAll(() => t.close())

test('GET /v1/mpc/config: not enabled, no library, no rounds', async () => {
  const res = await f.api.get('/v1/mpc/config', { token: u.accessToken })
  expect(res.status).toBe(200)
  expect(res.body).toMatchObject({ enabled: false, protocol: 'DKLs23', library: null, rounds: null, threshold: 2, participants: 3 })
})

test('DKG start and a registration that would open one answer 503 MPC_ENGINE_NOT_CONFIGURED; the user is not written', async () => {
  const start = await f.api.post('/v1/mpc/wallets/dkg/start', { chain: 'ethereum' }, { token: u.accessToken })
  expect(start.status).toBe(503)
  expect(start.body).toMatchObject({ code: 'MPC_ENGINE_NOT_CONFIGURED', message: expect.stringContaining('MPC_ENGINE') })
  const reg = await f.api.post('/v1/auth/register', { username: 'noengine', email: 'noengine@example.com', password: 'Passw0rd-long', wallet: { option: 'create', chain: 'ethereum' } }, { signedBy: mpc })
  expect(reg.status).toBe(503)
  // the sign-in routes answer the one error envelope, like every route
  expect(reg.body).toMatchObject({ statusCode: 503, error: 'ServiceUnavailableError', message: expect.stringContaining('MPC_ENGINE') })
  expect((await f.api.post('/v1/auth/login', { username: 'noengine', password: 'Passw0rd-long' }, { signedBy: mpc })).status).toBe(401)
})

test('sign/start answers 503 MPC_ENGINE_NOT_CONFIGURED before it reads anything', async () => {
  const res = await f.api.post(`/v1/mpc/wallets/${crypto.randomUUID()}/sign/start`, { preparedTransactionId: crypto.randomUUID() }, { token: u.accessToken })
  expect(res.status).toBe(503)
  expect(res.body.code).toBe('MPC_ENGINE_NOT_CONFIGURED')
})
