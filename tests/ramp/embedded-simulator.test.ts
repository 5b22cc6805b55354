/**
 * The built-in simulator as `npm start` serves it: a tenant whose sandbox is connected with no
 * partner address uses the simulator under /sandbox/bank-ramp of the same app; its hosted page,
 * its API and its webhooks all go through the app, with keys derived per tenant.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { embeddedCredentials } from '@/sandbox/bank-ramp/embedded-keys'
import { until } from './world'

let t: TestApp
let f: Factory
let tenant: Tenant
let user: SignedInUser

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  tenant = await f.tenant({ bankRamp: { sandbox: { connected: true, functions: { kyc: true, payin: true, payout: false } } } })
  user = await f.user(tenant)
})
afterAll(() => t.close())

const page = (url: string, init?: RequestInit) => t.handle(new Request(url, init))

test('onboard on the hosted page, get a virtual IBAN, simulate a deposit: all in one process', async () => {
  const token = user.accessToken
  const settings = await f.api.get('/v1/ramp/bank/settings?isTestnet=true', { token })
  expect(settings.body.simulator).toBe(true)
  const s = await f.api.post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, { token })
  expect(s.status).toBe(200)
  expect(s.body.url).toStartWith('http://slipway.test/sandbox/bank-ramp/onboarding/')
  const html = await page(s.body.url)
  expect(html.status).toBe(200)
  expect(await html.text()).toContain('Approve')
  const decided = await page(`${s.body.url}/decision`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=approve' })
  expect(decided.status).toBe(200)
  await t.deps.bankRampSimulator!.settle()
  const status = await until(() => f.api.get('/v1/ramp/bank/payin/onboarding-status?isTestnet=true', { token }), (r) => r.body.kycStatus === 'approved')
  expect(status.body.verificationStatus).toBe('Approved')

  const wallet = await f.api.post('/v1/wallets/', { chain: 'base', isTestnet: true }, { token })
  const iban = await f.api.post('/v1/ramp/bank/payin/initiate', { walletId: wallet.body.id, isTestnet: true }, { token })
  expect(iban.status).toBe(200)
  expect(iban.body.network).toBe('base')
  const dep = await f.api.post('/v1/ramp/bank/payin/sandbox/simulate-deposit', { amount: 20 }, { token })
  expect(dep.status).toBe(200)
  await t.deps.bankRampSimulator!.settle()
  const deposits = await until(() => f.api.get('/v1/ramp/bank/payin/deposits?isTestnet=true', { token }), (r) => r.body.deposits[0]?.status === 'completed')
  expect(deposits.body.deposits[0].fiatAmount).toBe('20')
  // no chain configured: the delivery is recorded as settled, without a hash
  const txs = await until(() => f.api.get('/v1/ramp/bank/payin/transactions?isTestnet=true', { token }), (r) => r.body.total === 2 && r.body.transactions.every((x: { status: string }) => x.status === 'completed'))
  const delivery = txs.body.transactions.find((x: { transactionType: string }) => x.transactionType === 'payin_delivery')
  expect(delivery).toMatchObject({ transactionHash: null, depositId: dep.body.depositId, cryptoAmount: '21.384' })
})

test('the simulator API refuses keys it did not derive, and a tenant key opens only that tenant\'s account', async () => {
  const url = 'http://slipway.test/sandbox/bank-ramp/v1/payment-methods?CustomerID=x'
  expect((await page(url)).status).toBe(401)
  expect((await page(url, { headers: { 'x-api-key': `sim_${tenant.id}.${'A'.repeat(43)}` } })).status).toBe(401)
  const other = await f.tenant({ bankRamp: { sandbox: { connected: true, functions: { kyc: true, payin: true, payout: false } } } })
  const key = embeddedCredentials(t.deps.jwtKey, other.id).apiKey
  const res = await page(url, { headers: { 'x-api-key': key } })
  expect(res.status).toBe(200)
  expect((await res.json()).Items).toEqual([])
})
