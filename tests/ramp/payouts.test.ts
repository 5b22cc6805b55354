/**
 * Payouts end to end over HTTP: Slipway served on 127.0.0.1, the simulator as its own server,
 * a custodial wallet on a local chain (anvil, the registry's Sepolia USDC address holding the
 * test ERC-20). Search a channel, fill the form its schema asks for (checked with ajv), quote,
 * pay out from the wallet, receive the partner's events and the tenant's
 * ramp.transaction.updated and ramp.payout.updated. Then idempotency on each route, the
 * production refusal and tenant isolation.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Ajv from 'ajv'
import { parseEther, type Address } from 'viem'
import type { SignedInUser } from '@tests/helpers/factories'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { reader } from '@tests/transactions/helpers'
import type { ManualClock } from '@/lib/clock'
import { evmTransferVerifier } from '@/adapters/chain/transfer-check'
import { findCustomer } from '@/modules/ramp/repo'
import { events, onboard, postPartnerEvent, rampWorld, TRANSACTION_FIELDS, until, type RampTenant, type RampWorld } from './world'

const USDC_SEPOLIA: Address = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'
const DEPOSIT: Address = '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001'
const PAYOUT_FIELDS = ['payoutId', 'userId', 'status', 'cryptoCurrency', 'cryptoAuthorizedAmount', 'fiatAmount', 'fiatCurrency', 'rampTransactionId', 'updatedAt']

let chain: LocalChain
let w: RampWorld
let tenant: RampTenant
let user: SignedInUser
let wallet: { id: string; address: Address }
let channelId: string
const filled = { AccountHolderName: 'Ada Lovelace', IBAN: 'DE89370400440532013000' }

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 11155111 })
  await chain.placeToken(USDC_SEPOLIA)
  // the simulator reads each sell's transfer back from the chain before it pays out
  w = await rampWorld({ sim: { verifier: evmTransferVerifier({ rpcUrl: chain.url, tokenAddress: USDC_SEPOLIA }) } })
  tenant = await w.rampTenant()
  expect((await w.f.api.patch(`/v1/admin/tenants/${tenant.id}`, { chains: { rpc: { sepolia: chain.url } } }, { token: w.admin })).status).toBe(200)
  user = await w.f.user(tenant)
  wallet = await custodial(user)
  await onboard(w, user, 'approve')
  channelId = (await post('/v1/ramp/bank/payout/channels/search', { isTestnet: true, country: 'DE', fiatCurrency: 'EUR' })).body.channels
    .find((c: { paymentMethodType: string }) => c.paymentMethodType === 'BankSepa').channelId
}, 30_000)
afterAll(async () => {
  await w.stop()
  await chain.stop()
})

const post = (path: string, body: unknown, token = user.accessToken, key?: string) =>
  w.f.api.post(path, body, { token, headers: key === undefined ? {} : { 'idempotency-key': key } })
const get = (path: string, token = user.accessToken) => w.f.api.get(path, { token })

/**
 * The payout once its job has moved it on (the sell asked for, or failed): the job runs on
 * the app's clock, which the test moves a second at a time while the chain mines.
 */
async function advanced(payoutId: string, token = user.accessToken) {
  const clock = w.t.clock as ManualClock
  const res = await until(async () => {
    clock.advance(1000)
    await Bun.sleep(40)
    return get(`/v1/ramp/bank/payout/payouts/${payoutId}?isTestnet=true`, token)
  }, (r) => r.body.rampTransactionId !== null || r.body.status !== 'pending', 20_000)
  clock.set(Math.max(clock.now(), Date.now()))
  return res.body as { id: string; status: string; rampTransactionId: string | null; failureReason: string | null; transactionId: string }
}

async function custodial(u: SignedInUser, usdc = 300_000_000n) {
  const res = await w.f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: u.accessToken })
  expect(res.status).toBe(201)
  await chain.sendNative(res.body.address, parseEther('1'))
  await chain.sendToken(res.body.address, usdc, USDC_SEPOLIA)
  return res.body as { id: string; address: Address }
}

describe('the whole payout', () => {
  test('form, quote, pay out from the wallet, partner events, tenant events; the chain agrees', async () => {
    const chainReader = reader(chain.url)
    const startBalance = await chainReader.tokenBalance(USDC_SEPOLIA, wallet.address)

    const form = await post(`/v1/ramp/bank/payout/channels/${channelId}/form`, { isTestnet: true })
    expect(form.status).toBe(200)
    const validate = new Ajv({ strict: false }).compile(form.body.formSchema)
    expect(validate(filled)).toBe(true)

    const quote = await post('/v1/ramp/bank/payout/quotes', { channelId, walletId: wallet.id, fiatAmount: '100', form: filled, isTestnet: true }, user.accessToken, 'quote-1')
    expect(quote.status).toBe(200)
    expect(quote.headers.get('idempotency-replayed')).toBe('false')
    // 100 EUR + 1% fee = 101 EUR at 1.08 = 93.518519 USDC (rounded up); 1% more may be taken at most
    expect(quote.body).toMatchObject({
      environment: 'sandbox', channelId, walletId: wallet.id, network: 'ethereum', cryptoCurrency: 'USDC', fiatAmount: '100', fiatCurrency: 'EUR',
      totalFee: '1', cryptoAmountEstimate: '93518519', cryptoAuthorizedAmount: '94453705', depositAddress: DEPOSIT, status: 'open', payoutId: null,
    })
    expect(Number(quote.body.exchangeRate)).toBeCloseTo(1.08, 5)

    const steps = await post(`/v1/ramp/bank/payout/quotes/${quote.body.id}/steps`, { isTestnet: true })
    expect(steps.status).toBe(200)
    expect(steps.body.steps.map((s: { type: string; status: string }) => [s.type, s.status])).toEqual([['transfer', 'todo'], ['payout', 'todo']])
    expect(steps.body.steps[0]).toMatchObject({ walletId: wallet.id, fromAddress: wallet.address, toAddress: DEPOSIT, amount: '94453705' })
    expect(steps.body.steps[0].tokenAddress.toLowerCase()).toBe(USDC_SEPOLIA.toLowerCase())

    const payout = await post('/v1/ramp/bank/payout/payouts', { quoteId: quote.body.id, isTestnet: true }, user.accessToken, 'payout-1')
    expect(payout.status).toBe(200)
    expect(payout.body).toMatchObject({ quoteId: quote.body.id, walletId: wallet.id, cryptoAuthorizedAmount: '94453705', fiatAmount: '100', fiatCurrency: 'EUR', totalFee: '1' })
    expect(payout.body.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    // the sell waits for the transfer's receipt: the answer is the payout with its transfer sent
    expect(payout.body).toMatchObject({ status: 'pending', rampTransactionId: null })
    const sold = await advanced(payout.body.id)
    expect(sold.rampTransactionId).toMatch(/^[0-9a-f-]{36}$/)
    await w.sim.settle()

    // the crypto leg is a transaction of the transactions module, readable there, and confirmed on chain
    // (the status route reads the chain: this test app's clock does not run the status job)
    const chainTx = await until(() => get(`/v1/transactions/${payout.body.transactionId}/status`), (r) => r.body?.status === 'confirmed', 20_000)
    expect(chainTx.body.txHash).toBe(payout.body.txHash)
    expect((await get(`/v1/transactions/${payout.body.transactionId}`)).body).toMatchObject({ amount: '94453705', status: 'confirmed' })
    expect(await chainReader.tokenBalance(USDC_SEPOLIA, DEPOSIT)).toBe(94_453_705n)
    expect(await chainReader.tokenBalance(USDC_SEPOLIA, wallet.address)).toBe(startBalance - 94_453_705n)

    // the partner's sell went Pending then Settled: two transaction events and two payout status changes
    const all = await until(() => events(w.receiver), (e) => e.filter((x) => x.type === 'ramp.payout.updated').length >= 2 && e.filter((x) => x.type === 'ramp.transaction.updated' && x.data.transactionType === 'payout').length >= 2, 15_000)
    const txEvents = all.filter((e) => e.type === 'ramp.transaction.updated' && e.data.transactionType === 'payout')
    expect(txEvents).toHaveLength(2)
    for (const e of txEvents) {
      expect(Object.keys(e.data).sort()).toEqual([...TRANSACTION_FIELDS].sort())
      expect(e.data).toMatchObject({ rampTransactionId: sold.rampTransactionId, userId: user.id, direction: 'out', cryptoCurrency: 'USDC', fiatAmount: '100', fiatCurrency: 'EUR', network: 'ethereum', fiatFeeAmount: '1', fiatRate: '1.08', cryptoAmount: '93.518519' })
    }
    expect(txEvents.map((e) => e.data.status).sort()).toEqual(['completed', 'pending'])
    const payoutEvents = all.filter((e) => e.type === 'ramp.payout.updated')
    expect(payoutEvents).toHaveLength(2)
    for (const e of payoutEvents) {
      expect(Object.keys(e.data).sort()).toEqual([...PAYOUT_FIELDS].sort())
      expect(e).toMatchObject({ environment: 'sandbox', data: { payoutId: payout.body.id, userId: user.id, cryptoCurrency: 'USDC', cryptoAuthorizedAmount: '94453705', fiatAmount: '100', fiatCurrency: 'EUR', rampTransactionId: sold.rampTransactionId } })
    }
    expect(payoutEvents.map((e) => e.data.status).sort()).toEqual(['completed', 'processing'])
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length)

    const read = await get(`/v1/ramp/bank/payout/payouts/${payout.body.id}?isTestnet=true`)
    expect(read.body).toMatchObject({ id: payout.body.id, status: 'completed' })
    const list = await get('/v1/ramp/bank/payout/transactions?isTestnet=true&limit=5')
    expect(list.body).toMatchObject({ total: 1, page: 1, limit: 5, totalPages: 1 })
    expect(list.body.payouts.map((p: { id: string }) => p.id)).toEqual([payout.body.id])
    const used = await get(`/v1/ramp/bank/payout/quotes/${quote.body.id}?isTestnet=true`)
    expect(used.body).toMatchObject({ status: 'used', payoutId: payout.body.id })
    const done = await post(`/v1/ramp/bank/payout/quotes/${quote.body.id}/steps`, { isTestnet: true })
    expect(done.body.steps.map((s: { status: string }) => s.status)).toEqual(['done', 'done'])

    // the account paid is now a beneficiary; its form asks for nothing more
    const ben = await get('/v1/ramp/bank/payout/beneficiaries?isTestnet=true')
    expect(ben.status).toBe(200)
    expect(ben.body.beneficiaries).toHaveLength(1)
    expect(ben.body.beneficiaries[0]).toMatchObject({ paymentMethodCategory: 'Bank', country: 'DE', accountNumberLast4: '3000' })
    const again = await post(`/v1/ramp/bank/payout/channels/${channelId}/form`, { isTestnet: true, paymentMethodId: ben.body.beneficiaries[0].paymentMethodId })
    expect(again.status).toBe(200)
    expect(again.body).toEqual({ environment: 'sandbox', channelId, formSchema: null, formContentHash: null })

    // a quote pays once
    const twice = await post('/v1/ramp/bank/payout/payouts', { quoteId: quote.body.id, isTestnet: true })
    expect(twice.status).toBe(409)
  }, 60_000)

  test('initiate: a crypto amount (6 decimals) paid out in one call; fiatAmount with 2 decimals and exchangeRate as strings', async () => {
    const res = await post('/v1/ramp/bank/payout/initiate', { channelId, walletId: wallet.id, cryptoAmount: '20000000', form: filled, isTestnet: true }, user.accessToken, 'init-1')
    expect(res.status).toBe(200)
    expect(res.body.fiatAmount).toMatch(/^\d+\.\d{2}$/)
    expect(typeof res.body.exchangeRate).toBe('string')
    expect(res.body.cryptoAmount).toBe('20000000')
    // 20 USDC at 1.08 = 21.60 EUR less the fee and slippage: what may be taken stays within 20 USDC
    expect(BigInt(res.body.cryptoAuthorizedAmount)).toBeLessThanOrEqual(20_000_000n)
    expect(BigInt(res.body.cryptoAuthorizedAmount)).toBeGreaterThan(19_000_000n)
    expect(Number(res.body.fiatAmount)).toBeGreaterThan(20)
    expect(Number(res.body.fiatAmount)).toBeLessThan(21.6)
    await advanced(res.body.id)
    await w.sim.settle()
    const done = await until(() => get(`/v1/ramp/bank/payout/payouts/${res.body.id}?isTestnet=true`), (r) => r.body.status === 'completed')
    // a retry with the key answers the payout as it is now
    const replay = await post('/v1/ramp/bank/payout/initiate', { isTestnet: true, cryptoAmount: '20000000', walletId: wallet.id, channelId, form: filled }, user.accessToken, 'init-1')
    expect(replay.status).toBe(200)
    expect(replay.headers.get('idempotency-replayed')).toBe('true')
    expect(replay.body).toEqual({ ...done.body, cryptoAmount: '20000000' })
    const list = await get('/v1/ramp/bank/payout/transactions?isTestnet=true')
    expect(list.body.total).toBe(2)
  }, 60_000)
})

describe('Idempotency-Key on quotes, payouts and initiate', () => {
  test('same key and body: the stored answer, nothing called again; another body: 409 IDEMPOTENCY_KEY_REUSED; a bad key: 400', async () => {
    const body = { channelId, walletId: wallet.id, fiatAmount: '10.00', form: filled, isTestnet: true }
    const a = await post('/v1/ramp/bank/payout/quotes', body, user.accessToken, 'q-same')
    const b = await post('/v1/ramp/bank/payout/quotes', { isTestnet: true, form: filled, fiatAmount: '10.00', walletId: wallet.id, channelId }, user.accessToken, 'q-same')
    expect(a.status).toBe(200)
    expect(b.headers.get('idempotency-replayed')).toBe('true')
    expect(b.body.id).toBe(a.body.id)
    const other = await post('/v1/ramp/bank/payout/quotes', { ...body, fiatAmount: '11.00' }, user.accessToken, 'q-same')
    expect(other.status).toBe(409)
    expect(other.body.details.code).toBe('IDEMPOTENCY_KEY_REUSED')
    const bad = await post('/v1/ramp/bank/payout/quotes', body, user.accessToken, 'not valid!')
    expect(bad.status).toBe(400)
    expect(bad.body.details.code).toBe('IDEMPOTENCY_KEY_INVALID')

    const p1 = await post('/v1/ramp/bank/payout/payouts', { quoteId: a.body.id, isTestnet: true }, user.accessToken, 'p-same')
    expect(p1.status).toBe(200)
    const p2 = await post('/v1/ramp/bank/payout/payouts', { quoteId: a.body.id, isTestnet: true }, user.accessToken, 'p-same')
    expect(p2.status).toBe(200)
    expect(p2.headers.get('idempotency-replayed')).toBe('true')
    expect(p2.body).toEqual((await get(`/v1/ramp/bank/payout/payouts/${p1.body.id}?isTestnet=true`)).body)
    // without the key the quote is not paid a second time either
    expect((await post('/v1/ramp/bank/payout/payouts', { quoteId: a.body.id, isTestnet: true })).status).toBe(409)
    const init = await post('/v1/ramp/bank/payout/initiate', { channelId, walletId: wallet.id, cryptoAmount: '5000000', isTestnet: true, form: filled }, user.accessToken, 'i-other')
    expect(init.status).toBe(200)
    const reused = await post('/v1/ramp/bank/payout/initiate', { channelId, walletId: wallet.id, cryptoAmount: '6000000', isTestnet: true, form: filled }, user.accessToken, 'i-other')
    expect(reused.status).toBe(409)
    await w.sim.settle()
  }, 60_000)

  test('a refused request keeps no key: the same request runs again', async () => {
    const body = { channelId, walletId: wallet.id, fiatAmount: '20000.00', form: filled, isTestnet: true }
    const a = await post('/v1/ramp/bank/payout/quotes', body, user.accessToken, 'q-refused')
    expect(a.status).toBe(400)
    expect(a.body.details).toMatchObject({ code: 'RAMP_REQUEST_REFUSED', fields: { FiatAmount: 'out of limits' } })
    const b = await post('/v1/ramp/bank/payout/quotes', body, user.accessToken, 'q-refused')
    expect(b.status).toBe(400)
    expect(b.headers.get('idempotency-replayed')).toBe('false')
  })
})

describe('refusals', () => {
  test('production payouts: 403 PAYOUT_PRODUCTION_UNAVAILABLE on quotes, payouts and initiate', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['/v1/ramp/bank/payout/quotes', { channelId, walletId: wallet.id, fiatAmount: '10.00' }],
      ['/v1/ramp/bank/payout/quotes', { channelId, walletId: wallet.id, fiatAmount: '10.00', isTestnet: false }],
      ['/v1/ramp/bank/payout/payouts', { quoteId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f' }],
      ['/v1/ramp/bank/payout/initiate', { channelId, walletId: wallet.id, cryptoAmount: '1000000', isTestnet: false }],
    ]
    for (const [path, body] of cases) {
      const res = await post(path, body)
      expect(res.status).toBe(403)
      expect(res.body.details).toEqual({ code: 'PAYOUT_PRODUCTION_UNAVAILABLE' })
    }
  })

  test('a filled form the schema refuses: the partner\'s 400 with the fields; nothing stored', async () => {
    const before = (await get('/v1/ramp/bank/payout/transactions?isTestnet=true')).body.total
    const res = await post('/v1/ramp/bank/payout/quotes', { channelId, walletId: wallet.id, fiatAmount: '10.00', form: { AccountHolderName: 'Ada', IBAN: 'DE00370400440532013000' }, isTestnet: true })
    expect(res.status).toBe(400)
    expect(res.body.details.fields).toEqual({ IBAN: 'check digits do not match' })
    expect((await get('/v1/ramp/bank/payout/transactions?isTestnet=true')).body.total).toBe(before)
  })

  test('a wallet that cannot pay: someone else\'s or unknown 404; a payout the chain refuses leaves no payout behind', async () => {
    const other = await w.f.user(tenant)
    const theirs = await w.f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: other.accessToken })
    const res = await post('/v1/ramp/bank/payout/quotes', { channelId, walletId: theirs.body.id, fiatAmount: '10.00', form: filled, isTestnet: true })
    expect(res.status).toBe(404)
    // a wallet with no USDC: the quote is given, the transfer cannot be sent, nothing is recorded
    const empty = await w.f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: user.accessToken })
    await chain.sendNative(empty.body.address, parseEther('1'))
    const q = await post('/v1/ramp/bank/payout/quotes', { channelId, walletId: empty.body.id, fiatAmount: '10.00', form: filled, isTestnet: true })
    expect(q.status).toBe(200)
    const before = (await get('/v1/ramp/bank/payout/transactions?isTestnet=true')).body.total
    const p = await post('/v1/ramp/bank/payout/payouts', { quoteId: q.body.id, isTestnet: true })
    expect(p.status).toBe(400)
    expect(p.body.code).toBe('INSUFFICIENT_BALANCE')
    expect((await get('/v1/ramp/bank/payout/transactions?isTestnet=true')).body.total).toBe(before)
    expect((await get(`/v1/ramp/bank/payout/quotes/${q.body.id}?isTestnet=true`)).body.status).toBe('open')
  }, 30_000)

  test('tenant isolation: another tenant\'s quote and payout ids answer 404 like unknown ones', async () => {
    const mine = (await get('/v1/ramp/bank/payout/transactions?isTestnet=true')).body.payouts[0]
    const t2 = await w.rampTenant({ hook: false })
    const u2 = await w.f.user(t2)
    for (const path of [`/v1/ramp/bank/payout/payouts/${mine.id}?isTestnet=true`, `/v1/ramp/bank/payout/quotes/${mine.quoteId}?isTestnet=true`]) {
      const theirs = await get(path, u2.accessToken)
      const unknown = await get(path.replace(/[0-9a-f-]{36}/, '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f'), u2.accessToken)
      expect(theirs.status).toBe(404)
      expect(theirs.body).toEqual(unknown.body)
    }
    const steps = await post(`/v1/ramp/bank/payout/quotes/${mine.quoteId}/steps`, { isTestnet: true }, u2.accessToken)
    expect(steps.status).toBe(404)
    const pay = await post('/v1/ramp/bank/payout/payouts', { quoteId: mine.quoteId, isTestnet: true }, u2.accessToken)
    expect(pay.status).toBe(404)
    // the other user of the same tenant does not see them either
    const u3 = await w.f.user(tenant)
    expect((await get(`/v1/ramp/bank/payout/payouts/${mine.id}?isTestnet=true`, u3.accessToken)).status).toBe(404)
  })
})

let afterExpiry = () => {}
describe('a quote pays once, and only while it is open', () => {
  test('two payouts of one quote at once: one is paid, the other answers 409; one transfer leaves the wallet', async () => {
    const q = await post('/v1/ramp/bank/payout/quotes', { channelId, walletId: wallet.id, fiatAmount: '5.00', form: filled, isTestnet: true })
    expect(q.status).toBe(200)
    const before = await reader(chain.url).tokenBalance(USDC_SEPOLIA, wallet.address)
    const [a, b] = await Promise.all([0, 1].map(() => post('/v1/ramp/bank/payout/payouts', { quoteId: q.body.id, isTestnet: true })))
    expect([a!.status, b!.status].sort()).toEqual([200, 409])
    await w.sim.settle()
    const paid = a!.status === 200 ? a! : b!
    await advanced(paid.body.id)
    await until(() => get(`/v1/transactions/${paid.body.transactionId}/status`), (r) => r.body?.status === 'confirmed', 20_000)
    expect(await reader(chain.url).tokenBalance(USDC_SEPOLIA, wallet.address)).toBe(before - BigInt(q.body.cryptoAuthorizedAmount))
  }, 30_000)

  test('an expired quote: 400 RAMP_QUOTE_EXPIRED, nothing sent', async () => {
    const q = await post('/v1/ramp/bank/payout/quotes', { channelId, walletId: wallet.id, fiatAmount: '5.00', form: filled, isTestnet: true })
    const clock = w.t.clock as ManualClock
    clock.advance(10 * 60_000)
    // back to the wall clock afterwards: the simulator signs its webhooks with real time
    afterExpiry = () => clock.set(Date.now())
    expect((await get(`/v1/ramp/bank/payout/quotes/${q.body.id}?isTestnet=true`)).body.status).toBe('expired')
    const res = await post('/v1/ramp/bank/payout/payouts', { quoteId: q.body.id, isTestnet: true })
    expect(res.status).toBe(400)
    expect(res.body.details).toEqual({ code: 'RAMP_QUOTE_EXPIRED' })
    expect((await get(`/v1/ramp/bank/payout/quotes/${q.body.id}?isTestnet=true`)).body).toMatchObject({ status: 'expired', payoutId: null })
    afterExpiry()
  })
})

describe('the unified feed', () => {
  test('bank ramp deposits and payouts appear beside sends, newest first, paged across sources', async () => {
    const iban = await post('/v1/ramp/bank/payin/initiate', { walletId: wallet.id, isTestnet: true })
    expect(iban.status).toBe(200)
    const dep = await post('/v1/ramp/bank/payin/sandbox/simulate-deposit', { amount: 50.25 })
    expect(dep.status).toBe(200)
    await w.sim.settle()
    await until(() => get(`/v1/transactions/aggregated/ramp:deposit:${dep.body.depositId}`), (r) => r.body?.status === 'confirmed')

    const all = await get('/v1/transactions/aggregated/?limit=100')
    expect(all.status).toBe(200)
    const items = all.body.data as Array<{ id: string; kind: string; createdAt: string }>
    expect(all.body.pagination.total).toBe(items.length)
    const times = items.map((i) => i.createdAt)
    expect(times).toEqual([...times].sort().reverse())
    const deposit = items.find((i) => i.id === `ramp:deposit:${dep.body.depositId}`) as Record<string, unknown> | undefined
    expect(deposit).toEqual({
      id: `ramp:deposit:${dep.body.depositId}`, kind: 'deposit', direction: 'in', status: 'confirmed', chain: 'ethereum', isTestnet: true, amount: '5025',
      token: { address: null, symbol: 'EUR', decimals: 2 }, counterparty: null, txHash: null, walletId: wallet.id, simulation: false, createdAt: expect.any(String), updatedAt: expect.any(String),
    })
    const payouts = (await get('/v1/ramp/bank/payout/transactions?isTestnet=true&limit=100')).body.payouts as Array<{ id: string; transactionId: string; fiatAmount: string; txHash: string }>
    for (const p of payouts) {
      const item = items.find((i) => i.id === `ramp:payout:${p.id}`) as Record<string, unknown> | undefined
      expect(item).toMatchObject({ kind: 'payout', direction: 'out', chain: 'ethereum', isTestnet: true, walletId: wallet.id, txHash: p.txHash, token: { address: null, symbol: 'EUR', decimals: 2 } })
      // the feed's amount is in cents (decimals 2); the payout's fiatAmount is decimal text without trailing zeros
      const [whole, frac = ''] = p.fiatAmount.split('.')
      expect(item!.amount).toBe((BigInt(whole!) * 100n + BigInt((frac + '00').slice(0, 2))).toString())
      // its crypto leg is a send of its own
      expect(items.some((i) => i.id === `tx:${p.transactionId}` && i.kind === 'send')).toBe(true)
    }
    // pages of 2 walk the same merged order
    const walked: string[] = []
    for (let page = 1; page <= Math.ceil(items.length / 2); page++) {
      const res = await get(`/v1/transactions/aggregated/?limit=2&page=${page}`)
      expect(res.body.pagination).toEqual({ page, limit: 2, total: items.length, totalPages: Math.ceil(items.length / 2) })
      walked.push(...res.body.data.map((i: { id: string }) => i.id))
    }
    expect(walked).toEqual(items.map((i) => i.id))
    // filters reach the ramp items too
    const confirmed = await get('/v1/transactions/aggregated/?limit=100&status=confirmed')
    expect(confirmed.body.data.every((i: { status: string }) => i.status === 'confirmed')).toBe(true)
    expect(confirmed.body.data.some((i: { id: string }) => i.id === deposit!.id)).toBe(true)
    const other = await get('/v1/transactions/aggregated/?limit=100&walletId=6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f')
    expect(other.body.data).toEqual([])
    expect((await get('/v1/transactions/aggregated/?limit=100&status=awaiting_signature')).body.data.some((i: { id: string }) => i.id.startsWith('ramp:'))).toBe(false)
  }, 30_000)

  test('one ramp item by id; another user\'s or tenant\'s answers 404 like an unknown one', async () => {
    const payout = (await get('/v1/ramp/bank/payout/transactions?isTestnet=true')).body.payouts[0]
    const mine = await get(`/v1/transactions/aggregated/ramp:payout:${payout.id}`)
    expect(mine.status).toBe(200)
    expect(mine.body.id).toBe(`ramp:payout:${payout.id}`)
    const t2 = await w.rampTenant({ hook: false })
    for (const u of [await w.f.user(tenant), await w.f.user(t2)]) {
      const theirs = await get(`/v1/transactions/aggregated/ramp:payout:${payout.id}`, u.accessToken)
      const unknown = await get('/v1/transactions/aggregated/ramp:payout:6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', u.accessToken)
      expect(theirs.status).toBe(404)
      expect(theirs.body).toEqual(unknown.body)
      expect((await get('/v1/transactions/aggregated/?limit=100', u.accessToken)).body.data).toEqual([])
    }
    expect((await get('/v1/transactions/aggregated/ramp:nothing:1')).status).toBe(404)
  })
})

describe('partner events about a payout', () => {
  test('repeats and older versions send nothing; a status change sends both events; the same status again only the transaction\'s', async () => {
    const payout = (await get('/v1/ramp/bank/payout/transactions?isTestnet=true&limit=100')).body.payouts.find((p: { status: string }) => p.status === 'completed')
    const customer = await findCustomer(w.t.deps.database.db, tenant.id, 'sandbox', user.id)
    const event = (version: number, status: string) => ({
      EventType: 'Transaction', EventVersion: version, Occurred: new Date().toISOString(),
      Data: {
        ID: payout.rampTransactionId, Network: 'EthereumTestSepolia', Created: new Date().toISOString(), Status: status, Direction: 'Out', CustomerID: customer!.id,
        CryptoCurrency: 'USDC_TEST', Amount: '93.518519', ExternalID: payout.id, FiatPayment: { Amount: payout.fiatAmount, FeeAmount: '1.00', Rate: '1.08', FiatCurrency: 'EUR' }, Breakdown: [], Refunds: [],
      },
    })
    const count = (type: string) => events(w.receiver, type).filter((e) => e.data.rampTransactionId === payout.rampTransactionId).length
    const before = { tx: count('ramp.transaction.updated'), payout: count('ramp.payout.updated') }
    for (const version of [1, 2]) {
      const res = await postPartnerEvent(tenant.webhookUrl, tenant.webhookKey, event(version, 'Settled'))
      expect(res).toEqual({ status: 200, body: { received: true, outcome: 'stale' } })
    }
    const failed = await postPartnerEvent(tenant.webhookUrl, tenant.webhookKey, event(3, 'Failed'))
    expect(failed.body.outcome).toBe('applied')
    await until(() => count('ramp.payout.updated'), (n) => n === before.payout + 1)
    expect((await get(`/v1/ramp/bank/payout/payouts/${payout.id}?isTestnet=true`)).body).toMatchObject({ status: 'failed', failureReason: expect.any(String) })
    const last = events(w.receiver, 'ramp.payout.updated').filter((e) => e.data.payoutId === payout.id).find((e) => e.data.status === 'failed')
    expect(last.data).toMatchObject({ payoutId: payout.id, status: 'failed', cryptoAuthorizedAmount: payout.cryptoAuthorizedAmount, fiatAmount: payout.fiatAmount })
    const same = await postPartnerEvent(tenant.webhookUrl, tenant.webhookKey, event(4, 'Failed'))
    expect(same.body.outcome).toBe('applied')
    await until(() => count('ramp.transaction.updated'), (n) => n === before.tx + 2)
    await Bun.sleep(300)
    expect(count('ramp.payout.updated')).toBe(before.payout + 1)
    expect(count('ramp.transaction.updated')).toBe(before.tx + 2)
  })
})
