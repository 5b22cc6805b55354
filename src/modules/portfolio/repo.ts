/**
 * The only file that reads or writes the portfolio tables. Snapshots and days take the tenant
 * first, and every query filters by it. Prices are market data shared by every tenant (no
 * tenant column, nothing of a tenant's in them), so their two functions take none.
 */
import { and, asc, desc, eq, gt, inArray, lt, lte, max } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { portfolioDays, portfolioPrices, portfolioSnapshots, type DayRow, type PriceRow, type SnapshotRow } from './schema'

export type { DayRow, PriceRow, SnapshotRow }

/** A user's record of one day: its snapshot rows replace any recorded earlier that day, with the day's totals, in the caller's transaction. */
export async function replaceUserDay(tx: Executor, tenantId: string, userId: string, day: DayRow, rows: SnapshotRow[]) {
  if (day.tenantId !== tenantId || day.userId !== userId || rows.some((r) => r.tenantId !== tenantId || r.userId !== userId || r.day !== day.day)) {
    throw new Error('a day is recorded for one tenant, user and day')
  }
  await tx.delete(portfolioSnapshots).where(and(eq(portfolioSnapshots.tenantId, tenantId), eq(portfolioSnapshots.userId, userId), eq(portfolioSnapshots.day, day.day)))
  // 500 rows per statement stays under SQLite's bound-parameter limit (16 columns each)
  for (let i = 0; i < rows.length; i += 500) await tx.insert(portfolioSnapshots).values(rows.slice(i, i + 500))
  await tx.insert(portfolioDays).values(day).onConflictDoUpdate({
    target: [portfolioDays.tenantId, portfolioDays.userId, portfolioDays.day],
    set: { recordedAt: day.recordedAt, totalEur: day.totalEur, totalUsd: day.totalUsd, unpriced: day.unpriced, unreadWallets: day.unreadWallets },
  })
}

/** The rows of a wallet's latest recorded day before `beforeDay` (`YYYY-MM-DD`), or none. */
export async function lastWalletHoldings(db: Executor, tenantId: string, userId: string, walletId: string, beforeDay: string): Promise<SnapshotRow[]> {
  const own = and(eq(portfolioSnapshots.tenantId, tenantId), eq(portfolioSnapshots.userId, userId), eq(portfolioSnapshots.walletId, walletId))
  const latest = await db.select({ day: max(portfolioSnapshots.day) }).from(portfolioSnapshots).where(and(own, lt(portfolioSnapshots.day, beforeDay))).get()
  if (!latest?.day) return []
  return db.select().from(portfolioSnapshots).where(and(own, eq(portfolioSnapshots.day, latest.day))).orderBy(asc(portfolioSnapshots.token)).all()
}

/** A user's days recorded after `after` up to `until` (Unix ms), oldest first. */
export function daysBetween(db: Executor, tenantId: string, userId: string, after: number, until: number) {
  return db.select().from(portfolioDays)
    .where(and(eq(portfolioDays.tenantId, tenantId), eq(portfolioDays.userId, userId), gt(portfolioDays.recordedAt, after), lte(portfolioDays.recordedAt, until)))
    .orderBy(asc(portfolioDays.recordedAt)).all()
}

/** A user's last day recorded at or before `at` (Unix ms): the value a period's change is measured from. */
export function dayAtOrBefore(db: Executor, tenantId: string, userId: string, at: number) {
  return db.select().from(portfolioDays)
    .where(and(eq(portfolioDays.tenantId, tenantId), eq(portfolioDays.userId, userId), lte(portfolioDays.recordedAt, at)))
    .orderBy(desc(portfolioDays.recordedAt)).limit(1).get()
}

/** Drops a tenant's records of days before `beforeDay`. */
export async function pruneBefore(tx: Executor, tenantId: string, beforeDay: string) {
  await tx.delete(portfolioSnapshots).where(and(eq(portfolioSnapshots.tenantId, tenantId), lt(portfolioSnapshots.day, beforeDay)))
  await tx.delete(portfolioDays).where(and(eq(portfolioDays.tenantId, tenantId), lt(portfolioDays.day, beforeDay)))
}

/** The last prices obtained of these coins (market data: no tenant). */
export function storedPrices(db: Executor, coinIds: readonly string[]): Promise<PriceRow[]> {
  return db.select().from(portfolioPrices).where(inArray(portfolioPrices.coinId, [...coinIds])).all()
}

/** Keeps the prices just obtained; a price older than the one stored does not replace it. */
export async function savePrices(tx: Executor, rows: PriceRow[]) {
  for (const r of rows) {
    await tx.insert(portfolioPrices).values(r).onConflictDoUpdate({
      target: portfolioPrices.coinId,
      set: { eur: r.eur, usd: r.usd, asOf: r.asOf, fetchedAt: r.fetchedAt },
      setWhere: lte(portfolioPrices.asOf, r.asOf),
    })
  }
}
