/** The only file that reads or writes `swap_quotes`; tenant first. */
import { and, eq, lt } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { swapQuotes, type SwapQuoteRow } from './schema'

export type { SwapQuoteRow }

/** Stores a quote; the same aggregator id answered again to the same user replaces the earlier one. */
export async function saveQuote(db: Executor, row: SwapQuoteRow) {
  await db.insert(swapQuotes).values(row).onConflictDoUpdate({ target: [swapQuotes.tenantId, swapQuotes.userId, swapQuotes.id], set: { ...row } })
}

/**
 * Housekeeping, not a read: forgets every tenant's quotes that expired before `now`, by the
 * expiry index (only expired rows are read). Reads answer an expired quote as expired
 * whether or not it is still stored (`findUserQuote` callers compare `expiresAt`).
 */
export async function deleteExpiredQuotes(db: Executor, now: number) {
  await db.delete(swapQuotes).where(lt(swapQuotes.expiresAt, now))
}

export function findUserQuote(db: Executor, tenantId: string, userId: string, id: string) {
  return db.select().from(swapQuotes).where(and(eq(swapQuotes.tenantId, tenantId), eq(swapQuotes.userId, userId), eq(swapQuotes.id, id))).get()
}
