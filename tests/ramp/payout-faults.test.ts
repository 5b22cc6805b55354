/**
 * `POST /v1/ramp/bank/payout/payouts` (a quote paid out; it shares payQuote with initiate, whose
 * faults tests/ramp/payout-safety.test.ts injects) with an `Idempotency-Key` and a fault at each
 * step, over HTTP on anvil with real transfers (issue 30, item 2): before the broadcast, after
 * it, the partner refusing the sell, and the partner's answer lost. And a transfer the node takes
 * and drops, never mined (item 1): the payout fails, its hold is released, `ramp.payout.updated`
 * is published, and the partner is never asked to sell.
 * Faults come from proxies of our own: tests/helpers/rpc-fault-proxy.ts before the chain, and
 * one before the partner simulator (answers 503 to the sell, before or after passing it on).
 */
import { describe, expect, test } from 'bun:test'
import type { Address } from 'viem'
import type { SignedInUser } from '@tests/helpers/factories'
import { reader } from '@tests/transactions/helpers'
import type { ManualClock } from '@/lib/clock'
import { filled, payoutFaultWorld } from './payout-fault-world'
import { events, until } from './world'

// a dropped transfer is given up at once (no resends) once TX_DROP_AFTER_MS passed on the app's clock
const pw = payoutFaultWorld({ TX_MAX_RESENDS: '0', TX_DROP_AFTER_MS: '20000' })
const { post, get, usdc, answered, ticking, advanced } = pw
const nonceOf = (a: Address) => reader(pw.chain.url).nonce(a)

/** A KYC-approved user with a custodial Sepolia wallet holding 50 USDC and 1 ETH, and a quote of 20 EUR from it. */
async function payer() {
  const { u, wallet } = await pw.payer(50_000_000n)
  return { u, wallet, quote: await quote(u, wallet.id) }
}
async function quote(u: SignedInUser, walletId: string) {
  const q = await post(u, '/v1/ramp/bank/payout/quotes', { channelId: pw.channelId, walletId, fiatAmount: '20', form: filled, isTestnet: true })
  answered(q, 200)
  return q.body as { id: string; cryptoAuthorizedAmount: string }
}
const pay = (u: SignedInUser, quoteId: string, key: string) => post(u, '/v1/ramp/bank/payout/payouts', { quoteId, isTestnet: true }, key)
const payout = (u: SignedInUser, id: string) => get(u, `/v1/ramp/bank/payout/payouts/${id}?isTestnet=true`)

/** Settled by the partner: completed, and the wallet paid the quote's amount once, in one transfer. */
async function paidOnce(u: SignedInUser, wallet: { address: Address }, id: string, amount: string) {
  await advanced(u, id)
  await pw.w.sim.settle()
  await until(() => payout(u, id), (r) => r.body.status === 'completed')
  expect(await usdc(wallet.address)).toBe(50_000_000n - BigInt(amount))
  expect(await nonceOf(wallet.address)).toBe(1)
  expect((await get(u, '/v1/ramp/bank/payout/transactions?isTestnet=true')).body.total).toBe(1)
}

describe('POST /payouts with an Idempotency-Key and a fault at each step', () => {
  test('before the broadcast (the node refuses it): the error is answered, nothing recorded, the quote still open; the same key pays once', async () => {
    const { u, wallet, quote: q } = await payer()
    const first = await pw.rpc.during('reject', () => pay(u, q.id, 'payouts-before'))
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
    const first = await pw.rpc.during('lose', () => pay(u, q.id, 'payouts-after'))
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
    const sellsBefore = pw.partner.sells
    const first = await pw.partner.during('fail', async () => {
      const first = await pay(u, q.id, 'payouts-partner')
      answered(first, 200)
      expect(first.body).toMatchObject({ status: 'pending', rampTransactionId: null })
      await ticking(() => pw.partner.sells, (n) => n > sellsBefore)
      const retry = await pay(u, q.id, 'payouts-partner')
      expect(retry.headers.get('idempotency-replayed')).toBe('true')
      expect(retry.body).toMatchObject({ id: first.body.id, status: 'pending', rampTransactionId: null })
      return first
    })
    await paidOnce(u, wallet, first.body.id, q.cryptoAuthorizedAmount)
  }, 60_000)

  test('after the partner\'s answer (taken, the answer lost): the sell is asked again with the same Nonce; one partner transaction; a retry answers it completed', async () => {
    const { u, wallet, quote: q } = await payer()
    const passedBefore = pw.partner.passed
    const first = await pw.partner.during('lose', async () => {
      const first = await pay(u, q.id, 'payouts-answer')
      answered(first, 200)
      await ticking(() => pw.partner.passed, (n) => n > passedBefore)
      return first
    })
    await paidOnce(u, wallet, first.body.id, q.cryptoAuthorizedAmount)
    const done = (await payout(u, first.body.id)).body
    // the events come by webhook, delivered by the worker after the payout's answer: waited for, not assumed there
    const payoutEvents = () => events(pw.w.receiver, 'ramp.transaction.updated').filter((e) => e.data.transactionType === 'payout' && e.data.userId === u.id)
    const txEvents = await until(payoutEvents, (es) => es.some((e) => e.data.rampTransactionId === done.rampTransactionId))
    expect(new Set(txEvents.map((e) => e.data.rampTransactionId))).toEqual(new Set([done.rampTransactionId]))
    const retry = await pay(u, q.id, 'payouts-answer')
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    expect(retry.body).toMatchObject({ id: first.body.id, status: 'completed' })
  }, 60_000)
})

describe('a transfer the node drops', () => {
  test('never mined: the payout fails with ramp.payout.updated, the hold is released, the partner is never asked to sell; the same key answers it failed', async () => {
    const { u, wallet, quote: q } = await payer()
    const sellsBefore = pw.partner.sells
    const p = await pw.rpc.during('swallow', async () => {
      const p = await pay(u, q.id, 'payouts-dropped')
      answered(p, 200)
      expect(p.body).toMatchObject({ status: 'pending', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
      const failed = await advanced(u, p.body.id)
      expect(failed).toMatchObject({ status: 'failed', rampTransactionId: null })
      return p
    })
    expect(pw.partner.sells).toBe(sellsBefore)
    const sent = await until(() => events(pw.w.receiver, 'ramp.payout.updated'), (e) => e.some((x) => x.data.payoutId === p.body.id))
    expect(sent.filter((x) => x.data.payoutId === p.body.id).map((x) => x.data.status)).toEqual(['failed'])
    // nothing left the wallet, and nothing of it is held: 40 EUR (about 38 USDC) fits the 50 USDC again
    expect(await usdc(wallet.address)).toBe(50_000_000n)
    expect(await nonceOf(wallet.address)).toBe(0)
    const retry = await pay(u, q.id, 'payouts-dropped')
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    expect(retry.body).toMatchObject({ id: p.body.id, status: 'failed' })
    // past the ramp writes' rate-limit window
    ;(pw.w.t.clock as ManualClock).advance(61_000)
    const q2 = await post(u, '/v1/ramp/bank/payout/quotes', { channelId: pw.channelId, walletId: wallet.id, fiatAmount: '40', form: filled, isTestnet: true })
    answered(q2, 200)
    expect(BigInt(q2.body.cryptoAuthorizedAmount)).toBeGreaterThan(50_000_000n - BigInt(q.cryptoAuthorizedAmount))
    answered(await pay(u, q2.body.id, 'payouts-dropped-2'), 200)
  }, 90_000)
})

describe('a partner down for hours after the crypto left', () => {
  test('the sell is asked again every 10 minutes past 40 minutes, counted as overdue, the payout stays pending; the partner back: the sell taken once', async () => {
    const { u, wallet, quote: q } = await payer()
    const clock = pw.w.t.clock as ManualClock
    const sellsBefore = pw.partner.sells
    const first = await pw.partner.during('fail', async () => {
      const first = await pay(u, q.id, 'payouts-partner-hours')
      answered(first, 200)
      await ticking(() => pw.partner.sells, (n) => n > sellsBefore)
      // three hours of a partner that answers 503: every attempt (up to 10 minutes apart) is asked, none fails the payout
      for (let minutes = 0; minutes < 180; minutes += 5) {
        clock.advance(300_000)
        await Bun.sleep(60)
      }
      await until(() => pw.partner.sells, (n) => n - sellsBefore >= 16, 10_000)
      // hours later the user's access token has expired: signed in again
      const login = await pw.w.f.api.post('/v1/auth/login', { username: u.username, password: u.password }, { signedBy: pw.tenant })
      u.accessToken = login.body.accessToken
      const still = await get(u, `/v1/ramp/bank/payout/payouts/${first.body.id}?isTestnet=true`)
      expect([still.body.status, still.body.rampTransactionId, still.body.failureReason]).toEqual(['pending', null, null])
      expect(await pw.w.t.deps.metrics.render()).toMatch(/slipway_ramp_sell_overdue_total\{environment="sandbox"\} [1-9]/)
      return first
    })
    // the partner back: the next attempt's sell is taken, one partner transaction (its settlement is the partner's, on its own clock, 3 hours behind this app's)
    const passedBefore = pw.partner.passed
    // the next attempt is at most 10 minutes away
    ;(pw.w.t.clock as ManualClock).advance(600_000)
    const taken = await ticking(() => get(u, `/v1/ramp/bank/payout/payouts/${first.body.id}?isTestnet=true`), (r) => r.body.rampTransactionId !== null, 20_000)
    expect(taken.body.status).toBe('pending')
    expect(pw.partner.passed).toBeGreaterThan(passedBefore)
    // one partner transaction for the user, however many times the sell was asked (its Nonce is the payout id)
    expect((await get(u, '/v1/ramp/bank/payout/transactions?isTestnet=true')).body.total).toBe(1)
    expect(await usdc(wallet.address)).toBe(50_000_000n - BigInt(q.cryptoAuthorizedAmount))
  }, 60_000)
})
