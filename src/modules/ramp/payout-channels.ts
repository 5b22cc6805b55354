/**
 * Bank ramp payout channels, their forms and the user's beneficiaries: read from the partner
 * and never stored.
 */
import { createHash } from 'node:crypto'
import type { Ctx } from '../../context'
import type * as M from './model'
import { access, customerNotFound, customerOf, envOf, partnerClient } from './access'
import { partnerCrypto } from './pairs'
import { pairUnavailable } from './payout-run'
import * as repo from './repo'
import { decimalText } from './views'

/** `value` as canonical JSON (keys sorted at every level), for the form's content hash. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

export async function payoutCountries(ctx: Ctx, input: M.EnvQuery) {
  const a = await access(ctx, envOf(input.isTestnet), 'payout')
  const c = await repo.findCustomer(ctx.deps.database.db, a.tenantId, a.env, a.userId)
  // a customer the partner does not know yet is not named: the countries are the same for everyone
  const res = await partnerClient(ctx.deps, a.tenantId, a.env, a.ramp).sellCountries(c?.known ? c.id : undefined)
  const countries = Object.entries(res && typeof res === 'object' ? res : {})
    .filter(([country, list]) => /^[A-Z]{2}$/.test(country) && Array.isArray(list))
    .map(([country, list]) => ({ country, fiatCurrencies: (list as unknown[]).filter((x): x is string => typeof x === 'string') }))
    .sort((x, y) => x.country.localeCompare(y.country))
  return { environment: a.env, countries }
}

export async function searchChannels(ctx: Ctx, input: M.ChannelSearchBody) {
  const a = await access(ctx, envOf(input.isTestnet), 'payout')
  const c = await repo.findCustomer(ctx.deps.database.db, a.tenantId, a.env, a.userId)
  if (input.paymentMethodId !== undefined && !c) throw customerNotFound(a.env)
  const crypto = input.cryptoCurrency ?? 'USDC'
  const code = partnerCrypto(crypto, a.env)
  if (!code) throw pairUnavailable(a, `${crypto} is not offered in ${a.env}`)
  const items = await partnerClient(ctx.deps, a.tenantId, a.env, a.ramp).sellChannels({
    CryptoCurrency: code, Country: input.country, FiatCurrency: input.fiatCurrency, FiatAmount: input.fiatAmount,
    CustomerID: c?.known ? c.id : undefined, PaymentMethodID: input.paymentMethodId,
  })
  const channels = items.filter((ch) => ch && typeof ch.ID === 'string').map((ch) => ({
    channelId: ch.ID,
    paymentMethodCategory: String(ch.PaymentMethodCategory ?? ''),
    paymentMethodType: String(ch.PaymentMethodType ?? ''),
    fiatCurrency: String(ch.FiatCurrency ?? ''),
    country: String(ch.Country ?? ''),
    // the partner's decimal text, without trailing zeros (`10.00` → `10`), never through a float
    limits: { min: decimalText(ch.Limits?.MinLimit) ?? '0', max: decimalText(ch.Limits?.MaxLimit) },
    rate: decimalText(ch.Rate),
    totalFee: decimalText(ch.Calculated?.TotalFee),
    processingSeconds: Number.isInteger(ch.ProcessingSeconds) ? ch.ProcessingSeconds : 0,
    processingTier: ch.ProcessingTier ?? null,
  }))
  return { environment: a.env, channels }
}

/**
 * The form a channel asks for (spec: Bank ramp payout channel form). No KYC approval is
 * needed; the user needs a bank ramp profile (404 `RAMP_CUSTOMER_NOT_FOUND`) the partner knows
 * (404 `RAMP_RESOURCE_NOT_FOUND` when the hosted onboarding was not started). With
 * `paymentMethodId` the partner answers only what it still lacks. Nothing is stored.
 */
export async function channelForm(ctx: Ctx, channelId: string, input: M.ChannelFormBody) {
  const a = await access(ctx, envOf(input.isTestnet), 'payout')
  const c = await customerOf(ctx, a)
  const res = await partnerClient(ctx.deps, a.tenantId, a.env, a.ramp).channelForm(channelId, { CustomerID: c.id, PaymentMethodID: input.paymentMethodId })
  const schema = res && typeof res === 'object' && res.FormSchema && typeof res.FormSchema === 'object' && !Array.isArray(res.FormSchema) ? res.FormSchema : null
  return {
    environment: a.env,
    channelId,
    formSchema: schema,
    formContentHash: schema ? createHash('sha256').update(canonical(schema)).digest('hex') : null,
  }
}

export async function beneficiaries(ctx: Ctx, input: M.EnvQuery) {
  const { deps } = ctx
  const a = await access(ctx, envOf(input.isTestnet), 'payout')
  const c = await repo.findCustomer(deps.database.db, a.tenantId, a.env, a.userId)
  if (!c?.known) return { environment: a.env, beneficiaries: [] }
  const methods = await partnerClient(deps, a.tenantId, a.env, a.ramp).listPaymentMethods(c.id)
  // the customer's virtual IBANs (pay-ins) are payment methods too; beneficiaries are the accounts paid out to
  const own = new Set((await repo.listMethods(deps.database.db, a.tenantId, a.env, a.userId)).map((m) => m.rampPaymentMethodId))
  return {
    environment: a.env,
    beneficiaries: methods.filter((m) => m && typeof m.ID === 'string' && !own.has(m.ID)).map((m) => {
      const account = typeof m.DisplayDetails?.AccountNumber === 'string' ? m.DisplayDetails.AccountNumber : null
      return {
        paymentMethodId: m.ID,
        paymentMethodCategory: String(m.PaymentMethodCategory ?? ''),
        country: String(m.Country ?? ''),
        accountNumberLast4: account ? account.slice(-4) : null,
        bankCode: typeof m.DisplayDetails?.BankCode === 'string' ? m.DisplayDetails.BankCode : null,
      }
    }),
  }
}
