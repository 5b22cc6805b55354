/**
 * Partner API, pay-in: an approved customer's virtual IBAN that converts to the stablecoin at
 * an address, the payment methods a customer has, and the sandbox's simulated bank transfer,
 * worked through by deposit-run.ts (screened, settled, converted, delivered on chain; a
 * webhook after each step; resumed after a restart).
 */
import { randomUUID } from 'node:crypto'
import type { BankDepositToOnchainAddressResponse, PartnerPaymentMethod } from '../../adapters/bank-ramp/port'
import type { SimulatorContext } from './context'
import type { DepositRunner } from './deposit-run'
import { sandboxIban } from './iban'
import { partnerApi } from './partner-api'
import { DECIMAL, json, partnerError, readJson } from './protocol'
import type { Deposit, Method } from './state'

export function payinRoutes(ctx: SimulatorContext, runner: DepositRunner) {
  const { state, iso } = ctx
  const { customers, methods, payoutMethods, deposits, runs } = state

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
        PaymentMethodID: m.id, PaymentMethodType: 'BankSepa', AccountNumber: m.iban, AccountHolderName: 'Noah Sandbox Ltd',
        BankCode: 'INGDDEFFXXX', BankName: 'Sandbox Bank', Reference: m.ruleId.slice(0, 8).toUpperCase(),
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
        items.push({
          ID: m.id,
          CustomerID: m.customerId,
          Country: m.fields.IBAN!.slice(0, 2),
          PaymentMethodCategory: 'Bank',
          DisplayDetails: { Type: 'FiatPaymentMethodBankDisplay', AccountNumber: m.fields.IBAN!, ...(m.fields.BIC ? { BankCode: m.fields.BIC } : {}) },
        })
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
      // saved with the deposit (before the answer leaves), so a restart resumes it (deposit-run.ts)
      const run = { id: dep.ID, accountId: account!.id, customerId: m.customerId, methodId: m.id, step: 0 }
      runs.set(run.id, run)
      runner.start(account!, run)
      return json({ FiatDepositID: dep.ID })
    })
}
