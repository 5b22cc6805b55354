/**
 * `Idempotency-Key` on onboard-session and payin initiate: every row of the spec's table, two
 * concurrent requests with one key (in one app, and in two processes sharing one database
 * file), and the header on every answer. The partner counts its calls.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeApp, TEST_JWT_SECRET, TEST_MASTER_KEY, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { MisbehavingPartner } from '@tests/fakes/bank-ramp-partner'
import { startProcess } from '@tests/helpers/process'
import { RAMP_TIMEOUT_MS, until } from './world'
import { canonicalJson } from '@/http/idempotency'

const partner = new MisbehavingPartner()
let t: TestApp
let f: Factory
let tenant: Tenant
let user: SignedInUser
let walletId: string

async function rampTenant(factory: Factory) {
  return factory.tenant({ bankRamp: { sandbox: { connected: true, baseUrl: partner.url, apiKey: 'key', webhookKey: 'whk', functions: { kyc: true, payin: true, payout: true } } } })
}
async function readyUser(factory: Factory, tn: Tenant) {
  const u = await factory.user(tn)
  const s = await factory.api.post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, { token: u.accessToken })
  expect(s.status).toBe(200)
  const wallet = await factory.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: u.accessToken })
  return { u, walletId: wallet.body.id as string }
}

beforeAll(async () => {
  partner.start()
  t = await makeApp({ env: { BANK_RAMP_TIMEOUT_MS: String(RAMP_TIMEOUT_MS) } })
  f = new Factory(t)
  tenant = await rampTenant(f)
  ;({ u: user, walletId } = await readyUser(f, tenant))
})
afterAll(async () => {
  await t.close()
  partner.stop()
})
// every test starts with a partner that answers
beforeEach(() => { partner.mode = 'ok' })

const initiate = (body: Record<string, unknown>, key?: string, token = user.accessToken, path = '/v1/ramp/bank/payin/initiate') =>
  f.api.post(path, body, { token, headers: key === undefined ? {} : { 'idempotency-key': key } })

describe('the table', () => {
  test('no header: every request runs, and answers say idempotency-replayed: false', async () => {
    const calls = partner.calls
    const a = await initiate({ walletId, isTestnet: true })
    const b = await initiate({ walletId, isTestnet: true })
    expect([a.status, b.status]).toEqual([200, 200])
    expect(partner.calls).toBe(calls + 2)
    expect(a.headers.get('idempotency-replayed')).toBe('false')
    expect(b.headers.get('idempotency-replayed')).toBe('false')
  })

  test('same key, same body in another field order: the stored answer, replayed, and the partner is not called', async () => {
    const key = crypto.randomUUID()
    const first = await initiate({ walletId, isTestnet: true, cryptoCurrency: 'USDC' }, key)
    expect(first.status).toBe(200)
    const calls = partner.calls
    const again = await f.api.post('/v1/ramp/bank/payin/initiate', undefined, {
      token: user.accessToken, headers: { 'idempotency-key': key, 'content-type': 'application/json' }, raw: JSON.stringify({ cryptoCurrency: 'USDC', isTestnet: true, walletId }),
    })
    expect(again.status).toBe(200)
    expect(again.body).toEqual(first.body)
    expect(again.headers.get('idempotency-replayed')).toBe('true')
    expect(partner.calls).toBe(calls)
  })

  test('same key, another body: 409 IDEMPOTENCY_KEY_REUSED and nothing runs', async () => {
    const key = crypto.randomUUID()
    await initiate({ walletId, isTestnet: true }, key)
    const calls = partner.calls
    const res = await initiate({ walletId, isTestnet: true, cryptoCurrency: 'USDC' }, key)
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({ statusCode: 409, error: 'ConflictError', details: { code: 'IDEMPOTENCY_KEY_REUSED' } })
    expect(res.headers.get('idempotency-replayed')).toBe('false')
    expect(partner.calls).toBe(calls)
  })

  test('same key after a refusal or failure: runs again', async () => {
    const key = crypto.randomUUID()
    partner.mode = 'down'
    const failed = await initiate({ walletId, isTestnet: true }, key)
    expect(failed.status).toBe(503)
    expect(failed.headers.get('idempotency-replayed')).toBe('false')
    partner.mode = 'ok'
    const calls = partner.calls
    const ok = await initiate({ walletId, isTestnet: true }, key)
    expect(ok.status).toBe(200)
    expect(ok.headers.get('idempotency-replayed')).toBe('false')
    expect(partner.calls).toBe(calls + 1)
    // a schema refusal is not kept either
    const bad = await initiate({ walletId: 'x' }, 'k-schema')
    expect(bad.status).toBe(400)
    expect((await initiate({ walletId, isTestnet: true }, 'k-schema')).status).toBe(200)
  })

  test('invalid characters or longer than 255: 400 IDEMPOTENCY_KEY_INVALID and nothing runs', async () => {
    const calls = partner.calls
    for (const key of ['has space', 'ünï', 'a'.repeat(256), 'semi;colon']) {
      const res = await initiate({ walletId, isTestnet: true }, key)
      expect(res.status).toBe(400)
      expect(res.body.details).toEqual({ code: 'IDEMPOTENCY_KEY_INVALID' })
      expect(res.headers.get('idempotency-replayed')).toBe('false')
    }
    expect(partner.calls).toBe(calls)
    expect((await initiate({ walletId, isTestnet: true }, `A-_${'z'.repeat(252)}`)).status).toBe(200)
  })

  test('a key belongs to one user and one endpoint', async () => {
    const key = crypto.randomUUID()
    const mine = await initiate({ walletId, isTestnet: true }, key)
    const { u: other, walletId: otherWallet } = await readyUser(f, tenant)
    const theirs = await initiate({ walletId: otherWallet, isTestnet: true }, key, other.accessToken)
    expect(theirs.status).toBe(200)
    expect(theirs.headers.get('idempotency-replayed')).toBe('false')
    const alias = await initiate({ walletId, isTestnet: true }, key, user.accessToken, '/v1/ramp/bank/payin/initiate-deposit')
    expect(alias.headers.get('idempotency-replayed')).toBe('false')
    expect(mine.headers.get('idempotency-replayed')).toBe('false')
  })

  test('onboard-session keeps its first answer under its key', async () => {
    const { u } = await readyUser(f, tenant)
    const key = crypto.randomUUID()
    const a = await f.api.post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, { token: u.accessToken, headers: { 'idempotency-key': key } })
    const b = await f.api.post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, { token: u.accessToken, headers: { 'idempotency-key': key } })
    expect(a.status).toBe(200)
    expect(b.body).toEqual(a.body)
    expect(b.headers.get('idempotency-replayed')).toBe('true')
    expect(a.headers.get('idempotency-replayed')).toBe('false')
  })
})

describe('concurrent requests with one key', () => {
  test('in one process: one runs, the other answers 409 IDEMPOTENCY_IN_PROGRESS', async () => {
    partner.mode = 'slow-ok'
    const key = crypto.randomUUID()
    const calls = partner.calls
    const [a, b] = await Promise.all([initiate({ walletId, isTestnet: true }, key), initiate({ walletId, isTestnet: true }, key)])
    expect([a.status, b.status].sort()).toEqual([200, 409])
    const loser = a.status === 409 ? a : b
    expect(loser.body.details).toEqual({ code: 'IDEMPOTENCY_IN_PROGRESS' })
    expect(partner.calls).toBe(calls + 1)
    // once it finished, the key answers the stored result
    const later = await initiate({ walletId, isTestnet: true }, key)
    expect(later.headers.get('idempotency-replayed')).toBe('true')
  })

  test('in two processes sharing one database file: one runs', async () => {
    // This process serves one of them in-process; the other is a real server process on the
    // same file. (Two apps in one process are not two processes: a connection waiting on
    // SQLite's lock there blocks the thread the other needs to finish.)
    // The first request's partner call is held open until the second has answered, so the two overlap on any machine
    // (a 300 ms slow answer did not: beside CPU burners the second process's request sometimes came after the first had
    // finished, and was answered the stored result). The partner's time limit is long enough for that wait.
    const dir = mkdtempSync(join(tmpdir(), 'slipway-idem-'))
    const env = { BANK_RAMP_TIMEOUT_MS: '20000', JWT_SECRET: TEST_JWT_SECRET, MASTER_KEY: TEST_MASTER_KEY }
    const one = await makeApp({ env: { ...env, DATABASE_URL: `file:${join(dir, 'slipway.db')}` } })
    const two = await startProcess([process.execPath, 'src/index.ts'], { dir, env })
    let release = () => {}
    try {
      const f1 = new Factory(one)
      const tn = await rampTenant(f1)
      const { u, walletId: wid } = await readyUser(f1, tn)
      const key = crypto.randomUUID()
      const calls = partner.calls
      const call = (target: TestApp | string) => new Api(target).post('/v1/ramp/bank/payin/initiate', { walletId: wid, isTestnet: true }, { token: u.accessToken, headers: { 'idempotency-key': key } })
      partner.held = new Promise<void>((resolve) => (release = resolve))
      // this process claims the key and waits at the partner; the other process, asked meanwhile, finds it in progress
      const first = call(one)
      await until(() => partner.calls, (n) => n === calls + 1, 15_000)
      const b = await call(two.url)
      release()
      const a = await first
      expect([a.status, b.status]).toEqual([200, 409])
      expect(b.body.details).toEqual({ code: 'IDEMPOTENCY_IN_PROGRESS' })
      expect(partner.calls).toBe(calls + 1)
      const replay = await call(two.url)
      expect(replay.status).toBe(200)
      expect(replay.headers.get('idempotency-replayed')).toBe('true')
      expect(replay.body).toEqual(a.body)
    } finally {
      release()
      partner.held = undefined
      await two.stop()
      await one.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 30_000)
})

test('canonical JSON: same fields and values in any order give the same text', () => {
  expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }))
  expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }))
})
