/**
 * Partner API, pay-out (sell): the channels and their limits, the SEPA form a channel asks
 * for, a prepared sell (form session) and the sell itself, whose transaction is then settled
 * and posted as `Transaction` webhooks. Sold bank accounts are saved as payment methods
 * (beneficiaries) whose id holds the account number, as the partner's does, per account and customer.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import type { PartnerTransaction } from '../../adapters/bank-ramp/port'
import type { TransferCheck } from '../../adapters/chain/transfer-check'
import type { SimulatorAccount, SimulatorContext } from './context'
import { partnerApi } from './partner-api'
import {
  CHANNELS, DECIMAL, DECIMAL6, PAYOUT_MAX, PAYOUT_MIN, SANDBOX_DEPOSIT_EVM, SANDBOX_DEPOSIT_SOLANA, SEPA_FIELDS,
  ceilUnits, fromUnits, json, partnerError, readJson, sepaFormErrors, sepaSchema, toUnits,
} from './protocol'

/** How long a sell waits for its source transfer to be mined before it fails. */
const SOURCE_WAIT_MS = 120_000

export function payoutRoutes(ctx: SimulatorContext) {
  const { state: { formSessions, payoutMethods, sells, txs }, opts, now, iso, rate, key, track, post, knownCustomer, ownPayoutMethod, lackingFields, rateMicros } = ctx

  /**
   * A saved beneficiary's id: the partner's `Bank/Sepa/` shape with the account number, and a
   * part of its own per simulator account and customer, so two tenants (or two customers of
   * one) paying the same IBAN each keep their own saved method instead of taking over one
   * id (saved methods are kept by id across accounts). The same customer paying the same
   * IBAN again gets the same id. The part is keyed by a secret of this simulator
   * (`SimulatorOptions.secret`, random when absent), so it cannot be guessed from the account
   * and customer; a simulator that keeps its state across restarts is given one that lasts as
   * long, so a saved beneficiary keeps its id.
   */
  const beneficiarySecret = opts.secret ?? randomBytes(32)
  const beneficiaryId = (accountId: string, customerId: string, iban: string) =>
    `Bank/Sepa/${iban}/${createHmac('sha256', beneficiarySecret).update(`${accountId}:${customerId}`).digest('hex').slice(0, 16)}`

  /**
   * Pays a sell out once the crypto is in: with a chain to read (`verifier`), the sell's
   * `SourceTransactionHash` must be mined, successful and have moved at least the estimate of
   * the token to the deposit address, as a real partner checks, or the sell fails. Without
   * one (no BANK_RAMP_SIMULATOR_RPC_URL), and on Solana, it settles unchecked.
   */
  async function runSell(account: SimulatorAccount, t: PartnerTransaction & { accountId: string }) {
    const send = async () => {
      txs.touch(t.ID)
      const { accountId: _a, ...data } = t
      await post(account, 'Transaction', t.ID, data as unknown as Record<string, unknown>, t.CustomerID)
    }
    await send()
    const verdict = opts.verifier && !t.Network?.startsWith('Solana') ? await sourceReceived(t) : { ok: true as const }
    t.Status = verdict.ok ? 'Settled' : 'Failed'
    t.SubStatus = null
    await send()
  }

  async function sourceReceived(t: PartnerTransaction): Promise<TransferCheck> {
    if (!t.TransactionHash) return { ok: false, reason: 'no SourceTransactionHash' }
    const deadline = now() + SOURCE_WAIT_MS
    for (;;) {
      const check = await opts.verifier!.verify(t.TransactionHash, opts.depositAddress ?? SANDBOX_DEPOSIT_EVM, toUnits(t.Amount ?? '0', 6)).catch(() => null)
      if (check) return check
      if (now() > deadline) return { ok: false, reason: 'the transfer was not mined in time' }
      await Bun.sleep(250)
    }
  }

  return partnerApi(ctx)
    .get('/channels/sell/countries', ({ query, account }) => {
      if (query.CustomerID !== undefined && !knownCustomer(account!.id, query.CustomerID)) return partnerError(404, 'ResourceNotFound', 'Customer not found')
      const out: Record<string, string[]> = {}
      for (const c of CHANNELS) out[c.Country] = [...new Set([...(out[c.Country] ?? []), c.FiatCurrency])]
      return json(out)
    })
    .get('/channels/sell', ({ query, account }) => {
      if (typeof query.CryptoCurrency !== 'string' || !query.CryptoCurrency) return partnerError(400, 'InvalidMessage', 'CryptoCurrency is required', { CryptoCurrency: 'required' })
      if (!['USDC', 'USDC_TEST'].includes(query.CryptoCurrency)) return json({ Items: [] })
      if (query.FiatAmount !== undefined && !DECIMAL.test(String(query.FiatAmount))) return partnerError(400, 'InvalidMessage', 'FiatAmount is not a positive decimal', { FiatAmount: 'invalid' })
      const customer = query.CustomerID !== undefined ? knownCustomer(account!.id, query.CustomerID) : null
      if (query.CustomerID !== undefined && !customer) return partnerError(404, 'ResourceNotFound', 'Customer not found')
      const items = CHANNELS.filter((c) => (!query.Country || c.Country === query.Country) && (!query.FiatCurrency || c.FiatCurrency === query.FiatCurrency)).map((c) => ({
        ...c,
        Limits: { MinLimit: fromUnits(PAYOUT_MIN, 2), MaxLimit: fromUnits(PAYOUT_MAX, 2) },
        Rate: rate,
        ProcessingSeconds: c.PaymentMethodType === 'BankSepa' ? 10 : 60,
        ProcessingTier: 'Standard',
        ...(query.FiatAmount !== undefined ? { Calculated: { TotalFee: fromUnits(ceilUnits(toUnits(String(query.FiatAmount), 2), 100n), 2) } } : {}),
      }))
      return json({ Items: items })
    })
    .get('/channels/:id/form', ({ params, query, account }) => {
      const channel = CHANNELS.find((c) => c.ID === params.id)
      if (!channel) return partnerError(404, 'ResourceNotFound', 'Channel not found')
      if (channel.PaymentMethodType === 'TokenizedCard') return partnerError(400, 'InvalidMessage', 'Card channels take card details through the hosted checkout only')
      const customer = knownCustomer(account!.id, query.CustomerID)
      if (!customer) return partnerError(404, 'ResourceNotFound', 'Customer not found')
      let saved = null
      if (query.PaymentMethodID !== undefined) {
        saved = ownPayoutMethod(account!.id, customer.id, query.PaymentMethodID)
        if (!saved) return partnerError(404, 'ResourceNotFound', 'Payment method not found')
      }
      const lacking = lackingFields(saved)
      // nothing more to ask: the partner omits FormSchema
      if (saved && !lacking.length) return json({})
      return json({ FormSchema: sepaSchema(saved ? lacking : Object.keys(SEPA_FIELDS), lacking) })
    })
    .post('/transactions/sell/prepare', async ({ request, account }) => {
      const b = await readJson(request)
      const missing = ['ChannelID', 'CryptoCurrency', 'FiatAmount', 'CustomerID'].filter((f) => typeof b?.[f] !== 'string' || !b[f])
      if (missing.length) return partnerError(400, 'InvalidMessage', `Missing: ${missing.join(', ')}`, Object.fromEntries(missing.map((m) => [m, 'required'])))
      if (!DECIMAL.test(b.FiatAmount)) return partnerError(400, 'InvalidMessage', 'FiatAmount is not a decimal with at most 2 places', { FiatAmount: 'invalid' })
      const channel = CHANNELS.find((c) => c.ID === b.ChannelID)
      if (!channel) return partnerError(404, 'ResourceNotFound', 'Channel not found')
      if (channel.PaymentMethodType !== 'BankSepa') return partnerError(400, 'InvalidMessage', 'This channel is paid through the hosted checkout only')
      const customer = knownCustomer(account!.id, b.CustomerID)
      if (!customer) return partnerError(404, 'ResourceNotFound', 'Customer not found')
      if (customer.status !== 'Approved') return partnerError(403, 'Forbidden', 'The customer is not verified')
      if (!['USDC', 'USDC_TEST'].includes(b.CryptoCurrency)) return partnerError(400, 'InvalidMessage', 'CryptoCurrency is not sold on this channel', { CryptoCurrency: 'unsupported' })
      const fiat = toUnits(b.FiatAmount, 2)
      if (fiat < PAYOUT_MIN || fiat > PAYOUT_MAX) return partnerError(
        400,
        'InvalidMessage',
        `FiatAmount must be between ${fromUnits(PAYOUT_MIN, 2)} and ${fromUnits(PAYOUT_MAX, 2)}`,
        { FiatAmount: 'out of limits' },
      )
      let saved = null
      if (b.PaymentMethodID !== undefined) {
        saved = ownPayoutMethod(account!.id, customer.id, b.PaymentMethodID)
        if (!saved) return partnerError(404, 'ResourceNotFound', 'Payment method not found')
      }
      const form = b.Form ?? {}
      const errors = sepaFormErrors(form, lackingFields(saved))
      if (Object.keys(errors).length) return partnerError(400, 'InvalidMessage', 'The form is not filled as its schema asks', errors)
      const fee = ceilUnits(fiat, 100n)
      // crypto (6 places) = (fiat + fee) / rate, rounded up; 1% slippage on top is what may be charged at most
      const estimate = ceilUnits((fiat + fee) * 10n ** 10n, rateMicros())
      const authorized = ceilUnits(estimate * 101n, 100n)
      const network = typeof b.Network === 'string' && b.Network ? b.Network : 'EthereumTestSepolia'
      const id = randomUUID()
      formSessions.set(id, {
        id, accountId: account!.id, customerId: customer.id, channel, fiat: b.FiatAmount, crypto: b.CryptoCurrency, fee: fromUnits(fee, 2),
        estimate: fromUnits(estimate, 6), authorized: fromUnits(authorized, 6), network, form: { ...(saved?.fields ?? {}), ...(form as Record<string, string>) },
        paymentMethodId: saved?.id, expiresAt: now() + 30 * 60_000,
      })
      const address = network.startsWith('Solana') ? SANDBOX_DEPOSIT_SOLANA : (opts.depositAddress ?? SANDBOX_DEPOSIT_EVM)
      return json({
        FormSessionID: id,
        TotalFee: fromUnits(fee, 2),
        CryptoAmountEstimate: fromUnits(estimate, 6),
        CryptoAuthorizedAmount: fromUnits(authorized, 6),
        DepositAddress: { Network: network, Address: address },
      })
    })
    .post('/transactions/sell', async ({ request, account }) => {
      const b = await readJson(request)
      const missing = ['CryptoCurrency', 'FiatAmount', 'CryptoAuthorizedAmount', 'FormSessionID', 'Nonce'].filter((f) => typeof b?.[f] !== 'string' || !b[f])
      if (missing.length) return partnerError(400, 'InvalidMessage', `Missing: ${missing.join(', ')}`, Object.fromEntries(missing.map((m) => [m, 'required'])))
      if (b.Nonce.length > 36) return partnerError(400, 'InvalidMessage', 'Nonce is at most 36 characters', { Nonce: 'too long' })
      // the same Nonce never sells twice: the first sell's transaction is answered again
      const earlier = sells.get(key(account!.id, b.Nonce))
      if (earlier) {
        const { accountId: _a, ...data } = txs.get(earlier)!
        return json({ Transaction: data }, 202)
      }
      const s = formSessions.get(b.FormSessionID)
      if (!s || s.accountId !== account!.id) return partnerError(404, 'ResourceNotFound', 'Form session not found')
      if (s.expiresAt < now()) return partnerError(400, 'InvalidMessage', 'The form session has expired', { FormSessionID: 'expired' })
      if (b.FiatAmount !== s.fiat || b.CryptoCurrency !== s.crypto) return partnerError(400, 'InvalidMessage', 'FiatAmount and CryptoCurrency must be those prepared')
      if (!DECIMAL6.test(b.CryptoAuthorizedAmount) || toUnits(b.CryptoAuthorizedAmount, 6) < toUnits(s.authorized, 6)) {
        return partnerError(400, 'InvalidMessage', `CryptoAuthorizedAmount must be at least ${s.authorized}`, { CryptoAuthorizedAmount: 'too low' })
      }
      formSessions.delete(s.id)
      let method = s.paymentMethodId ? payoutMethods.get(s.paymentMethodId) : undefined
      if (!method) {
        const id = beneficiaryId(account!.id, s.customerId, s.form.IBAN!)
        method = { id, accountId: account!.id, customerId: s.customerId, fields: s.form }
        payoutMethods.set(id, method)
      }
      const t: PartnerTransaction & { accountId: string } = {
        accountId: account!.id, ID: randomUUID(), Created: iso(), Status: 'Pending', SubStatus: 'Submitted', Direction: 'Out', Network: s.network,
        CryptoCurrency: s.crypto, CustomerID: s.customerId, Amount: s.estimate, ExternalID: typeof b.ExternalID === 'string' ? b.ExternalID : undefined,
        FiatPayment: { Amount: s.fiat, FeeAmount: s.fee, Rate: rate, FiatCurrency: s.channel.FiatCurrency, PaymentSystemID: `SEPA-${randomUUID().slice(0, 12).toUpperCase()}` },
        Breakdown: [{ Type: 'ChannelFee', Amount: s.fee }, { Type: 'Remaining', Amount: s.fiat }], Refunds: [],
        TransactionHash: typeof b.SourceTransactionHash === 'string' ? b.SourceTransactionHash : undefined,
      }
      txs.set(t.ID, t)
      sells.set(key(account!.id, b.Nonce), t.ID)
      const { accountId: _a, ...data } = t
      const answer = json({ Transaction: { ...data } }, 202)
      track(runSell(account!, t))
      return answer
    })
    .get('/transactions/:id', ({ params, account }) => {
      const t = txs.get(params.id)
      if (!t || t.accountId !== account!.id) return partnerError(404, 'ResourceNotFound', 'Transaction not found')
      const { accountId: _a, ...data } = t
      return json(data)
    })
}
