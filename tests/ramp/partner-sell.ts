/**
 * A sell made straight on the simulator's partner API with a tenant's key, on a quote Slipway
 * prepared: the simulator saves the bank account paid as a beneficiary (a saved payment
 * method) without a chain (the test simulator settles unchecked). For tests that need a
 * beneficiary and no payout of their own.
 */
import { expect } from 'bun:test'
import type { SignedInUser } from '@tests/helpers/factories'
import { findQuote } from '@/modules/ramp/repo'
import type { RampTenant, RampWorld } from './world'

/** The SEPA channel for Germany, as Slipway's channel search answers it. */
export async function sepaChannel(w: RampWorld, user: SignedInUser): Promise<string> {
  const res = await w.f.api.post('/v1/ramp/bank/payout/channels/search', { isTestnet: true, country: 'DE', fiatCurrency: 'EUR' }, { token: user.accessToken })
  expect(res.status).toBe(200)
  return res.body.channels.find((c: { paymentMethodType: string }) => c.paymentMethodType === 'BankSepa').channelId
}

/** Quotes 10 EUR to `form` through Slipway, then sells it on the simulator; answers once its events are posted. */
export async function sellOnSimulator(w: RampWorld, tenant: RampTenant, user: SignedInUser, walletId: string, form: Record<string, string>) {
  const channelId = await sepaChannel(w, user)
  const q = await w.f.api.post('/v1/ramp/bank/payout/quotes', { channelId, walletId, fiatAmount: '10', form, isTestnet: true }, { token: user.accessToken })
  expect(q.status).toBe(200)
  const quote = (await findQuote(w.t.deps.database.db, tenant.id, 'sandbox', user.id, q.body.id))!
  const sell = await fetch(`${w.sim.apiUrl}/transactions/sell`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Api-Key': tenant.partnerKey },
    body: JSON.stringify({
      CryptoCurrency: 'USDC_TEST', FiatAmount: quote.fiatAmount, CryptoAuthorizedAmount: (Number(quote.cryptoAuthorizedAmount) / 1e6).toFixed(6),
      FormSessionID: quote.formSessionId, Nonce: crypto.randomUUID(),
    }),
  })
  expect(sell.status).toBe(202)
  await w.sim.settle()
}
