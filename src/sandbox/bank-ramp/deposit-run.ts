/**
 * A simulated bank transfer worked through as a partner would, durably: the deposit screened
 * and settled, converted (1% channel fee, fixed rate), and the stablecoin sent to the address
 * from the simulator's own funded wallet when a chain is configured (recorded only otherwise),
 * each step reported by a webhook. A run (state.ts `DepositRun`) is saved with the records it
 * makes, so a server stopped at any point (kill -9 included) resumes it at its next start
 * (`resumeRuns`, called by the process that runs background work):
 *
 * - each step changes the records, saves them, then posts its webhook; a step whose webhook may
 *   not have left is reported again after a restart (the receiver may see it twice, never not);
 * - the on-chain transfer is signed and saved (`run.signed`) before it is broadcast; a resumed
 *   run finds it on chain by its hash, broadcasts the same bytes again while its nonce is unused,
 *   or signs a new one only when another transaction took that nonce (funded-sender.ts): the
 *   stablecoin is never sent twice for one deposit;
 * - a transfer whose outcome is not known (the node stopped answering) is asked again a few
 *   times, then left to the next start, the delivery still `Pending`.
 */
import { randomUUID } from 'node:crypto'
import { TransferRefused } from '../../adapters/chain/funded-sender'
import type { PartnerTransaction } from '../../adapters/bank-ramp/port'
import type { SimulatorAccount, SimulatorContext } from './context'
import { fromUnits, toUnits } from './protocol'
import type { DepositRun, Transaction } from './state'

/** waits before asking again about a transfer whose outcome is not known */
const RETRY_DELAYS_MS = [2_000, 10_000]

export function depositRunner(ctx: SimulatorContext) {
  const { state, opts, iso, rate, post, mirror, track, accountOf } = ctx
  const { deposits, methods, txs, runs } = state
  /** runs this process is working on, so a resume never starts one twice */
  const active = new Set<string>()

  async function advance(account: SimulatorAccount, run: DepositRun) {
    const dep = deposits.get(run.id)
    const m = methods.get(run.methodId)
    if (!dep || !m) {
      // forgotten meanwhile (a customer reset, or expired): nothing left to report
      runs.delete(run.id)
      return
    }
    const done = (step: number) => {
      run.step = step
      runs.touch(run.id)
    }
    const postDeposit = async () => {
      deposits.touch(dep.ID)
      const { accountId: _a, ...data } = dep
      await post(account, 'FiatDeposit', dep.ID, data as unknown as Record<string, unknown>, dep.CustomerID)
    }
    const postTx = async (t: Transaction) => {
      txs.touch(t.ID)
      const { accountId: _a, ...data } = t
      await post(account, 'Transaction', t.ID, data as unknown as Record<string, unknown>, t.CustomerID)
    }
    if (run.step < 1) {
      Object.assign(dep, { Status: 'Pending', SubStatus: 'AmlScreening' })
      await postDeposit()
      done(1)
    }
    if (run.step < 2) {
      Object.assign(dep, { Status: 'Settled', SubStatus: null })
      await postDeposit()
      done(2)
    }
    const fiat = toUnits(dep.FiatAmount, 2)
    const fee = (fiat + 99n) / 100n
    const crypto = ((fiat - fee) * toUnits(rate, 6)) / 100n
    if (run.step < 3) {
      let conversion = run.conversionId ? txs.get(run.conversionId) : undefined
      if (!conversion) {
        conversion = {
          accountId: account.id, ID: randomUUID(), Created: iso(), Status: 'Settled', SubStatus: null, Direction: 'In',
          Network: m.network, CryptoCurrency: m.crypto, CustomerID: m.customerId, Orchestration: { RuleID: m.ruleId, RuleExecutionID: randomUUID() },
          Amount: fromUnits(crypto, 6),
          FiatPayment: { Amount: dep.FiatAmount, FeeAmount: fromUnits(fee, 2), Rate: rate, FiatCurrency: dep.FiatCurrency, FiatDepositID: dep.ID, PaymentSystemID: dep.PaymentSystemID },
          Breakdown: [{ Type: 'ChannelFee', Amount: fromUnits(fee, 2) }, { Type: 'Remaining', Amount: fromUnits(fiat - fee, 2) }],
          Refunds: [],
        } satisfies PartnerTransaction & { accountId: string }
        txs.set(conversion.ID, conversion)
        run.conversionId = conversion.ID
      }
      await postTx(conversion)
      done(3)
    }
    if (run.step < 4) {
      let delivery = run.deliveryId ? txs.get(run.deliveryId) : undefined
      if (!delivery) {
        const conversion = txs.get(run.conversionId!)
        delivery = {
          accountId: account.id, ID: randomUUID(), Created: iso(), Status: 'Pending', SubStatus: 'Submitted', Direction: 'Out',
          Network: m.network, CryptoCurrency: m.crypto, CustomerID: m.customerId,
          Orchestration: conversion?.Orchestration ?? { RuleID: m.ruleId, RuleExecutionID: randomUUID() },
          Amount: fromUnits(crypto, 6), NetworkFee: '0', DestinationAddress: m.address, Breakdown: [], Refunds: [],
        } satisfies PartnerTransaction & { accountId: string }
        txs.set(delivery.ID, delivery)
        run.deliveryId = delivery.ID
      }
      await postTx(delivery)
      done(4)
    }
    const delivery = txs.get(run.deliveryId!)
    if (!delivery) {
      runs.delete(run.id)
      return
    }
    if (delivery.Status === 'Pending') {
      const outcome = await sendOnChain(run, m.address, crypto)
      if (outcome === 'unknown') return
      Object.assign(delivery, outcome === 'failed' ? { Status: 'Failed' } : outcome, { SubStatus: null })
    }
    await postTx(delivery)
    runs.delete(run.id)
  }

  /** The delivery's final fields, 'failed' when nothing was or will be mined, 'unknown' when that is not known yet. */
  async function sendOnChain(run: DepositRun, to: string, amount: bigint): Promise<{ Status: 'Settled'; TransactionHash?: string } | 'failed' | 'unknown'> {
    const chain = opts.chain
    // no chain: the delivery is recorded as settled without a hash (one signed earlier waits for its chain)
    if (!chain) return run.signed ? 'unknown' : { Status: 'Settled' }
    const record = async (signed: NonNullable<DepositRun['signed']>) => {
      run.signed = signed
      runs.touch(run.id)
      try {
        await mirror.flush()
      } catch (err) {
        // not saved, so not sent: the next save writes the run without it
        run.signed = undefined
        runs.touch(run.id)
        throw err
      }
    }
    for (let attempt = 0; ; attempt++) {
      try {
        const { hash, success } = await chain.deliverStablecoin(to, amount, { signed: run.signed, record })
        return success ? { Status: 'Settled', TransactionHash: hash } : 'failed'
      } catch (err) {
        // refused by the node, or never signed and saved: nothing was sent
        if (err instanceof TransferRefused || !run.signed) return 'failed'
        if (attempt >= RETRY_DELAYS_MS.length) return 'unknown'
        await new Promise((r) => setTimeout(r, RETRY_DELAYS_MS[attempt]))
      }
    }
  }

  function start(account: SimulatorAccount, run: DepositRun) {
    if (active.has(run.id)) return
    active.add(run.id)
    track(advance(account, run).finally(() => active.delete(run.id)))
  }

  return {
    start,
    /** Starts again every run a stopped server left (the saved state loaded first). Answers how many. */
    async resumeRuns(): Promise<number> {
      await mirror.ready()
      let n = 0
      for (const run of [...runs.values()]) {
        const account = accountOf(run.accountId)
        if (!account || active.has(run.id)) continue
        start(account, run)
        n++
      }
      return n
    },
  }
}

export type DepositRunner = ReturnType<typeof depositRunner>
