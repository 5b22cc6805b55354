/** The only file that reads or writes `swap_quotes`; tenant first. */
import { and, eq, lt } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { swapQuotes, type SwapQuoteRow } from './schema'

export type { SwapQuoteRow }

/**
 * Stores a quote; the same aggregator id answered again to the same user replaces the earlier one. Expired quotes go
 * (anyone's: by the expiry index, so the delete reads only expired rows; by tenant and user it read every quote the
 * user was answered in the last 10 minutes, and a user quoting 200 times a second slowed down as they piled up).
 */
export async function saveQuote(db: Executor, row: SwapQuoteRow, now: number) {
  await db.delete(swapQuotes).where(lt(swapQuotes.expiresAt, now))
  await db.insert(swapQuotes).values(row).onConflictDoUpdate({ target: [swapQuotes.tenantId, swapQuotes.userId, swapQuotes.id], set: { ...row } })
}

export function findUserQuote(db: Executor, tenantId: string, userId: string, id: string) {
  return db.select().from(swapQuotes).where(and(eq(swapQuotes.tenantId, tenantId), eq(swapQuotes.userId, userId), eq(swapQuotes.id, id))).get()
}
