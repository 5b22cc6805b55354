/**
 * `POST /v1/ramp/bank/payout/payouts` (a quote paid out; it shares payQuote with initiate, whose
 * faults tests/ramp/payout-safety.test.ts injects) with an `Idempotency-Key` and a fault at each
 * step, over HTTP on ganache with real transfers (issue 30, item 2): before the broadcast, after
 * it, the partner refusing the sell, and the partner's answer lost. And a transfer the node takes
 * and drops, never mined (item 1): the payout fails, its hold is released, `ramp.payout.updated`
 * is published, and the partner is never asked to sell.
 * Faults come from proxies of our own: tests/helpers/rpc-fault-proxy.ts before the chain, and
 * one before the partner simulator (answers 503 to the sell, before or after passing it on).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseEther, type Address } from 'viem'
import type { SignedInUser } from '@tests/helpers/factories'
import { startRpcFaultProxy, type RpcFaultProxy } from '@tests/helpers/rpc-fault-proxy'
import { startLocalChain, type LocalChain } from '@tests/wallets/ganache'
import { reader } from '@tests/transactions/helpers'
import type { ManualClock } from '@/lib/clock'
import { evmTransferVerifier } from '@/adapters/chain/transfer-check'
import { startPartnerProxy, type PartnerProxy } from './partner-proxy'
import { events, onboard, rampWorld, until, type RampTenant, type RampWorld } from './world'

const USDC_SEPOLIA: Address = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'
const filled = { AccountHolderName: 'Ada Lovelace', IBAN: 'DE89370400440532013000' }

let chain: LocalChain
let w: RampWorld
let tenant: RampTenant
let channelId: string
let rpc: RpcFaultProxy
let partner: PartnerProxy


beforeAll(async () => {
  chain = await startLocalChain({ chainId: 11155111 })
  await chain.placeToken(USDC_SEPOLIA)
  // a dropped transfer is given up at once (no resends) once TX_DROP_AFTER_MS passed on the app's clock
  w = await rampWorld({ app: { env: { TX_MAX_RESENDS: '0', TX_DROP_AFTER_MS: '20000' } }, sim: { verifier: evmTransferVerifier({ rpcUrl: chain.url, tokenAddress: USDC_SEPOLIA }) } })
  rpc = await startRpcFaultProxy(chain.url)
  partner = startPartnerProxy(w.sim.apiUrl)
  tenant = await w.rampTenant()
  const patch = await w.f.api.patch(`/v1/admin/tenants/${tenant.id}`, {
    chains: { rpc: { sepolia: rpc.url } },
    bankRamp: { sandbox: { connected: true, baseUrl: partner.url, apiKey: tenant.partnerKey, webhookKey: tenant.webhookKey } },
  }, { token: w.admin })
  expect(patch.status).toBe(200)
}, 30_000)
afterAll(async () => {
  rpc.stop()
  partner?.stop()
  await w.stop()
  await chain.stop()
})

const post = (u: SignedInUser, path: string, body: unknown, key?: string) =>
  w.f.api.post(path, body, { token: u.accessToken, headers: key === undefined ? {} : { 'idempotency-key': key } })
const get = (u: SignedInUser, path: string) => w.f.api.get(path, { token: u.accessToken })
const usdc = (a: Address) => reader(chain.url).tokenBalance(USDC_SEPOLIA, a)
const nonceOf = (a: Address) => reader(chain.url).nonce(a)
const answered = (res: { status: number; body: unknown }, status: number) => expect({ status: res.status, body: res.body }).toMatchObject({ status })

/** A KYC-approved user with a custodial Sepolia wallet holding 50 USDC and 1 ETH, and a quote of 20 EUR from it. */
async function payer() {
  const u = await w.f.user(tenant)
  await onboard(w, u, 'approve')
  const res = await w.f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: u.accessToken })
  answered(res, 201)
  const wallet = res.body as { id: string; address: Address }
  await chain.sendNative(wallet.address, parseEther('1'))
  await chain.sendToken(wallet.address, 50_000_000n, USDC_SEPOLIA)
  if (!channelId) {
    channelId = (await post(u, '/v1/ramp/bank/payout/channels/search', { isTestnet: true, country: 'DE', fiatCurrency: 'EUR' })).body.channels
      .find((c: { paymentMethodType: string }) => c.paymentMethodType === 'BankSepa').channelId
  }
  return { u, wallet, quote: await quote(u, wallet.id) }
}
async function quote(u: SignedInUser, walletId: string) {
  const q = await post(u, '/v1/ramp/bank/payout/quotes', { channelId, walletId, fiatAmount: '20', form: filled, isTestnet: true })
  answered(q, 200)
  return q.body as { id: string; cryptoAuthorizedAmount: string }
}
const pay = (u: SignedInUser, quoteId: string, key: string) => post(u, '/v1/ramp/bank/payout/payouts', { quoteId, isTestnet: true }, key)
const payout = (u: SignedInUser, id: string) => get(u, `/v1/ramp/bank/payout/payouts/${id}?isTestnet=true`)

/** Moves the app's clock a second at a time (its jobs run on it) until `done` holds for what `read` answers. */
function ticking<T>(read: () => T | Promise<T>, done: (v: T) => boolean, timeoutMs = 30_000) {
  const clock = w.t.clock as ManualClock
  return until(async () => {
    clock.advance(1000)
    await Bun.sleep(40)
    return read()
  }, done, timeoutMs)
}
/** The payout once its job has moved it on (by default: the sell asked for, or the payout ended). */
async function advanced(u: SignedInUser, id: string, done: (p: Record<string, any>) => boolean = (p) => p.rampTransactionId !== null || p.status !== 'pending') {
  return (await ticking(() => payout(u, id), (r) => done(r.body))).body as Record<string, any>
}
/** Settled by the partner: completed, and the wallet paid the quote's amount once, in one transfer. */
async function paidOnce(u: SignedInUser, wallet: { address: Address }, id: string, amount: string) {
  await advanced(u, id)
  await w.sim.settle()
  await until(() => payout(u, id), (r) => r.body.status === 'completed')
  expect(await usdc(wallet.address)).toBe(50_000_000n - BigInt(amount))
  expect(await nonceOf(wallet.address)).toBe(1)
  expect((await get(u, '/v1/ramp/bank/payout/transactions?isTestnet=true')).body.total).toBe(1)
}

describe('POST /payouts with an Idempotency-Key and a fault at each step', () => {
  test('before the broadcast (the node refuses it): the error is answered, nothing recorded, the quote still open; the same key pays once', async () => {
    const { u, wallet, quote: q } = await payer()
    const first = await rpc.during('reject', () => pay(u, q.id, 'payouts-before'))
    expect({ status: first.status, code: first.body.code }).toEqual({ status: 400, code: 'TRANSACTION_REJECTED' })
    expect((await get(u, '/v1/ramp/bank/payout/transactions?isTestnet=true')).body.total).toBe(0)
    expect((await get(u, `/v1/ramp/bank/payout/quotes/${q.id}?isTestnet=true`)).body).toMatchObject({ status: 'open', payoutId: null })
    const again = await pay(u, q.id, 'payouts-before')
    answered(again, 200)
    expect(again.headers.get('idempotency-replayed')).toBe('false')
    await paidOnce(u, wallet, again.body.id, q.cryptoAuthorizedAmount)
  }, 60_000)

  test('after the broadcast (the node took it, its answer was lost): the payout goes on; a retry answers the same payout; one transfer', async () => {
    const { u, wallet, quote: q } = await payer()
    const first = await rpc.during('lose', () => pay(u, q.id, 'payouts-after'))
    answered(first, 200)
    expect(first.body).toMatchObject({ status: 'pending', txHash: expect.stringMatching(/^0x/) })
    const retry = await pay(u, q.id, 'payouts-after')
    answered(retry, 200)
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    expect(retry.body.id).toBe(first.body.id)
    await paidOnce(u, wallet, first.body.id, q.cryptoAuthorizedAmount)
  }, 60_000)

  test('the partner answers the sell 503: answered pending (not a retryable 503); a retry answers the payout; sold and paid once', async () => {
    const { u, wallet, quote: q } = await payer()
    partner.mode = 'fail'
    const sellsBefore = partner.sells
    let first
    try {
      first = await pay(u, q.id, 'payouts-partner')
      answered(first, 200)
      expect(first.body).toMatchObject({ status: 'pending', rampTransactionId: null })
      await ticking(() => partner.sells, (n) => n > sellsBefore)
      const retry = await pay(u, q.id, 'payouts-partner')
      expect(retry.headers.get('idempotency-replayed')).toBe('true')
      expect(retry.body).toMatchObject({ id: first.body.id, status: 'pending', rampTransactionId: null })
    } finally {
      partner.mode = 'forward'
    }
    await paidOnce(u, wallet, first.body.id, q.cryptoAuthorizedAmount)
  }, 60_000)

  test('after the partner\'s answer (taken, the answer lost): the sell is asked again with the same Nonce; one partner transaction; a retry answers it completed', async () => {
    const { u, wallet, quote: q } = await payer()
    partner.mode = 'lose'
    const passedBefore = partner.passed
    let first
    try {
      first = await pay(u, q.id, 'payouts-answer')
      answered(first, 200)
      await ticking(() => partner.passed, (n) => n > passedBefore)
    } finally {
      partner.mode = 'forward'
    }
    await paidOnce(u, wallet, first.body.id, q.cryptoAuthorizedAmount)
    const done = (await payout(u, first.body.id)).body
    const txEvents = events(w.receiver, 'ramp.transaction.updated').filter((e) => e.data.transactionType === 'payout' && e.data.userId === u.id)
    expect(new Set(txEvents.map((e) => e.data.rampTransactionId))).toEqual(new Set([done.rampTransactionId]))
    const retry = await pay(u, q.id, 'payouts-answer')
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    expect(retry.body).toMatchObject({ id: first.body.id, status: 'completed' })
  }, 60_000)
})

describe('a transfer the node drops', () => {
  test('never mined: the payout fails with ramp.payout.updated, the hold is released, the partner is never asked to sell; the same key answers it failed', async () => {
    const { u, wallet, quote: q } = await payer()
    const sellsBefore = partner.sells
    let p
    rpc.mode = 'swallow'
    try {
      p = await pay(u, q.id, 'payouts-dropped')
      answered(p, 200)
      expect(p.body).toMatchObject({ status: 'pending', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
      const failed = await advanced(u, p.body.id)
      expect(failed).toMatchObject({ status: 'failed', rampTransactionId: null })
    } finally {
      rpc.mode = 'forward'
    }
    expect(partner.sells).toBe(sellsBefore)
    const sent = await until(() => events(w.receiver, 'ramp.payout.updated'), (e) => e.some((x) => x.data.payoutId === p.body.id))
    expect(sent.filter((x) => x.data.payoutId === p.body.id).map((x) => x.data.status)).toEqual(['failed'])
    // nothing left the wallet, and nothing of it is held: 40 EUR (about 38 USDC) fits the 50 USDC again
    expect(await usdc(wallet.address)).toBe(50_000_000n)
    expect(await nonceOf(wallet.address)).toBe(0)
    const retry = await pay(u, q.id, 'payouts-dropped')
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    expect(retry.body).toMatchObject({ id: p.body.id, status: 'failed' })
    // past the ramp writes' rate-limit window
    ;(w.t.clock as ManualClock).advance(61_000)
    const q2 = await post(u, '/v1/ramp/bank/payout/quotes', { channelId, walletId: wallet.id, fiatAmount: '40', form: filled, isTestnet: true })
    answered(q2, 200)
    expect(BigInt(q2.body.cryptoAuthorizedAmount)).toBeGreaterThan(50_000_000n - BigInt(q.cryptoAuthorizedAmount))
    answered(await pay(u, q2.body.id, 'payouts-dropped-2'), 200)
  }, 90_000)
})
