/**
 * The daily record of every tenant user's wallets (docs/portfolio.md, "Daily snapshots").
 *
 * - `portfolio.snapshot.daily` runs at 00:00 UTC (and when a worker starts on a day not yet
 *   recorded): it refreshes the prices once, schedules one `portfolio.snapshot.tenant` job per
 *   active tenant, and the next daily run. Job ids carry the day, so several workers or a retry
 *   never record a day twice over, and a day missed while no worker ran stays missing (past
 *   balances cannot be read back).
 * - `portfolio.snapshot.tenant` reads the balances of each user's mainnet wallets through the
 *   wallets module (testnet coins have no value) and writes, per user in one transaction, a
 *   snapshot row per token held (integer-string amount, the price at recording time) and the
 *   day's totals. A wallet whose network cannot be read is carried: its last recorded balances,
 *   flagged `carried`, at today's prices, so a day does not dip because an RPC was down. A
 *   retry records the day again in place. Records older than RETENTION_DAYS go.
 */
import type { Deps } from '../../deps'
import { AppError } from '../../lib/errors'
import { scheduleJob } from '../../jobs/outbox'
import { listTenants, findTenant, settingsOf } from '../tenants'
import type { StoredSettings } from '../tenants'
import { findUser as findUser } from '../users'
import { BalanceCache, wallets as walletVerbs, listUserWallets, ownersWithWallets } from '../wallets'
import { holdingsOf, holdingsOfSnapshot, type Holding } from './holdings'
import { currentPrices, type Price } from './prices'
import * as repo from './repo'
import { dailyJob, DAY_MS, dayOf, nextMidnight, tenantJob } from './topics'
import { centsText, toCents, valueOf } from './values'
import { newId } from '../../lib/ids'

/** how long records are kept: the longest period (1y) and a margin */
export const RETENTION_DAYS = 400
const PAGE = 100
/** users recorded at once within a tenant: their wallets' networks are read in parallel */
const USERS_AT_ONCE = 4

/** Schedules today's daily run, unless it was scheduled already (a worker's start). */
export async function runDailyRun(deps: Deps) {
  const now = deps.clock.now()
  const day = dayOf(now)
  // once for every tenant; a provider that is down leaves the stored prices, which the tenants' jobs use
  await currentPrices(deps)
  const tenantIds: string[] = []
  for (let offset = 0; ; offset += PAGE) {
    const { rows } = await listTenants(deps.database.db, null, PAGE, offset)
    tenantIds.push(...rows.filter((r) => r.status === 'active').map((r) => r.id))
    if (rows.length < PAGE) break
  }
  const next = nextMidnight(now)
  await deps.database.write(async (tx) => {
    for (const id of new Set(tenantIds)) await scheduleJob(tx, tenantJob(id, day, now), now)
    await scheduleJob(tx, dailyJob(dayOf(next), next), now)
  })
  deps.logger.info('portfolio: daily snapshots scheduled', { day, tenants: tenantIds.length })
}

/** Records `tenantId`'s users for today (the day of the clock when it runs). */
export async function recordTenantDay(deps: Deps, tenantId: string) {
  const tenant = await findTenant(deps.database.db, tenantId)
  if (!tenant || tenant.status !== 'active') return
  const settings = settingsOf({ deps }, tenant)
  const now = deps.clock.now()
  const day = dayOf(now)
  const prices = await currentPrices(deps)
  const cache = new BalanceCache(deps.clock)
  for (let after = ''; ;) {
    const owners = await ownersWithWallets(deps.database.db, tenantId, false, after, PAGE)
    for (let i = 0; i < owners.length; i += USERS_AT_ONCE) {
      await Promise.all(owners.slice(i, i + USERS_AT_ONCE).map((userId) => recordUserDay(deps, cache, tenantId, settings, userId, day, now, prices)))
    }
    if (owners.length < PAGE) break
    after = owners.at(-1)!
  }
  await deps.database.write((tx) => repo.pruneBefore(tx, tenantId, dayOf(now - RETENTION_DAYS * DAY_MS)))
}

/** One user's day: live balances (or the last recorded ones of a wallet that cannot be read), valued at `prices`. */
export async function recordUserDay(deps: Deps, cache: BalanceCache, tenantId: string, settings: StoredSettings, userId: string, day: string, now: number, prices: ReadonlyMap<string, Price>) {
  const db = deps.database.db
  const user = await findUser(db, tenantId, userId)
  if (!user || user.status !== 'active') return
  const { rows: wallets } = await listUserWallets(db, tenantId, userId, { isTestnet: false })
  const reads = await Promise.allSettled(wallets.map((w) => walletVerbs.readWallet(deps, cache, settings, w)))
  const held: Array<{ h: Holding; carried: boolean }> = []
  let unreadWallets = 0
  for (const [i, r] of reads.entries()) {
    if (r.status === 'fulfilled') {
      for (const h of holdingsOf(r.value)) held.push({ h, carried: false })
      continue
    }
    if (!(r.reason instanceof AppError)) throw r.reason
    unreadWallets++
    const last = await repo.lastWalletHoldings(db, tenantId, userId, wallets[i]!.id, day)
    for (const h of holdingsOfSnapshot(last)) held.push({ h, carried: true })
  }
  let eur = 0n
  let usd = 0n
  let unpriced = 0
  const rows: repo.SnapshotRow[] = held.map(({ h, carried }) => {
    const p = h.coinId ? prices.get(h.coinId) : undefined
    if (p) {
      eur += valueOf(h.amount, h.decimals, p.eur)
      usd += valueOf(h.amount, h.decimals, p.usd)
    } else if (h.amount > 0n) unpriced++
    return {
      id: newId(), tenantId, userId, walletId: h.walletId, day, recordedAt: now, chain: h.chain, token: h.token, symbol: h.symbol, decimals: h.decimals,
      amount: h.amount.toString(), coinId: h.coinId, priceEur: p?.eur ?? null, priceUsd: p?.usd ?? null, priceAsOf: p?.asOf ?? null, carried,
    }
  })
  const dayRow: repo.DayRow = { tenantId, userId, day, recordedAt: now, totalEur: centsText(toCents(eur)), totalUsd: centsText(toCents(usd)), unpriced, unreadWallets }
  await deps.database.write((tx) => repo.replaceUserDay(tx, tenantId, userId, dayRow, rows))
}
