/** Bank ramp routes: access rules and every error code, inputs, tenant isolation, a partner that misbehaves. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '@tests/helpers/app'
import type { SignedInUser } from '@tests/helpers/factories'
import { MisbehavingPartner } from '@tests/fakes/bank-ramp-partner'
import { ALL_ON, onboard, rampWorld, type RampTenant, type RampWorld } from './world'

let w: RampWorld
let tenant: RampTenant
let user: SignedInUser
let walletId: string
const partner = new MisbehavingPartner()
const clock = new ManualClock(Date.now())

beforeAll(async () => {
  partner.start()
  w = await rampWorld({ app: { clock } })
  tenant = await w.rampTenant()
  user = await w.f.user(tenant)
  const wallet = await w.f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: user.accessToken })
  walletId = wallet.body.id
})
afterAll(async () => {
  await w.stop()
  partner.stop()
})

const api = () => w.f.api
const get = (path: string, token = user.accessToken) => api().get(path, { token })
const post = (path: string, body: unknown, token = user.accessToken) => api().post(path, body, { token })

describe('who may use the bank ramp', () => {
  test('a token without a tenant: 403', async () => {
    const res = await get('/v1/ramp/bank/payin/onboarding-status?isTestnet=true', w.admin)
    expect(res.status).toBe(403)
    expect(res.body).toMatchObject({ statusCode: 403, error: 'ForbiddenError' })
  })

  test('a tenant that does not use the bank ramp: 403 on every route', async () => {
    const plain = await w.f.tenant()
    const u = await w.f.user(plain)
    for (const [method, path] of [['GET', '/v1/ramp/bank/payin/onboarding-status?isTestnet=true'], ['POST', '/v1/ramp/bank/payin/onboard-session'], ['GET', '/v1/ramp/bank/settings'], ['POST', '/v1/ramp/bank/payin/initiate']] as const) {
      const res = method === 'GET' ? await get(path, u.accessToken) : await post(path, path.endsWith('initiate') ? { walletId } : {}, u.accessToken)
      expect(res.status).toBe(403)
      expect(res.body.message).toStartWith('This tenant does not use the bank ramp')
      expect(res.body.details).toEqual({ code: 'RAMP_NOT_USED', setting: 'bankRamp.sandbox.connected' })
      // it names what to change: the setting, or the command that creates a tenant with it
      expect(res.body.message).toContain('"connected": true')
      expect(res.body.message).toContain('tenant create --name <name> --sandbox')
    }
  })

  test('not connected in the chosen environment: 503 RAMP_NOT_CONFIGURED and the partner is not called', async () => {
    const t = await w.rampTenant({ production: { connected: false, baseUrl: partner.url, apiKey: 'k', functions: ALL_ON } })
    const u = await w.f.user(t)
    const calls = partner.calls
    const res = await post('/v1/ramp/bank/payin/onboard-session', {}, u.accessToken)
    expect(res.status).toBe(503)
    expect(res.body).toEqual({ statusCode: 503, error: 'RampApiError', message: expect.any(String), details: { code: 'RAMP_NOT_CONFIGURED', environment: 'production' } })
    expect(partner.calls).toBe(calls)
  })

  test('connected in production without a partner address: 503 RAMP_NOT_CONFIGURED (the simulator serves only the sandbox)', async () => {
    const t = await w.rampTenant({ production: { connected: true, functions: ALL_ON } })
    const u = await w.f.user(t)
    const res = await post('/v1/ramp/bank/payin/onboard-session', { isTestnet: false }, u.accessToken)
    expect(res.status).toBe(503)
    expect(res.body.details.code).toBe('RAMP_NOT_CONFIGURED')
  })

  test('a function switched off: 403 RAMP_FUNCTION_OFF naming the function and environment', async () => {
    const t = await w.rampTenant({ functions: { kyc: false, payin: false } })
    const u = await w.f.user(t)
    const kyc = await get('/v1/ramp/bank/payin/onboarding-status?isTestnet=true', u.accessToken)
    expect(kyc.status).toBe(403)
    expect(kyc.body.details).toEqual({ code: 'RAMP_FUNCTION_OFF', function: 'kyc', environment: 'sandbox' })
    const payin = await post('/v1/ramp/bank/payin/initiate', { walletId, isTestnet: true }, u.accessToken)
    expect(payin.body.details).toEqual({ code: 'RAMP_FUNCTION_OFF', function: 'payin', environment: 'sandbox' })
    // settings still answer, so an app can hide what is off
    const settings = await get('/v1/ramp/bank/settings?isTestnet=true', u.accessToken)
    expect(settings.status).toBe(200)
    expect(settings.body).toEqual({ environment: 'sandbox', functions: { kyc: false, payin: false, payout: true }, simulator: false, limits: { simulateDepositMax: '15000' } })
  })

  test('card top-up: always 403 CARD_TOPUP_UNAVAILABLE, whatever the body', async () => {
    for (const body of [{ fiatAmount: '50.00' }, undefined, { anything: 1 }]) {
      const res = await post('/v1/ramp/bank/payin/checkout', body)
      expect(res.status).toBe(403)
      expect(res.body.details).toEqual({ code: 'CARD_TOPUP_UNAVAILABLE' })
    }
    expect((await api().post('/v1/ramp/bank/payin/checkout', {})).status).toBe(401)
  })
})

describe('KYC', () => {
  test('sync-status: 404 RAMP_CUSTOMER_NOT_FOUND before any session; synced false until the hosted page is opened', async () => {
    const u = await w.f.user(tenant)
    const none = await post('/v1/ramp/bank/payin/sync-status', { isTestnet: true }, u.accessToken)
    expect(none.status).toBe(404)
    expect(none.body.details).toEqual({ code: 'RAMP_CUSTOMER_NOT_FOUND', environment: 'sandbox' })
    const initiate = await post('/v1/ramp/bank/payin/initiate', { walletId, isTestnet: true }, u.accessToken)
    expect(initiate.status).toBe(404)
    const s = await post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, u.accessToken)
    expect(s.status).toBe(200)
    const notYet = await post('/v1/ramp/bank/payin/sync-status', { isTestnet: true }, u.accessToken)
    expect(notYet.status).toBe(200)
    expect(notYet.body).toMatchObject({ synced: false, status: { kycStatus: 'not_started', onboardingStatus: 'session_created', nextStep: 'complete_onboarding' } })
    await fetch(s.body.url)
    const synced = await post('/v1/ramp/bank/payin/sync-status', { isTestnet: true }, u.accessToken)
    expect(synced.body).toMatchObject({ synced: true, status: { kycStatus: 'pending', onboardingStatus: 'in_review', verificationStatus: 'Pending', nextStep: 'wait_for_review' } })
  })

  test('asking for more information and declining show in the status', async () => {
    const u = await w.f.user(tenant)
    await onboard(w, u, 'more_info')
    const more = await get('/v1/ramp/bank/payin/onboarding-status?isTestnet=true', u.accessToken)
    expect(more.body).toMatchObject({ kycStatus: 'action_required', actionsRequired: ['ProofOfAddress'], nextStep: 'provide_information' })
    const v = await w.f.user(tenant)
    await onboard(w, v, 'decline')
    const declined = await get('/v1/ramp/bank/payin/onboarding-status?isTestnet=true', v.accessToken)
    expect(declined.body).toMatchObject({ kycStatus: 'rejected', onboardingStatus: 'completed', verificationStatus: 'Declined', nextStep: 'contact_support' })
    // the partner refuses a virtual IBAN to a declined customer; its refusal passes through
    const wallet = await api().post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: v.accessToken })
    const refused = await post('/v1/ramp/bank/payin/initiate', { walletId: wallet.body.id, isTestnet: true }, v.accessToken)
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ error: 'RampApiError', details: { code: 'RAMP_REQUEST_REFUSED', type: 'Forbidden' } })
  })
})

describe('pay-ins', () => {
  test('currencies and pairs: RAMP_PAIR_UNAVAILABLE lists what is offered', async () => {
    const cur = await get('/v1/ramp/bank/currencies?isTestnet=true')
    expect(cur.status).toBe(200)
    expect(cur.body.fiat).toEqual([{ currency: 'EUR' }])
    expect(cur.body.crypto[0]).toMatchObject({ currency: 'USDC', rampCurrency: 'USDC_TEST' })
    await onboard(w, user)
    const btc = await post('/v1/ramp/bank/payin/initiate', { walletId, isTestnet: true, cryptoCurrency: 'BTC' })
    expect(btc.status).toBe(400)
    expect(btc.body.details.code).toBe('RAMP_PAIR_UNAVAILABLE')
    expect(btc.body.details.available).toContainEqual({ fiatCurrency: 'EUR', cryptoCurrency: 'USDC', network: 'ethereum' })
    const avax = await api().post('/v1/wallets/', { chain: 'avalanche', isTestnet: true }, { token: user.accessToken })
    expect(avax.status).toBe(201)
    const unoffered = await post('/v1/ramp/bank/payin/initiate', { walletId: avax.body.id, isTestnet: true })
    expect(unoffered.body.details.code).toBe('RAMP_PAIR_UNAVAILABLE')
    const mainnetWallet = await post('/v1/ramp/bank/payin/initiate', { walletId, isTestnet: true, network: 'polygon' })
    expect(mainnetWallet.status).toBe(400)
  })

  test('the alias initiate-deposit gives the same virtual IBAN', async () => {
    const a = await post('/v1/ramp/bank/payin/initiate', { walletId, isTestnet: true })
    const b = await post('/v1/ramp/bank/payin/initiate-deposit', { walletId, isTestnet: true })
    expect(a.status).toBe(200)
    expect(b.body.iban).toBe(a.body.iban)
  })

  test('simulate-deposit: a JSON number, at most 2 decimals, at most 15000', async () => {
    for (const amount of [15000.01, 0, -5, '100', 1.234, null]) {
      const res = await post('/v1/ramp/bank/payin/sandbox/simulate-deposit', { amount })
      expect(res.status).toBe(400)
      expect(res.body.statusCode).toBe(400)
    }
    const ok = await post('/v1/ramp/bank/payin/sandbox/simulate-deposit', { amount: 15000 })
    expect(ok.status).toBe(200)
    expect(ok.body.fiatAmount).toBe('15000')
    await w.sim.settle()
  })

  test('bad inputs answer the spec\'s envelope, never 500', async () => {
    const cases = [
      await post('/v1/ramp/bank/payin/initiate', { walletId: 'nope', isTestnet: true }),
      await post('/v1/ramp/bank/payin/initiate', { isTestnet: true }),
      await get('/v1/ramp/bank/payin/deposits?isTestnet=maybe'),
      await get('/v1/ramp/bank/payin/deposits?limit=1000'),
      await get('/v1/ramp/bank/payin/transactions?offset=-1'),
      await api().post('/v1/ramp/bank/payin/onboard-session', undefined, { token: user.accessToken, raw: '{"isTestnet":', headers: { 'content-type': 'application/json' } }),
      await post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true, returnUrl: 'javascript:alert(1)' }),
      await post('/v1/ramp/bank/payin/sandbox/simulate-deposit', { amount: 5, paymentMethodId: 'x' }),
    ]
    for (const res of cases) {
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ statusCode: 400, error: expect.any(String), message: expect.any(String) })
    }
  })

  test('another tenant\'s or user\'s ids answer 404 like unknown ones', async () => {
    const otherTenant = await w.rampTenant()
    const stranger = await w.f.user(otherTenant)
    await onboard(w, stranger)
    const theirs = await post('/v1/ramp/bank/payin/initiate', { walletId, isTestnet: true }, stranger.accessToken)
    const unknown = await post('/v1/ramp/bank/payin/initiate', { walletId: crypto.randomUUID(), isTestnet: true }, stranger.accessToken)
    expect(theirs.status).toBe(404)
    expect(theirs.body).toEqual(unknown.body)
    const mine = await get('/v1/ramp/bank/payin/payment-methods?isTestnet=true')
    const pm = mine.body.paymentMethods[0].id
    const sim = await post('/v1/ramp/bank/payin/sandbox/simulate-deposit', { amount: 5, paymentMethodId: pm }, stranger.accessToken)
    expect(sim.status).toBe(404)
    const neighbour = await w.f.user(tenant)
    await onboard(w, neighbour)
    expect((await post('/v1/ramp/bank/payin/sandbox/simulate-deposit', { amount: 5, paymentMethodId: pm }, neighbour.accessToken)).status).toBe(404)
    for (const path of ['/v1/ramp/bank/payin/deposits?isTestnet=true', '/v1/ramp/bank/payin/transactions?isTestnet=true']) {
      const res = await get(path, stranger.accessToken)
      expect(res.body.total).toBe(0)
    }
    expect((await get('/v1/ramp/bank/payin/payment-methods?isTestnet=true', neighbour.accessToken)).body.paymentMethods).toEqual([])
  })
})

describe('a partner that misbehaves', () => {
  let t: RampTenant
  let u: SignedInUser
  beforeAll(async () => {
    t = await w.rampTenant()
    // the same tenant, now pointed at the misbehaving partner
    const res = await api().patch(`/v1/admin/tenants/${t.id}`, { settings: { bankRamp: { sandbox: { baseUrl: partner.url } } } }, { token: w.admin })
    expect(res.status).toBe(200)
    u = await w.f.user(t)
  })
  const cases: Array<[string, number, string]> = [
    ['slow', 503, 'RAMP_TIMEOUT'],
    ['down', 503, 'RAMP_UNAVAILABLE'],
    ['rate-limited', 503, 'RAMP_RATE_LIMITED'],
    ['bad-key', 502, 'RAMP_AUTHENTICATION_FAILED'],
    ['refuse', 422, 'RAMP_REQUEST_REFUSED'],
    ['garbage', 503, 'RAMP_UNAVAILABLE'],
  ]
  for (const [mode, status, code] of cases) {
    test(`${mode}: ${status} ${code}, and nothing is recorded`, async () => {
      partner.mode = mode as never
      const res = await post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, u.accessToken)
      expect(res.status).toBe(status)
      expect(res.body).toMatchObject({ statusCode: status, error: 'RampApiError', details: { code } })
      const status2 = await get('/v1/ramp/bank/payin/onboarding-status?isTestnet=true', u.accessToken)
      expect(status2.body.onboardingStatus).toBe('not_started')
    })
  }
  afterAll(() => { partner.mode = 'ok' })
})

// last: it moves the clock past the session's life (and the access tokens')
describe('after an hour', () => {
  test('onboard-session returns the unexpired session, and a new one after it expired', async () => {
    const u = await w.f.user(tenant)
    const a = await post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, u.accessToken)
    const b = await post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, u.accessToken)
    expect(a.body.reused).toBe(false)
    expect(b.body).toEqual({ ...a.body, reused: true })
    clock.advance(61 * 60_000)
    const token = (await api().post('/v1/auth/login', { username: u.username, password: u.password }, { signedBy: tenant })).body.accessToken
    const c = await post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, token)
    expect(c.body.reused).toBe(false)
    expect(c.body.url).not.toBe(a.body.url)
  })

})

test('the OpenAPI document describes every bank ramp route, with the Idempotency-Key header where it is taken', async () => {
  const doc = (await api().get('/v1/docs/json')).body as { paths: Record<string, Record<string, { operationId?: string; description?: string; parameters?: Array<{ name: string; in: string }> }>> }
  const ramp = Object.entries(doc.paths).filter(([p]) => p.startsWith('/v1/ramp/bank'))
  // part 1: 13 paths; part 2: 11 payout paths and 4 of proven addresses
  expect(ramp.length).toBe(28)
  for (const [path, ops] of ramp) {
    for (const op of Object.values(ops)) {
      expect(op.operationId, path).toBeString()
      expect(op.description?.length ?? 0, path).toBeGreaterThan(20)
    }
  }
  for (const path of ['/v1/ramp/bank/payin/onboard-session', '/v1/ramp/bank/payin/initiate', '/v1/ramp/bank/payin/initiate-deposit', '/v1/ramp/bank/payout/quotes', '/v1/ramp/bank/payout/payouts', '/v1/ramp/bank/payout/initiate', '/v1/transactions/']) {
    expect(doc.paths[path]!.post!.parameters?.some((p) => p.name === 'idempotency-key' && p.in === 'header'), path).toBe(true)
  }
})
