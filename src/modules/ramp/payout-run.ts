/**
 * Paying a quote, and what follows until the bank ramp has the sell.
 *
 * 1. One write transaction records the payout (`pending`; the unique quote id lets one
 *    payout win), holds its crypto against the wallet's balance (the transactions module's holds: the
 *    chain's balance less every send and hold in flight, so concurrent payouts and sends
 *    cannot together spend more than the wallet holds), binds the request's Idempotency-Key
 *    to the payout, and schedules the payout's job.
 * 2. The transfer: a custodial send of the transactions module that takes the hold over.
 *    If it never reaches a node, the payout and its hold are removed in one transaction and
 *    the key is released: nothing was recorded, nothing moved, the error is answered.
 *    Once it may have reached a node, the answer is the payout (`pending`), whatever follows.
 * 3. The job (`ramp.payout.advance`) reads the transfer's fate from the chain. Mined and
 *    successful: the partner's sell (`Nonce` and `ExternalID` = the payout id, so a retried
 *    sell never sells twice), retried while the partner is unavailable. Reverted or dropped:
 *    the payout is `failed` with the reason and `ramp.payout.updated` is published in the same
 *    transaction; the send moved nothing, so nothing stays held. A payout whose transfer was
 *    never recorded (its process stopped) fails once its hold has lapsed.
 * The sell is never asked for before the transfer's receipt shows success.
 */
import { createHash } from 'node:crypto'
import type { Deps } from '../../deps'
import type { Tx } from '../../db/client'
import { AppError, BadRequestError, ConflictError, NotFoundError } from '../../lib/errors'
import { iso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { errorSummary } from '../../lib/logger'
import type { Ctx } from '../../context'
import { scheduleJob } from '../../jobs/outbox'
import { findTenant, settingsOf } from '../tenants'
import { activeTokens, chainByFamily } from '../tokens'
import { notify } from '../notifications'
import { publishEvent } from '../webhooks'
import { findUserWallet } from '../wallets'
import { HOLD_UNSENT_TTL_MS, isCustodial, transactions } from '../transactions'
import { decimalOf, plainDecimal } from './amounts'
import { availablePairs, partnerCrypto } from './pairs'
import * as repo from './repo'
import type { RampEnv } from './schema'
import { partnerClient, type RampAccess } from './access'
import { payoutNotice } from './notices'
import { PAYOUT_ADVANCE_TOPIC } from './topics'
import { payoutEventData } from './views'

/** Payout crypto amounts are read with 6 decimals for every currency (spec, Amount formats). */
export const CRYPTO_PLACES = 6
/**
 * After this many attempts (about 40 minutes), a sell the partner still has not taken is overdue:
 * logged as an error and counted (`slipway_ramp_sell_overdue_total`) at each further attempt.
 * It keeps being asked every 10 minutes: the crypto is already at the partner's deposit address,
 * so failing the payout would leave the user with neither; the sell's Nonce (the payout id)
 * makes asking again safe.
 */
const SELL_OVERDUE_AFTER = 12

export function stablecoinOf(a: Pick<RampAccess, 'settings'>, wallet: { chain: string; isTestnet: boolean }, symbol: string) {
  const chain = chainByFamily(wallet.chain)
  if (!chain) return null
  const network = wallet.isTestnet ? chain.testnet : chain.mainnet
  return activeTokens(a.settings, chain, network).find((tk) => tk.symbol === symbol && tk.address !== null) ?? null
}

export function pairUnavailable(a: Pick<RampAccess, 'settings' | 'env'>, message: string) {
  return new AppError(400, 'BadRequestError', message, { details: { code: 'RAMP_PAIR_UNAVAILABLE', available: availablePairs(a.settings, a.env) } })
}

/**
 * A payout as read: its fiat figures as decimal text without trailing zeros (`"100"`, `"1.5"`), like
 * every amount the read routes answer. They are stored with exactly 2 decimals, as the bank ramp takes them.
 */
export function payoutView(p: repo.PayoutRow) {
  return {
    id: p.id, environment: p.environment, quoteId: p.quoteId, walletId: p.walletId, network: p.chain, status: p.status as 'pending' | 'processing' | 'completed' | 'failed',
    cryptoCurrency: p.cryptoCurrency, cryptoAuthorizedAmount: p.cryptoAuthorizedAmount, fiatAmount: plainDecimal(p.fiatAmount), fiatCurrency: p.fiatCurrency,
    exchangeRate: p.exchangeRate, totalFee: plainDecimal(p.totalFee), rampTransactionId: p.rampTransactionId, transactionId: p.chainTransactionId, txHash: p.txHash,
    failureReason: p.failureReason, createdAt: iso(p.createdAt), updatedAt: iso(p.updatedAt),
  }
}

/**
 * The answer of `POST payout/initiate`: the payout, with `fiatAmount` as the platform API spec fixes it
 * for that answer ("Payout initiate response `fiatAmount` ... has 2 decimals": `"100.00"`).
 */
export function initiatedView(p: repo.PayoutRow, exchangeRate: string | null, cryptoAmount: string) {
  return { ...payoutView(p), fiatAmount: p.fiatAmount, exchangeRate: exchangeRate ?? '', cryptoAmount }
}

const advanceJob = (tenantId: string, env: RampEnv, payoutId: string, attempt: number, runAt: number) =>
  ({ id: `ramp-payout:${payoutId}:${attempt}`, topic: PAYOUT_ADVANCE_TOPIC, tenantId, payload: { payoutId, environment: env, attempt }, runAt })

/**
 * Pays a quote from its custodial wallet (steps 1 and 2 above); answers the payout as recorded.
 * `replayKind`: what the request's Idempotency-Key is bound to (routes.ts answers a retry with it).
 */
export async function payQuote(ctx: Ctx, a: RampAccess, q: repo.QuoteRow, replayKind = 'ramp_payout') {
  const { deps } = ctx
  const now = deps.clock.now()
  if (await repo.findPayoutOfQuote(deps.database.db, a.tenantId, q.id)) throw new ConflictError('This quote was already paid out')
  if (q.expiresAt <= now) throw new BadRequestError('The quote has expired; ask for a new one', { details: { code: 'RAMP_QUOTE_EXPIRED' } })
  const wallet = await findUserWallet(deps.database.db, a.tenantId, a.userId, q.walletId)
  if (!wallet) throw new NotFoundError('Wallet not found')
  if (!isCustodial(wallet)) throw new BadRequestError('Payouts are paid from a custodial wallet')
  const token = stablecoinOf(a, wallet, q.cryptoCurrency)
  if (!token) throw pairUnavailable(a, `${q.cryptoCurrency} is not active on ${wallet.chain} for this tenant`)
  const amount = BigInt(q.cryptoAuthorizedAmount)
  // the chain's balances, read before the write transaction that holds against them
  const held = await transactions.walletBalances(deps, a.settings, wallet, token.address)
  const id = newId()
  await deps.database.write(async (w) => {
    const t = deps.clock.now()
    const recorded = await repo.insertPayout(w, a.tenantId, {
      id, environment: a.env, userId: a.userId, quoteId: q.id, walletId: wallet.id, chain: wallet.chain, cryptoCurrency: q.cryptoCurrency,
      cryptoAuthorizedAmount: q.cryptoAuthorizedAmount, fiatAmount: q.fiatAmount, fiatCurrency: q.fiatCurrency, exchangeRate: q.exchangeRate, totalFee: q.totalFee,
      status: 'pending', rampTransactionId: null, chainTransactionId: null, txHash: null, failureReason: null, createdAt: t, updatedAt: t,
    })
    if (!recorded) throw new ConflictError('This quote was already paid out')
    if (held) await transactions.placeHold(w, held.key, held.balances, { tokenAddress: token.address, amount, purpose: 'ramp_payout', refId: id, id }, t)
    await scheduleJob(w, advanceJob(a.tenantId, a.env, id, 1, t + 1000), t)
    await ctx.idempotency?.bind(w, `${replayKind}:${id}`)
  })
  let sent: { id: string; txHash: string | null }
  try {
    // the send is the payout's: the payout's Idempotency-Key stays bound to the payout
    sent = await transactions.createTransaction(
      { ...ctx, idempotency: undefined },
      { walletId: wallet.id, chain: wallet.chain, toAddress: q.depositAddress, amount: q.cryptoAuthorizedAmount, tokenAddress: token.address },
      // a wallet without gas money pays out sponsored where the tenant's gas policy covers payouts
      { holdId: held ? id : undefined, sponsorAs: 'payout' },
    ) as { id: string; txHash: string | null }
  } catch (err) {
    const send = await transactions.sendOfHold(deps.database.db, a.tenantId, id)
    if (send && send.status === 'pending') {
      // recorded and perhaps submitted: the payout goes on (the job reads the transfer's fate)
      deps.logger.warn('payout transfer answered an error after it was recorded', { payoutId: id, ...errorSummary(err) })
      sent = { id: send.id, txHash: send.txHash }
    } else {
      // never reached a node: nothing was moved, so nothing stays recorded and the key is free again
      await deps.database.write(async (w) => {
        await repo.deletePayout(w, a.tenantId, id)
        await transactions.releaseHold(w, a.tenantId, id, deps.clock.now())
        await ctx.idempotency?.unbind(w)
      })
      throw err
    }
  }
  await deps.database.write((w) => repo.updatePayout(w, a.tenantId, id, { chainTransactionId: sent.id, txHash: sent.txHash, updatedAt: deps.clock.now() }))
  return (await repo.findPayoutById(deps.database.db, a.tenantId, a.env, id))!
}

/** Fails a payout still `pending` and publishes `ramp.payout.updated`, in one transaction; its hold, if unspent, is released. */
async function failPayout(deps: Deps, tenantId: string, env: RampEnv, payoutId: string, reason: string) {
  const now = deps.clock.now()
  await deps.database.write(async (w: Tx) => {
    const p = await repo.findPayoutById(w, tenantId, env, payoutId)
    if (!p || p.status !== 'pending') return
    const patch = { status: 'failed', failureReason: reason, updatedAt: now }
    await repo.updatePayout(w, tenantId, payoutId, patch)
    await transactions.releaseHold(w, tenantId, payoutId, now)
    const eventId = `evt_${createHash('sha256').update(`${tenantId}|${env}|payout-failed|${payoutId}`).digest('hex').slice(0, 32)}`
    await publishEvent(w, { tenantId, environment: env, type: 'ramp.payout.updated', data: payoutEventData({ ...p, ...patch }), occurredAt: now, id: eventId }, now)
    await notify(deps, w, { tenantId, userId: p.userId, kind: 'ramp.payout', data: payoutNotice({ ...p, ...patch }) })
  })
}

const retryable = (err: unknown) => !(err instanceof AppError) || err.status >= 500 || err.status === 429

/** The `ramp.payout.advance` job (step 3 above). */
export async function advancePayout(deps: Deps, tenantId: string | null | undefined, payload: Record<string, unknown>) {
  const env = payload.environment === 'production' ? 'production' : 'sandbox'
  const payoutId = String(payload.payoutId)
  const attempt = Number(payload.attempt ?? 1)
  const p = tenantId ? await repo.findPayoutById(deps.database.db, tenantId, env, payoutId) : undefined
  // done with: the sell was asked for (the partner's events move it on), or it ended
  if (!tenantId || !p || p.status !== 'pending' || p.rampTransactionId) return
  const now = deps.clock.now()
  const again = async (delayMs: number) => {
    await deps.database.write((w) => scheduleJob(w, advanceJob(tenantId, env, payoutId, attempt + 1, now + delayMs), now))
  }
  if (!p.chainTransactionId) {
    const send = await transactions.sendOfHold(deps.database.db, tenantId, payoutId)
    if (send) {
      await deps.database.write((w) => repo.updatePayout(w, tenantId, payoutId, { chainTransactionId: send.id, txHash: send.txHash, updatedAt: now }))
      return again(0)
    }
    // the request that records the transfer is still running, or its process stopped
    if (now < p.createdAt + HOLD_UNSENT_TTL_MS) return again(p.createdAt + HOLD_UNSENT_TTL_MS - now)
    return failPayout(deps, tenantId, env, payoutId, 'The transfer to the bank ramp was never sent')
  }
  let send
  try {
    send = await transactions.refreshedTransaction(deps, tenantId, p.chainTransactionId)
  } catch (err) {
    if (!(err instanceof AppError)) deps.logger.warn('payout transfer status unreadable', { payoutId, ...errorSummary(err) })
    return again(Math.min(deps.config.txRefreshFirstMs * attempt, 15_000))
  }
  if (!send) return failPayout(deps, tenantId, env, payoutId, 'The transfer to the bank ramp was not found')
  if (send.status === 'pending') return again(Math.min(deps.config.txRefreshFirstMs * attempt, 15_000))
  if (send.status !== 'confirmed') return failPayout(deps, tenantId, env, payoutId, `The transfer to the bank ramp failed: ${send.failureReason ?? send.status}`)
  // a sponsored transfer (a user operation) has its transaction hash only once it is mined
  if (!p.txHash && send.txHash) await deps.database.write((w) => repo.updatePayout(w, tenantId, payoutId, { txHash: send.txHash, updatedAt: now }))
  await sell(deps, tenantId, env, { ...p, txHash: p.txHash ?? send.txHash }, attempt, again)
}

/** The partner's sell of a payout whose transfer is mined and successful. */
async function sell(deps: Deps, tenantId: string, env: RampEnv, p: repo.PayoutRow, attempt: number, again: (delayMs: number) => Promise<unknown>) {
  const tenant = await findTenant(deps.database.db, tenantId)
  const q = await repo.findQuote(deps.database.db, tenantId, env, p.userId, p.quoteId)
  if (!tenant || !q) return failPayout(deps, tenantId, env, p.id, 'The payout\'s quote or tenant is gone')
  const ramp = settingsOf({ deps }, tenant).bankRamp[env]
  try {
    const res = await partnerClient(deps, tenantId, env, ramp).sell({
      CryptoCurrency: partnerCrypto(q.cryptoCurrency, env)!, FiatAmount: q.fiatAmount, CryptoAuthorizedAmount: decimalOf(BigInt(q.cryptoAuthorizedAmount), CRYPTO_PLACES),
      FormSessionID: q.formSessionId, Nonce: p.id, ExternalID: p.id, SourceTransactionHash: p.txHash ?? undefined,
    })
    const rampId = typeof res?.Transaction?.ID === 'string' ? res.Transaction.ID : null
    await deps.database.write(async (w) => {
      const row = await repo.findPayoutById(w, tenantId, env, p.id)
      // the partner's first event may have arrived and named it already
      if (row && !row.rampTransactionId && rampId) await repo.updatePayout(w, tenantId, p.id, { rampTransactionId: rampId, updatedAt: deps.clock.now() })
    })
  } catch (err) {
    if (retryable(err)) {
      if (attempt < SELL_OVERDUE_AFTER) deps.logger.warn('bank ramp sell not taken; trying again', { payoutId: p.id, attempt, ...errorSummary(err) })
      else {
        deps.metrics.rampSellOverdue(env)
        deps.logger.error(
          'bank ramp sell overdue: the payout\'s crypto is at the partner\'s deposit address and the partner has not taken the sell; asking again every 10 minutes',
          { payoutId: p.id, tenantId, attempt, ...errorSummary(err) },
        )
      }
      return again(Math.min(1000 * 2 ** attempt, 600_000))
    }
    const why = err instanceof AppError ? err.message : 'no answer'
    return failPayout(deps, tenantId, env, p.id, `The bank ramp did not take the sell: ${why}`)
  }
}

/** The caller's payout as it is now, for a retry of the request that made it (bound Idempotency-Key); null when gone. */
export async function currentPayoutRow(ctx: Ctx, id: string) {
  const tenantId = ctx.actor.tenantId
  return (tenantId ? await repo.payoutForFeed(ctx.deps.database.db, tenantId, ctx.actor.userId, id) : undefined) ?? null
}
export async function currentPayout(ctx: Ctx, id: string) {
  const p = await currentPayoutRow(ctx, id)
  return p ? payoutView(p) : null
}
