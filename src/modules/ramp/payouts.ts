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
import { NotFoundError, RampApiError, refusedField } from '../../lib/errors'
import type { Ctx } from '../../context'
import { decimalOf, unitsOf } from './amounts'
import type * as M from './model'
import { access, customerOf, envOf, partnerClient } from './access'
import { partnerCrypto } from './pairs'
import { initiatedView, payoutView, payQuote } from './payout-run'
import { ownQuote, prepareQuote, productionRefused, storeQuote } from './payout-quotes'
import * as repo from './repo'
import type { RampEnv } from './schema'
import { decimalText } from './views'

export { beneficiaries, channelForm, payoutCountries, searchChannels } from './payout-channels'
export { createQuote, quoteSteps, readQuote } from './payout-quotes'

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
  const channel = (await partnerClient(ctx.deps, a.tenantId, a.env, a.ramp).sellChannels({
    CryptoCurrency: partnerCrypto(input.cryptoCurrency ?? 'USDC', a.env) ?? '',
    CustomerID: c.known ? c.id : undefined,
  }))
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
  if (!p) throw refusedField('cryptoAmount is too small to pay out on this channel', '/cryptoAmount')
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
