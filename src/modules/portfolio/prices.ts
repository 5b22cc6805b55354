/**
 * The prices portfolio values are computed with: the provider's (src/adapters/prices), kept.
 *
 * - Every coin Slipway prices (coins.ts) is asked in one call, at most once per
 *   PRICE_REFRESH_MS across every process sharing the database: the last answer is stored in
 *   `portfolio_prices` with when it was obtained, and a fresh enough store answers by itself.
 * - When the provider fails (down, slow past PRICES_TIMEOUT_MS, refusing, talking nonsense), the
 *   stored prices answer: the last known price of each coin, with its time, so the route can say
 *   how old it is. Never an error for the caller. For PROVIDER_RETRY_MS after a failure this
 *   process does not ask again, so a provider that is down costs one time limit, not one per
 *   request.
 * - One call at a time per process: concurrent requests share the call in flight.
 * A coin the provider never priced has no price: its holdings are listed as unpriced.
 */
import type { Deps } from '../../deps'
import { PriceProviderError } from '../../adapters/prices/port'
import { PRICED_COINS } from './coins'
import * as repo from './repo'

/** how long an obtained price is used before the provider is asked again */
export const PRICE_REFRESH_MS = 60_000
/** after a failed call, how long this process answers from the stored prices without asking */
export const PROVIDER_RETRY_MS = 30_000
/** an answer whose oldest price is older than this says `stale: true` */
export const PRICE_STALE_MS = 15 * 60_000

export interface Price {
  eur: string
  usd: string
  /** when the price was current (Unix ms) */
  asOf: number
}

interface ProviderState {
  retryAt: number
  inFlight?: Promise<repo.PriceRow[]>
}
/** per app (tests run several in one process) */
const states = new WeakMap<Deps, ProviderState>()

/** The price of every coin Slipway prices that has one: fresh from the provider, or the last one stored. */
export async function currentPrices(deps: Deps): Promise<Map<string, Price>> {
  const now = deps.clock.now()
  const stored = await repo.storedPrices(deps.database.db, PRICED_COINS)
  const byId = new Map<string, Price>(stored.map((r) => [r.coinId, { eur: r.eur, usd: r.usd, asOf: r.asOf }]))
  const lastFetch = stored.reduce((m, r) => Math.max(m, r.fetchedAt), -Infinity)
  if (now - lastFetch < PRICE_REFRESH_MS && now >= lastFetch) return byId
  let state = states.get(deps)
  if (!state) states.set(deps, (state = { retryAt: -Infinity }))
  if (now < state.retryAt) return byId
  const s = state
  s.inFlight ??= refresh(deps).finally(() => { s.inFlight = undefined })
  try {
    for (const r of await s.inFlight) {
      const had = byId.get(r.coinId)
      if (!had || had.asOf <= r.asOf) byId.set(r.coinId, { eur: r.eur, usd: r.usd, asOf: r.asOf })
    }
  } catch (err) {
    if (!(err instanceof PriceProviderError)) throw err
    s.retryAt = now + PROVIDER_RETRY_MS
    // the adapter's messages never carry the API key
    deps.logger.warn('price provider unavailable: the last stored prices answer', { error: err.message, retryInMs: PROVIDER_RETRY_MS })
  }
  return byId
}

async function refresh(deps: Deps): Promise<repo.PriceRow[]> {
  const now = deps.clock.now()
  const got = await deps.prices.simplePrice(deps.pricesEndpoint(), [...PRICED_COINS], now)
  if (!got.size) throw new PriceProviderError('The price provider priced none of the coins asked')
  const rows = [...got].map(([coinId, p]) => ({ coinId, eur: p.eur, usd: p.usd, asOf: p.asOf, fetchedAt: now }))
  await deps.database.write((tx) => repo.savePrices(tx, rows))
  return rows
}
