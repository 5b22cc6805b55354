/**
 * Bank ramp payout quotes: the partner's prepared sell (`transactions/sell/prepare`: its
 * `FormSessionID`, fee and the most crypto it may take), stored for a user to pay
 * (payouts.ts, payout-run.ts).
 */
import { BadRequestError, ForbiddenError, NotFoundError, RampApiError } from '../../lib/errors'
import { iso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { Ctx } from '../../context'
import { findUserWallet } from '../wallets'
import { decimalOf, plainDecimal, unitsOf } from './amounts'
import type * as M from './model'
import { access, customerOf, partnerClient, type RampAccess } from './access'
import { availablePairs, partnerCrypto, partnerNetwork } from './pairs'
import { CRYPTO_PLACES, pairUnavailable, stablecoinOf } from './payout-run'
import * as repo from './repo'
import { quoteMethodAad } from './sealed'
import { decimalText } from './views'

/** How long a quote may be paid; the partner's form session lives longer. */
export const QUOTE_TTL_MS = 10 * 60_000

export const productionRefused = () =>
  new ForbiddenError('Payouts are available only in the sandbox (isTestnet: true)', { details: { code: 'PAYOUT_PRODUCTION_UNAVAILABLE' } })

const fiat2 = (dec: string) => decimalOf(unitsOf(dec, 2), 2)

export interface QuoteRequest {
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

export async function prepareQuote(ctx: Ctx, a: RampAccess, input: QuoteRequest) {
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

export async function storeQuote(ctx: Ctx, a: RampAccess, input: QuoteRequest, p: Awaited<ReturnType<typeof prepareQuote>>) {
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

export async function ownQuote(ctx: Ctx, a: RampAccess, id: string) {
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
