/**
 * Partner API, pay-in: an approved customer's virtual IBAN that converts to the stablecoin at
 * an address, the payment methods a customer has, and the sandbox's simulated bank transfer.
 * A deposit is screened and settled, converted (1% channel fee, fixed rate) and the stablecoin
 * is sent to the address from the simulator's own funded wallet when a chain is configured
 * (recorded only otherwise). `FiatDeposit` and `Transaction` webhooks follow each step.
 */
import { randomUUID } from 'node:crypto'
import type { BankDepositToOnchainAddressResponse, PartnerFiatDeposit, PartnerPaymentMethod, PartnerTransaction } from '../../adapters/bank-ramp/port'
import type { SimulatorAccount, SimulatorContext } from './context'
import { sandboxIban } from './iban'
import { partnerApi } from './partner-api'
import { DECIMAL, fromUnits, json, partnerError, readJson, toUnits } from './protocol'
import type { Deposit, Method } from './state'

export function payinRoutes(ctx: SimulatorContext) {
  const { state, opts, iso, rate, track, post } = ctx
  const { customers, methods, payoutMethods, deposits, txs } = state

  async function runDeposit(account: SimulatorAccount, dep: Deposit, m: Method) {
    const setDep = async (patch: Partial<PartnerFiatDeposit>) => {
      Object.assign(dep, patch)
      deposits.touch(dep.ID)
      const { accountId: _a, ...data } = dep
      await post(account, 'FiatDeposit', dep.ID, data as unknown as Record<string, unknown>, dep.CustomerID)
    }
    await setDep({ Status: 'Pending', SubStatus: 'AmlScreening' })
    await setDep({ Status: 'Settled', SubStatus: null })
    const fiat = toUnits(dep.FiatAmount, 2)
    const fee = (fiat + 99n) / 100n
    const rateMicros = toUnits(rate, 6)
    const crypto = ((fiat - fee) * rateMicros) / 100n
    const execution = randomUUID()
    const base = { Network: m.network, CryptoCurrency: m.crypto, CustomerID: m.customerId, Orchestration: { RuleID: m.ruleId, RuleExecutionID: execution } }
    const conversion: PartnerTransaction & { accountId: string } = {
      accountId: account.id, ID: randomUUID(), Created: iso(), Status: 'Settled', SubStatus: null, Direction: 'In', ...base,
      Amount: fromUnits(crypto, 6),
      FiatPayment: { Amount: dep.FiatAmount, FeeAmount: fromUnits(fee, 2), Rate: rate, FiatCurrency: dep.FiatCurrency, FiatDepositID: dep.ID, PaymentSystemID: dep.PaymentSystemID },
      Breakdown: [{ Type: 'ChannelFee', Amount: fromUnits(fee, 2) }, { Type: 'Remaining', Amount: fromUnits(fiat - fee, 2) }],
      Refunds: [],
    }
    txs.set(conversion.ID, conversion)
    const send = async (t: PartnerTransaction & { accountId: string }) => {
      txs.touch(t.ID)
      const { accountId: _a, ...data } = t
      await post(account, 'Transaction', t.ID, data as unknown as Record<string, unknown>, t.CustomerID)
    }
    await send(conversion)
    const delivery: PartnerTransaction & { accountId: string } = {
      accountId: account.id, ID: randomUUID(), Created: iso(), Status: 'Pending', SubStatus: 'Submitted', Direction: 'Out', ...base,
      Amount: fromUnits(crypto, 6), NetworkFee: '0', DestinationAddress: m.address, Breakdown: [], Refunds: [],
    }
    txs.set(delivery.ID, delivery)
    await send(delivery)
    if (opts.chain) {
      try {
        delivery.TransactionHash = await opts.chain.sendStablecoin(m.address, crypto)
        delivery.Status = 'Settled'
      } catch {
        delivery.Status = 'Failed'
      }
    } else {
      // no chain: the delivery is recorded as settled without a hash
      delivery.Status = 'Settled'
    }
    delivery.SubStatus = null
    await send(delivery)
  }

  return partnerApi(ctx)
    .post('/workflows/bank-deposit-to-onchain-address', async ({ request, account }) => {
      const b = await readJson(request)
      const missing = ['CustomerID', 'FiatCurrency', 'CryptoCurrency', 'Network'].filter((f) => typeof b?.[f] !== 'string' || !b[f])
      const address = b?.DestinationAddress?.Address
      if (typeof address !== 'string' || !address) missing.push('DestinationAddress')
      if (missing.length) return partnerError(400, 'InvalidMessage', `Missing: ${missing.join(', ')}`, Object.fromEntries(missing.map((m) => [m, 'required'])))
      const c = customers.get(ctx.key(account!.id, b.CustomerID))
      if (!c || !c.started) return partnerError(404, 'ResourceNotFound', 'Customer not found')
      if (c.status !== 'Approved') return partnerError(403, 'Forbidden', 'The customer is not verified')
      if (b.FiatCurrency !== 'EUR') return partnerError(400, 'InvalidMessage', 'Only EUR virtual accounts are offered', { FiatCurrency: 'EUR' })
      const same = (x: Method) => x.customerId === c.id && x.fiat === b.FiatCurrency && x.crypto === b.CryptoCurrency && x.network === b.Network && x.address === address
      let m = [...methods.valuesOf(account!.id)].find(same)
      if (!m) {
        // from the persistence's counter when there is one: an IBAN is never handed out twice, restarts included
        const iban = sandboxIban('50010517', 1000 + await ctx.mirror.nextIbanNumber())
        // a concurrent request for the same account may have made it while the number was drawn
        m = [...methods.valuesOf(account!.id)].find(same)
        if (!m) {
          const id = `Bank/Sepa/${randomUUID()}`
          m = { id, accountId: account!.id, customerId: c.id, iban, fiat: b.FiatCurrency, crypto: b.CryptoCurrency, network: b.Network, address, ruleId: randomUUID() }
          methods.set(id, m)
        }
      }
      const res: BankDepositToOnchainAddressResponse = {
        PaymentMethodID: m.id, PaymentMethodType: 'BankSepa', AccountNumber: m.iban, AccountHolderName: 'Noah Sandbox Ltd', BankCode: 'INGDDEFFXXX', BankName: 'Sandbox Bank', Reference: m.ruleId.slice(0, 8).toUpperCase(),
      }
      return json(res)
    })
    .get('/payment-methods', ({ query, account }) => {
      const customerId = String(query.CustomerID ?? '')
      const items: PartnerPaymentMethod[] = [...methods.valuesOf(account!.id)].filter((m) => m.customerId === customerId).map((m) => ({
        ID: m.id, CustomerID: m.customerId, Country: 'DE', PaymentMethodCategory: 'Bank', DisplayDetails: { Type: 'FiatPaymentMethodBankDisplay', AccountNumber: m.iban, BankCode: 'INGDDEFFXXX' },
      }))
      // bank accounts saved by sells (beneficiaries)
      for (const m of payoutMethods.valuesOf(account!.id)) {
        if (m.customerId !== customerId) continue
        items.push({ ID: m.id, CustomerID: m.customerId, Country: m.fields.IBAN!.slice(0, 2), PaymentMethodCategory: 'Bank', DisplayDetails: { Type: 'FiatPaymentMethodBankDisplay', AccountNumber: m.fields.IBAN!, ...(m.fields.BIC ? { BankCode: m.fields.BIC } : {}) } })
      }
      return json({ Items: items })
    })
    .post('/sandbox/fiat-deposit/simulate', async ({ request, account }) => {
      const b = await readJson(request)
      if (typeof b?.PaymentMethodID !== 'string' || typeof b?.FiatAmount !== 'string' || !DECIMAL.test(b.FiatAmount) || Number(b.FiatAmount) <= 0 || typeof b?.FiatCurrency !== 'string') {
        return partnerError(400, 'InvalidMessage', 'PaymentMethodID, FiatAmount (positive decimal) and FiatCurrency are required')
      }
      const m = methods.get(b.PaymentMethodID)
      if (!m || m.accountId !== account!.id) return partnerError(404, 'ResourceNotFound', 'Payment method not found')
      if (b.FiatCurrency !== m.fiat) return partnerError(400, 'InvalidMessage', `The account receives ${m.fiat}`)
      const dep: Deposit = {
        accountId: account!.id, ID: randomUUID(), Created: iso(), FiatAmount: b.FiatAmount, FiatCurrency: b.FiatCurrency, Status: 'Pending', SubStatus: null,
        CustomerID: m.customerId, PaymentMethodID: m.id, PaymentMethodType: 'BankSepa', PaymentSystemID: `SEPA-${randomUUID().slice(0, 12).toUpperCase()}`,
        Reference: typeof b.Reference === 'string' ? b.Reference : undefined, Refunds: [],
      }
      deposits.set(dep.ID, dep)
      track(runDeposit(account!, dep, m))
      return json({ FiatDepositID: dep.ID })
    })
}
