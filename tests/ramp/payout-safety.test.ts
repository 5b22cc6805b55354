/**
 * Payouts and sends that must not overdraw or pay twice, over HTTP on anvil with real
 * transfers (issue 30, items 1 and 2):
 * - concurrent payouts, and concurrent sends, against a wallet that can afford one;
 * - a transfer that reverts on chain is never sold, and fails its payout with an event;
 * - an Idempotency-Key with a fault injected at each step: before the broadcast, after it,
 *   the partner refusing the sell, and the partner's answer lost.
 * Faults come from two proxies of our own in front of real parts: one before the chain's
 * JSON-RPC (drops or loses a submission's answer) and one before the partner simulator
 * (answers 503 to the sell, before or after passing it on).
 */
import { describe, expect, test } from 'bun:test'
import { encodeAbiParameters, keccak256, type Address } from 'viem'
import type { SignedInUser } from '@tests/helpers/factories'
import type { ManualClock } from '@/lib/clock'
import { findQuote } from '@/modules/ramp/repo'
import { filled, payoutFaultWorld, USDC_SEPOLIA } from './payout-fault-world'
import { events, until } from './world'

const DEPOSIT: Address = '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001'
const BALANCE_SLOT = 3n

const pw = payoutFaultWorld()
const { post, get, usdc, answered, payer, ticking, advanced } = pw

async function rpcCall(method: string, params: unknown[]) {
  const res = await fetch(pw.chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  return (await res.json() as { result: unknown }).result
}

describe('holds: what a wallet has in flight counts against its balance', () => {
  test('three payouts at once against a wallet that can afford one: one is paid, two answer 400 INSUFFICIENT_BALANCE; one transfer, one sell', async () => {
    const { u, wallet } = await payer(141_680_000n)
    const quotes = await Promise.all([0, 1, 2].map(() => post(u, '/v1/ramp/bank/payout/quotes', { channelId: pw.channelId, walletId: wallet.id, fiatAmount: '100', form: filled, isTestnet: true })))
    for (const q of quotes) expect(q.body.cryptoAuthorizedAmount).toBe('94453705')
    const sellsBefore = pw.partner.passed
    const paid = await Promise.all(quotes.map((q) => post(u, '/v1/ramp/bank/payout/payouts', { quoteId: q.body.id, isTestnet: true })))
    expect(paid.map((p) => p.status).sort()).toEqual([200, 400, 400])
    for (const p of paid.filter((x) => x.status === 400)) expect(p.body.code).toBe('INSUFFICIENT_BALANCE')
    const ok = paid.find((p) => p.status === 200)!
    expect(await advanced(u, ok.body.id)).toMatchObject({ rampTransactionId: expect.any(String) })
    await pw.w.sim.settle()
    await until(() => get(u, `/v1/ramp/bank/payout/payouts/${ok.body.id}?isTestnet=true`), (r) => r.body.status === 'completed')
    expect(await usdc(wallet.address)).toBe(141_680_000n - 94_453_705n)
    expect(pw.partner.passed - sellsBefore).toBe(1)
    const list = await get(u, '/v1/ramp/bank/payout/transactions?isTestnet=true')
    expect(list.body.total).toBe(1)
    // the refused quotes are still open: nothing of them was recorded
    for (const q of quotes.filter((x) => x.body.id !== ok.body.quoteId)) {
      expect((await get(u, `/v1/ramp/bank/payout/quotes/${q.body.id}?isTestnet=true`)).body).toMatchObject({ status: 'open', payoutId: null })
    }
  }, 60_000)

  test('three sends at once from a wallet that can afford one: one is sent, two answer 400 INSUFFICIENT_BALANCE; none reverts', async () => {
    const { u, wallet } = await payer(100_000_000n)
    const send = () => post(u, '/v1/transactions/', { walletId: wallet.id, chain: 'sepolia', toAddress: DEPOSIT, amount: '60000000', tokenAddress: USDC_SEPOLIA })
    const res = await Promise.all([send(), send(), send()])
    expect(res.map((r) => r.status).sort()).toEqual([201, 400, 400])
    for (const r of res.filter((x) => x.status === 400)) expect(r.body.code).toBe('INSUFFICIENT_BALANCE')
    const sent = res.find((r) => r.status === 201)!
    const done = await until(() => get(u, `/v1/transactions/${sent.body.id}/status`), (r) => r.body.status !== 'pending', 20_000)
    expect(done.body.status).toBe('confirmed')
    expect(await usdc(wallet.address)).toBe(40_000_000n)
    // once the first is mined, what is left can be sent
    const rest = await send()
    expect(rest.status).toBe(400)
    const fits = await post(u, '/v1/transactions/', { walletId: wallet.id, chain: 'sepolia', toAddress: DEPOSIT, amount: '40000000', tokenAddress: USDC_SEPOLIA })
    expect(fits.status).toBe(201)
  }, 60_000)
})

describe('the sell waits for the transfer', () => {
  test('a transfer that reverts on chain: the payout fails with ramp.payout.updated, the hold is released, the partner is never asked to sell', async () => {
    const { u, wallet } = await payer(50_000_000n)
    const q = await post(u, '/v1/ramp/bank/payout/quotes', { channelId: pw.channelId, walletId: wallet.id, fiatAmount: '20', form: filled, isTestnet: true })
    expect(q.status).toBe(200)
    const sellsBefore = pw.partner.sells
    // the node holds the transfer; meanwhile the wallet's tokens leave by a path Slipway does not see
    await pw.chain.pauseMining()
    let p
    try {
      p = await post(u, '/v1/ramp/bank/payout/payouts', { quoteId: q.body.id, isTestnet: true })
      expect(p.status).toBe(200)
      expect(p.body).toMatchObject({ status: 'pending', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
      const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [wallet.address, BALANCE_SLOT]))
      await rpcCall('anvil_setStorageAt', [USDC_SEPOLIA, slot, `0x${'0'.repeat(64)}`])
    } finally {
      await pw.chain.resumeMining()
    }
    const failed = await advanced(u, p!.body.id)
    expect(failed).toMatchObject({ status: 'failed', rampTransactionId: null, failureReason: expect.stringContaining('The transfer to the bank ramp failed') })
    expect(pw.partner.sells).toBe(sellsBefore)
    const sent = await until(() => events(pw.w.receiver, 'ramp.payout.updated'), (e) => e.some((x) => x.data.payoutId === p!.body.id))
    expect(sent.filter((x) => x.data.payoutId === p!.body.id).map((x) => x.data.status)).toEqual(['failed'])
    // the failed transfer holds nothing: tokens sent to the wallet again can be paid out
    await pw.chain.sendToken(wallet.address, 30_000_000n, USDC_SEPOLIA)
    const q2 = await post(u, '/v1/ramp/bank/payout/quotes', { channelId: pw.channelId, walletId: wallet.id, fiatAmount: '20', form: filled, isTestnet: true })
    expect((await post(u, '/v1/ramp/bank/payout/payouts', { quoteId: q2.body.id, isTestnet: true })).status).toBe(200)
  }, 60_000)
})

describe('an Idempotency-Key with a fault at each step', () => {
  const initiate = (u: SignedInUser, walletId: string, key: string) =>
    post(u, '/v1/ramp/bank/payout/initiate', { channelId: pw.channelId, walletId, cryptoAmount: '20000000', form: filled, isTestnet: true }, key)

  test('before the broadcast (the node refuses it): the error is answered, nothing is recorded, the same key runs again', async () => {
    const { u, wallet } = await payer(50_000_000n)
    const first = await pw.rpc.during('reject', () => initiate(u, wallet.id, 'fault-before'))
    expect(first.status).toBe(400)
    expect(first.body.code).toBe('TRANSACTION_REJECTED')
    expect((await get(u, '/v1/ramp/bank/payout/transactions?isTestnet=true')).body.total).toBe(0)
    const again = await initiate(u, wallet.id, 'fault-before')
    expect(again.status).toBe(200)
    expect(again.headers.get('idempotency-replayed')).toBe('false')
    await advanced(u, again.body.id)
    expect(await usdc(wallet.address)).toBe(50_000_000n - BigInt(again.body.cryptoAuthorizedAmount))
  }, 60_000)

  test('after the broadcast (the node took it, its answer was lost): the payout goes on; a retry answers the same payout; one transfer', async () => {
    const { u, wallet } = await payer(50_000_000n)
    const first = await pw.rpc.during('lose', () => initiate(u, wallet.id, 'fault-after'))
    answered(first, 200)
    expect(first.body).toMatchObject({ status: 'pending', txHash: expect.stringMatching(/^0x/) })
    const retry = await initiate(u, wallet.id, 'fault-after')
    expect(retry.status).toBe(200)
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    expect(retry.body.id).toBe(first.body.id)
    await advanced(u, first.body.id)
    await pw.w.sim.settle()
    await until(() => get(u, `/v1/ramp/bank/payout/payouts/${first.body.id}?isTestnet=true`), (r) => r.body.status === 'completed')
    expect(await usdc(wallet.address)).toBe(50_000_000n - BigInt(first.body.cryptoAuthorizedAmount))
    expect((await get(u, '/v1/ramp/bank/payout/transactions?isTestnet=true')).body.total).toBe(1)
  }, 60_000)

  test('the partner answers the sell 503: the payout is answered pending (not a retryable 503), a retry answers it, the sell is asked again and paid once', async () => {
    const { u, wallet } = await payer(50_000_000n)
    const sellsBefore = pw.partner.sells
    const first = await pw.partner.during('fail', async () => {
      const first = await initiate(u, wallet.id, 'fault-partner')
      answered(first, 200)
      expect(first.body).toMatchObject({ status: 'pending', rampTransactionId: null })
      // the job asked for the sell and was refused; the payout waits
      await ticking(() => pw.partner.sells, (n) => n > sellsBefore, 20_000)
      const retry = await initiate(u, wallet.id, 'fault-partner')
      expect(retry.status).toBe(200)
      expect(retry.headers.get('idempotency-replayed')).toBe('true')
      expect(retry.body).toMatchObject({ id: first.body.id, status: 'pending', rampTransactionId: null })
      return first
    })
    const sold = await advanced(u, first.body.id)
    expect(sold.rampTransactionId).toEqual(expect.any(String))
    await pw.w.sim.settle()
    await until(() => get(u, `/v1/ramp/bank/payout/payouts/${first.body.id}?isTestnet=true`), (r) => r.body.status === 'completed')
    expect(await usdc(wallet.address)).toBe(50_000_000n - BigInt(first.body.cryptoAuthorizedAmount))
  }, 60_000)

  test('after the partner\'s answer (taken, the answer lost): the sell is asked again with the same Nonce and the partner sells once', async () => {
    const { u, wallet } = await payer(50_000_000n)
    const passedBefore = pw.partner.passed
    const first = await pw.partner.during('lose', async () => {
      const first = await initiate(u, wallet.id, 'fault-answer')
      answered(first, 200)
      await ticking(() => pw.partner.passed, (n) => n > passedBefore, 20_000)
      return first
    })
    const sold = await advanced(u, first.body.id)
    await pw.w.sim.settle()
    const done = await until(() => get(u, `/v1/ramp/bank/payout/payouts/${first.body.id}?isTestnet=true`), (r) => r.body.status === 'completed')
    expect(done.body.rampTransactionId).toBe(sold.rampTransactionId)
    // one partner transaction for the payout: its Pending and Settled events, no second sell
    // the events come by webhook, delivered by the worker after the payout's answer: waited for, not assumed there
    const payoutEvents = () => events(pw.w.receiver, 'ramp.transaction.updated').filter((e) => e.data.transactionType === 'payout' && e.data.userId === u.id)
    const txEvents = await until(payoutEvents, (es) => es.some((e) => e.data.rampTransactionId === sold.rampTransactionId))
    expect(new Set(txEvents.map((e) => e.data.rampTransactionId))).toEqual(new Set([sold.rampTransactionId]))
    const retry = await initiate(u, wallet.id, 'fault-answer')
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    expect(retry.body).toMatchObject({ id: first.body.id, status: 'completed' })
    expect(await usdc(wallet.address)).toBe(50_000_000n - BigInt(first.body.cryptoAuthorizedAmount))
  }, 60_000)
})

describe('the simulator reads the sell\'s transfer back, as a partner does', () => {
  test('a SourceTransactionHash that moved nothing to the deposit address: the sell fails (the real transfer settles: the tests above)', async () => {
    const { u, wallet } = await payer(30_000_000n)
    const q = await post(u, '/v1/ramp/bank/payout/quotes', { channelId: pw.channelId, walletId: wallet.id, fiatAmount: '10', form: filled, isTestnet: true })
    expect(q.status).toBe(200)
    const quote = await findQuote(pw.w.t.deps.database.db, pw.tenant.id, 'sandbox', u.id, q.body.id)
    // the last mined transaction: the test's own funding transfer to the wallet, not to the deposit address
    const block = await rpcCall('eth_getBlockByNumber', ['latest', false]) as { transactions: string[] }
    const sell = await fetch(`${pw.w.sim.apiUrl}/transactions/sell`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'X-Api-Key': pw.tenant.partnerKey },
      body: JSON.stringify({ CryptoCurrency: 'USDC_TEST', FiatAmount: quote!.fiatAmount, CryptoAuthorizedAmount: (Number(quote!.cryptoAuthorizedAmount) / 1e6).toFixed(6), FormSessionID: quote!.formSessionId, Nonce: crypto.randomUUID(), SourceTransactionHash: block.transactions[0] }),
    })
    expect(sell.status).toBe(202)
    const { Transaction } = await sell.json() as { Transaction: { ID: string } }
    await pw.w.sim.settle()
    const read = await fetch(`${pw.w.sim.apiUrl}/transactions/${Transaction.ID}`, { headers: { 'X-Api-Key': pw.tenant.partnerKey } })
    expect((await read.json() as { Status: string }).Status).toBe('Failed')
  }, 30_000)
})

describe('a bound key whose process stopped', () => {
  test('a retry answers the payout it recorded (never runs again); while the first may still run: 409 IDEMPOTENCY_IN_PROGRESS', async () => {
    const { u, wallet } = await payer(30_000_000n)
    const first = await post(u, '/v1/ramp/bank/payout/initiate', { channelId: pw.channelId, walletId: wallet.id, cryptoAmount: '10000000', form: filled, isTestnet: true }, 'crashed')
    answered(first, 200)
    // as a process that stopped after recording the payout leaves it: bound, still running, no answer kept
    const db = pw.w.t.deps.database
    const clock = pw.w.t.clock as ManualClock
    await db.client.execute({ sql: `UPDATE idempotency_keys SET state = 'running', status_code = NULL, response = NULL, created_at = ? WHERE key = 'crashed'`, args: [clock.now()] })
    const running = await post(u, '/v1/ramp/bank/payout/initiate', { channelId: pw.channelId, walletId: wallet.id, cryptoAmount: '10000000', form: filled, isTestnet: true }, 'crashed')
    expect(running.status).toBe(409)
    expect(running.body.details.code).toBe('IDEMPOTENCY_IN_PROGRESS')
    clock.advance(121_000)
    const retry = await post(u, '/v1/ramp/bank/payout/initiate', { channelId: pw.channelId, walletId: wallet.id, cryptoAmount: '10000000', form: filled, isTestnet: true }, 'crashed')
    expect(retry.status).toBe(200)
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    expect(retry.body.id).toBe(first.body.id)
    expect((await get(u, '/v1/ramp/bank/payout/transactions?isTestnet=true')).body.total).toBe(1)
  }, 30_000)
})
