/** The only file that reads or writes `lending_rate_samples` and `lending_rate_follows`; tenant first. */
import { and, asc, desc, eq, gte, lte } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { lendingRateFollows, lendingRateSamples, type LendingRateFollowRow, type LendingRateSampleRow } from './schema'

export type { LendingRateFollowRow, LendingRateSampleRow }

/** Keeps the first sample of its slot: a second read in the same slot changes nothing. */
export async function insertRateSample(db: Executor, row: LendingRateSampleRow) {
  await db.insert(lendingRateSamples).values(row).onConflictDoNothing()
}

/** Samples of one reserve between `from` and `to` (Unix ms, inclusive): the newest `limit`, answered oldest first. */
export async function listRateSamples(db: Executor, tenantId: string, network: string, asset: string, range: { from?: number; to?: number }, limit: number) {
  const where = [eq(lendingRateSamples.tenantId, tenantId), eq(lendingRateSamples.network, network), eq(lendingRateSamples.asset, asset)]
  if (range.from !== undefined) where.push(gte(lendingRateSamples.sampledAt, range.from))
  if (range.to !== undefined) where.push(lte(lendingRateSamples.sampledAt, range.to))
  const rows = await db.select().from(lendingRateSamples).where(and(...where)).orderBy(desc(lendingRateSamples.slot)).limit(limit).all()
  return rows.reverse()
}

/** Marks the reserve as read now (the sampling job follows it while it is read). */
export async function touchFollow(db: Executor, row: LendingRateFollowRow) {
  await db.insert(lendingRateFollows).values(row).onConflictDoUpdate({
    target: [lendingRateFollows.tenantId, lendingRateFollows.network, lendingRateFollows.asset],
    set: { pool: row.pool, lastReadAt: row.lastReadAt },
  })
}

export function findFollow(db: Executor, tenantId: string, network: string, asset: string) {
  return db.select().from(lendingRateFollows)
    .where(and(eq(lendingRateFollows.tenantId, tenantId), eq(lendingRateFollows.network, network), eq(lendingRateFollows.asset, asset)))
    .orderBy(asc(lendingRateFollows.lastReadAt)).get()
}
