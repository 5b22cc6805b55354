/**
 * Bank ramp, part 2: payouts from a user's custodial wallet to a bank account.
 *
 * Channels and their forms are read from the partner and never stored. A quote is the
 * partner's prepared sell (`transactions/sell/prepare`: its `FormSessionID`, fee and the most
 * crypto it may take). A payout pays a quote: the crypto leg is a real transaction of the
 * transactions module from the wallet to the partner's deposit address, held against the
 * wallet's balance when the payout is recorded; once its receipt shows success, the partner's
 * sell (`transactions/sell`, `Nonce` and `ExternalID` = the payout id, so a retried call never
 * sells twice and the partner's events find the payout): payout-run.ts. The partner's
 * transaction events then move the payout's status (events.ts).
 *
 * Payouts run only in the sandbox: a production payout answers 403
 * `PAYOUT_PRODUCTION_UNAVAILABLE` before anything is read or called.
 */
import { createHash } from 'node:crypto'
import { BadRequestError, ForbiddenError, NotFoundError, RampApiError } from '../../http/errors'
import { iso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { Ctx } from '../../context'
import { findUserWallet } from '../wallets/repo'
import { decimalOf, plainDecimal, unitsOf } from './amounts'
import type * as M from './model'
import { availablePairs, partnerCrypto, partnerNetwork } from './pairs'
import { CRYPTO_PLACES, initiatedView, pairUnavailable, payoutView, payQuote, stablecoinOf } from './payout-run'
import * as repo from './repo'
import type { RampEnv } from './schema'
import { quoteMethodAad } from './sealed'
import { access, customerNotFound, envOf, partnerClient, type RampAccess } from './service'
import { decimalText } from './views'

/** How long a quote may be paid; the partner's form session lives longer. */
export const QUOTE_TTL_MS = 10 * 60_000

const productionRefused = () =>
  new ForbiddenError('Payouts are available only in the sandbox (isTestnet: true)', { details: { code: 'PAYOUT_PRODUCTION_UNAVAILABLE' } })

const fiat2 = (dec: string) => decimalOf(unitsOf(dec, 2), 2)

/** `value` as canonical JSON (keys sorted at every level), for the form's content hash. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

async function customerOf(ctx: Ctx, a: RampAccess) {
  const c = await repo.findCustomer(ctx.deps.database.db, a.tenantId, a.env, a.userId)
  if (!c) throw customerNotFound(a.env)
  return c
}

// ---- channels (read only; nothing stored)

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

// ---- quotes

interface QuoteRequest {
  channelId: string
  walletId: string
  fiatAmount: string
  fiatCurrency?: string
  cryptoCurrency?: string
  paymentMethodId?: string
  form?: Record<string, string>
}

/** The caller's wallet a payout is paid from: theirs, on the environment's network, its chain offered. */
async function payingWallet(ctx: Ctx, a: RampAccess, walletId: string, crypto: string, fiat: string) {
  const wallet = await findUserWallet(ctx.deps.database.db, a.tenantId, a.userId, walletId)
  if (!wallet) throw new NotFoundError('Wallet not found')
  if (!wallet.isTestnet) throw new BadRequestError('The bank ramp sandbox pays out from testnet wallets (isTestnet)')
  if (!availablePairs(a.settings, a.env).some((p) => p.cryptoCurrency === crypto && p.fiatCurrency === fiat && p.network === wallet.chain)) {
    throw pairUnavailable(a, `${crypto} on ${wallet.chain} to ${fiat} is not offered in ${a.env}`)
  }
  return wallet
}

async function prepareQuote(ctx: Ctx, a: RampAccess, input: QuoteRequest) {
  const { deps } = ctx
  const crypto = input.cryptoCurrency ?? 'USDC'
  const fiat = input.fiatCurrency ?? 'EUR'
  const wallet = await payingWallet(ctx, a, input.walletId, crypto, fiat)
  const c = await customerOf(ctx, a)
  const network = partnerNetwork(wallet.chain, a.env)!
  // the sell must name the amount exactly as prepared: always 2 decimals
  const fiatAmount = fiat2(input.fiatAmount)
  const prepared = await partnerClient(deps, a.tenantId, a.env, a.ramp).prepareSell({
    ChannelID: input.channelId, CryptoCurrency: partnerCrypto(crypto, a.env)!, FiatAmount: fiatAmount, CustomerID: c.id,
    PaymentMethodID: input.paymentMethodId, Form: input.form, Network: network,
  })
  const address = prepared?.DepositAddress?.Address
  if (typeof prepared?.FormSessionID !== 'string' || typeof address !== 'string' || !address
    || decimalText(prepared.TotalFee) === null || decimalText(prepared.CryptoAmountEstimate) === null || decimalText(prepared.CryptoAuthorizedAmount) === null) {
    throw new RampApiError(503, 'RAMP_UNAVAILABLE', 'The bank ramp sent an incomplete prepared sell')
  }
  const estimate = unitsOf(prepared.CryptoAmountEstimate, CRYPTO_PLACES)
  const fee = unitsOf(prepared.TotalFee, 2)
  // fiat and fee over the crypto they cost: the rate without fees, 6 decimals
  const rate = estimate > 0n ? decimalText(decimalOf(((unitsOf(fiatAmount, 2) + fee) * 10n ** 10n) / estimate, 6)) : null
  return {
    wallet, crypto, fiat, customerId: c.id,
    totalFee: decimalOf(fee, 2),
    estimate: estimate.toString(),
    authorized: unitsOf(prepared.CryptoAuthorizedAmount, CRYPTO_PLACES).toString(),
    rate, formSessionId: prepared.FormSessionID, depositAddress: address,
  }
}

async function storeQuote(ctx: Ctx, a: RampAccess, input: QuoteRequest, p: Awaited<ReturnType<typeof prepareQuote>>) {
  const now = ctx.deps.clock.now()
  const id = newId()
  // the partner's beneficiary id holds the account number (`Bank/Sepa/<IBAN>`): sealed (sealed.ts)
  const rampPaymentMethodId = input.paymentMethodId ? ctx.deps.sealer.seal(input.paymentMethodId, quoteMethodAad(a.tenantId, id)) : null
  const row: repo.QuoteRow = {
    id, tenantId: a.tenantId, environment: a.env, userId: a.userId, customerId: p.customerId, channelId: input.channelId, walletId: p.wallet.id,
    chain: p.wallet.chain, cryptoCurrency: p.crypto, fiatAmount: fiat2(input.fiatAmount), fiatCurrency: p.fiat, rampPaymentMethodId,
    formSessionId: p.formSessionId, totalFee: p.totalFee, cryptoAmountEstimate: p.estimate, cryptoAuthorizedAmount: p.authorized, exchangeRate: p.rate,
    depositAddress: p.depositAddress, expiresAt: now + QUOTE_TTL_MS, createdAt: now,
  }
  await ctx.deps.database.write((tx) => repo.insertQuote(tx, a.tenantId, row))
  return row
}

function quoteView(q: repo.QuoteRow, payout: repo.PayoutRow | undefined, now: number) {
  return {
    id: q.id, environment: q.environment, channelId: q.channelId, walletId: q.walletId, network: q.chain, cryptoCurrency: q.cryptoCurrency,
    fiatAmount: plainDecimal(q.fiatAmount), fiatCurrency: q.fiatCurrency, totalFee: plainDecimal(q.totalFee), exchangeRate: q.exchangeRate,
    cryptoAmountEstimate: q.cryptoAmountEstimate, cryptoAuthorizedAmount: q.cryptoAuthorizedAmount, depositAddress: q.depositAddress,
    status: payout ? 'used' as const : q.expiresAt <= now ? 'expired' as const : 'open' as const,
    payoutId: payout?.id ?? null, expiresAt: iso(q.expiresAt), createdAt: iso(q.createdAt),
  }
}

export async function createQuote(ctx: Ctx, input: M.QuoteBody) {
  if (!input.isTestnet) throw productionRefused()
  const a = await access(ctx, 'sandbox', 'payout')
  const row = await storeQuote(ctx, a, input, await prepareQuote(ctx, a, input))
  return quoteView(row, undefined, ctx.deps.clock.now())
}

async function ownQuote(ctx: Ctx, a: RampAccess, id: string) {
  const q = await repo.findQuote(ctx.deps.database.db, a.tenantId, a.env, a.userId, id)
  if (!q) throw new NotFoundError('Quote not found')
  return q
}

export async function readQuote(ctx: Ctx, id: string, input: M.EnvQuery) {
  if (!input.isTestnet) throw productionRefused()
  const a = await access(ctx, 'sandbox', 'payout')
  const q = await ownQuote(ctx, a, id)
  return quoteView(q, await repo.findPayoutOfQuote(ctx.deps.database.db, a.tenantId, q.id), ctx.deps.clock.now())
}

/** What paying the quote does, in order, and which of it is done. Reads only. */
export async function quoteSteps(ctx: Ctx, id: string, input: M.EnvBody) {
  if (!input.isTestnet) throw productionRefused()
  const a = await access(ctx, 'sandbox', 'payout')
  const q = await ownQuote(ctx, a, id)
  const payout = await repo.findPayoutOfQuote(ctx.deps.database.db, a.tenantId, q.id)
  const wallet = await findUserWallet(ctx.deps.database.db, a.tenantId, a.userId, q.walletId)
  const token = wallet ? stablecoinOf(a, wallet, q.cryptoCurrency) : null
  return {
    quoteId: q.id,
    steps: [
      {
        type: 'transfer' as const, status: payout?.txHash ? 'done' as const : 'todo' as const,
        description: `Send the authorized ${q.cryptoCurrency} from the wallet to the bank ramp's deposit address (a transaction of the transactions module)`,
        walletId: q.walletId, chain: q.chain, fromAddress: wallet?.address ?? null, toAddress: q.depositAddress, tokenAddress: token?.address ?? null, amount: q.cryptoAuthorizedAmount,
      },
      {
        type: 'payout' as const, status: payout?.rampTransactionId ? 'done' as const : 'todo' as const,
        description: `The bank ramp sells it and pays ${q.fiatAmount} ${q.fiatCurrency} to the bank account`,
        walletId: null, chain: null, fromAddress: null, toAddress: null, tokenAddress: null, amount: null,
      },
    ],
  }
}

// ---- payouts (paying a quote: payout-run.ts)

export async function createPayout(ctx: Ctx, input: M.PayoutBody) {
  if (!input.isTestnet) throw productionRefused()
  const a = await access(ctx, 'sandbox', 'payout')
  return payoutView(await payQuote(ctx, a, await ownQuote(ctx, a, input.quoteId)))
}

/**
 * Quote and pay in one call for a crypto amount (integer string, 6 decimals). The fiat amount
 * is found from the channel's rate (fiat per unit of crypto), then lowered until what the
 * partner may take is at most `cryptoAmount` (at most 3 prepared sells).
 */
export async function initiatePayout(ctx: Ctx, input: M.InitiateBody) {
  if (!input.isTestnet) throw productionRefused()
  const a = await access(ctx, 'sandbox', 'payout')
  const crypto = BigInt(input.cryptoAmount)
  const c = await customerOf(ctx, a)
  const channel = (await partnerClient(ctx.deps, a.tenantId, a.env, a.ramp).sellChannels({ CryptoCurrency: partnerCrypto(input.cryptoCurrency ?? 'USDC', a.env) ?? '', CustomerID: c.known ? c.id : undefined }))
    .find((ch) => ch?.ID === input.channelId)
  if (!channel) throw new RampApiError(404, 'RAMP_RESOURCE_NOT_FOUND', 'The bank ramp has no such channel')
  const rate = decimalText(channel.Rate)
  if (!rate) throw new RampApiError(503, 'RAMP_UNAVAILABLE', 'The bank ramp sent no channel rate')
  // cents = crypto (6 places) × rate (6 places) / 10^10, rounded down
  let cents = (crypto * unitsOf(rate, 6)) / 10n ** 10n
  let p: Awaited<ReturnType<typeof prepareQuote>> | undefined
  // fees and the partner's margin make the first guess too high; scale it down (and a cent more for rounding)
  for (let attempt = 0; attempt < 3 && cents > 0n; attempt++) {
    p = await prepareQuote(ctx, a, { ...input, fiatAmount: decimalOf(cents, 2) })
    const authorized = BigInt(p.authorized)
    if (authorized <= crypto) break
    cents = (cents * crypto) / authorized - 1n
    p = undefined
  }
  if (!p) throw new BadRequestError('cryptoAmount is too small to pay out on this channel', { details: { field: 'cryptoAmount' } })
  const q = await storeQuote(ctx, a, { ...input, fiatAmount: decimalOf(cents, 2) }, p)
  const payout = await payQuote(ctx, a, q, 'ramp_payout_initiate')
  return initiatedView(payout, payout.exchangeRate ?? rate, input.cryptoAmount)
}

export async function listPayouts(ctx: Ctx, input: M.PayoutListQuery) {
  const env: RampEnv = envOf(input.isTestnet)
  const a = await access(ctx, env, 'payout')
  const page = input.page ?? 1
  const limit = input.limit ?? 20
  const { rows, total } = await repo.listPayouts(ctx.deps.database.db, a.tenantId, a.env, a.userId, limit, (page - 1) * limit)
  return { payouts: rows.map(payoutView), total, page, limit, totalPages: Math.ceil(total / limit) }
}

export async function readPayout(ctx: Ctx, id: string, input: M.EnvQuery) {
  const a = await access(ctx, envOf(input.isTestnet), 'payout')
  const p = await repo.findPayout(ctx.deps.database.db, a.tenantId, a.env, a.userId, id)
  if (!p) throw new NotFoundError('Payout not found')
  return payoutView(p)
}
