/**
 * `GET /v1/portfolio/performance` (docs/portfolio.md): the value of the caller's mainnet
 * wallets now and over a period.
 *
 * - Now: each wallet's balances read from its network through the wallets module (the app's
 *   15-second balance cache), at the current prices (prices.ts). A wallet whose network cannot
 *   be read counts with its last recorded balances (`wallets.fromSnapshot`), or not at all when
 *   none were recorded (`wallets.unavailable`); the answer is still a 200, marked `stale`.
 * - Before: the daily snapshots (snapshots.ts), each valued at the prices of its day.
 * - The change is measured from the last snapshot at or before the period's start; with a
 *   shorter history, from its first snapshot (`historyComplete: false`).
 * The spec fixes `totalEur`, `totalUsd` and `changeEur` as JSON numbers: they are computed
 * exactly and rounded to the cent as text first, then written as numbers. The points' money is
 * decimal text, like every other amount Slipway answers.
 */
import type { Ctx } from '../../context'
import { AppError } from '../../lib/errors'
import { iso } from '../../lib/clock'
import { tenantOf } from '../tenants'
import type { BalanceCache } from '../wallets'
import { wallets as walletVerbs, listUserWallets } from '../wallets'
import { holdingsOf, holdingsOfSnapshot, valueHoldings, type Holding } from './holdings'
import { DEFAULT_PERIOD, type Performance, type PerformanceQuery, type Period } from './model'
import { currentPrices, PRICE_STALE_MS } from './prices'
import * as repo from './repo'
import { DAY_MS } from './topics'
import { centsNumber, centsOf, centsText, percentOf, plainCents, toCents } from './values'

export const PERIOD_MS: Record<Period, number> = { '24h': DAY_MS, '7d': 7 * DAY_MS, '30d': 30 * DAY_MS, '90d': 90 * DAY_MS, '1y': 365 * DAY_MS }

/** a day after every recorded one: a wallet's last snapshot of any day */
const AFTER_ALL_DAYS = '9999-12-31'

export async function performance(ctx: Ctx, query: PerformanceQuery, cache: BalanceCache): Promise<Performance> {
  const { deps } = ctx
  const tenant = tenantOf(ctx)
  const userId = ctx.actor.userId
  const db = deps.database.db
  const now = deps.clock.now()
  const period = query.period ?? DEFAULT_PERIOD
  const from = now - PERIOD_MS[period]

  const [{ rows: wallets }, prices, baseline, days] = await Promise.all([
    listUserWallets(db, tenant.id, userId, { isTestnet: false }),
    currentPrices(deps),
    repo.dayAtOrBefore(db, tenant.id, userId, from),
    repo.daysBetween(db, tenant.id, userId, from, now),
  ])

  const reads = await Promise.allSettled(wallets.map((w) => walletVerbs.readWallet(deps, cache, tenant.settings, w)))
  const holdings: Holding[] = []
  const counts = { readNow: 0, fromSnapshot: 0, unavailable: 0 }
  const readAt: number[] = []
  for (const [i, r] of reads.entries()) {
    if (r.status === 'fulfilled') {
      counts.readNow++
      readAt.push(Date.parse(r.value.lastUpdated))
      holdings.push(...holdingsOf(r.value))
      continue
    }
    if (!(r.reason instanceof AppError)) throw r.reason
    const last = await repo.lastWalletHoldings(db, tenant.id, userId, wallets[i]!.id, AFTER_ALL_DAYS)
    if (!last.length) {
      counts.unavailable++
      continue
    }
    counts.fromSnapshot++
    readAt.push(last[0]!.recordedAt)
    holdings.push(...holdingsOfSnapshot(last))
  }

  const value = valueHoldings(holdings, prices)
  const eur = toCents(value.eur)
  const usd = toCents(value.usd)
  const history = [...(baseline ? [baseline] : []), ...days]
  const start = history[0]
  const change = start ? eur - centsOf(start.totalEur) : 0n
  const priceAge = value.oldestPriceAt === null ? null : Math.max(0, Math.floor((now - value.oldestPriceAt) / 1000))
  const unpriced = new Map(value.unpriced.map((h) => [`${h.chain}|${h.token}`, { chain: h.chain, token: h.token, symbol: h.symbol }]))

  return {
    period,
    from: iso(from),
    to: iso(now),
    totalEur: centsNumber(eur),
    totalUsd: centsNumber(usd),
    changeEur: centsNumber(change),
    changePercent: start ? percentOf(change, centsOf(start.totalEur)) : null,
    baselineAt: start ? iso(start.recordedAt) : null,
    historyComplete: !!baseline,
    points: [
      ...history.map((d) => ({ at: iso(d.recordedAt), totalEur: plainCents(d.totalEur), totalUsd: plainCents(d.totalUsd) })),
      { at: iso(now), totalEur: plainCents(centsText(eur)), totalUsd: plainCents(centsText(usd)) },
    ],
    prices: { asOf: value.oldestPriceAt === null ? null : iso(value.oldestPriceAt), ageSeconds: priceAge },
    wallets: { count: wallets.length, ...counts, balancesAsOf: readAt.length ? iso(Math.min(...readAt)) : null },
    // a coin Slipway prices but has no price for (the provider never answered for it) leaves the value short too
    stale: (priceAge !== null && priceAge * 1000 > PRICE_STALE_MS) || counts.fromSnapshot > 0 || counts.unavailable > 0 || value.unpriced.some((h) => h.coinId !== null),
    unpriced: [...unpriced.values()],
  }
}
