/**
 * The only file that reads or writes `swap_quotes` and `swap_relays`; tenant first, with one
 * deliberate exception: `livePermitClaim` looks for a live claim of one permit (network, token,
 * owner, nonce) whichever tenant holds it, because one address may be a client wallet of users
 * of two tenants, and its permit nonce can be used on chain only once. Its answer never leaves
 * the module (gasless-claims.ts answers a 409 that names nothing of the other tenant).
 */
import { and, eq, gte, inArray, lt, ne, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { swapQuotes, swapRelays, type SwapQuoteRow, type SwapRelayRow } from './schema'

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

export type { SwapRelayRow }
type Status = SwapRelayRow['status']

// `status in ('claimed', 'sent')` written as the partial indexes' own literal, so SQLite uses them
const live = sql`${swapRelays.status} in ('claimed', 'sent')`

export function liveQuoteClaim(db: Executor, tenantId: string, userId: string, quoteId: string) {
  return db.select().from(swapRelays).where(and(eq(swapRelays.tenantId, tenantId), eq(swapRelays.userId, userId), eq(swapRelays.quoteId, quoteId), live)).get()
}

/** Every tenant's: see the file's comment. */
export function livePermitClaim(db: Executor, permit: { network: string; token: string; owner: string; permitNonce: string }) {
  return db.select().from(swapRelays).where(and(
    eq(swapRelays.network, permit.network), eq(swapRelays.token, permit.token), eq(swapRelays.owner, permit.owner), eq(swapRelays.permitNonce, permit.permitNonce), live,
  )).get()
}

export async function insertClaim(db: Executor, row: SwapRelayRow) {
  await db.insert(swapRelays).values(row)
}

/** Moves one claim of the tenant's from one of `from` to `to`; whether it did. */
export async function moveClaim(db: Executor, tenantId: string, id: string, from: Status[], to: Status, now: number, transactionId?: string) {
  const rows = await db.update(swapRelays)
    .set({ status: to, updatedAt: now, ...(transactionId ? { transactionId } : {}) })
    .where(and(eq(swapRelays.tenantId, tenantId), eq(swapRelays.id, id), inArray(swapRelays.status, from)))
    .returning({ id: swapRelays.id })
  return rows.length > 0
}

export function findClaim(db: Executor, tenantId: string, id: string) {
  return db.select().from(swapRelays).where(and(eq(swapRelays.tenantId, tenantId), eq(swapRelays.id, id))).get()
}

/**
 * What the relayer may have spent for the tenant (or one of its users) since `since`: the gas
 * costs of the claims not released (in flight, sent, or sent and failed), summed exactly.
 */
export async function spentSince(db: Executor, tenantId: string, userId: string | null, since: number): Promise<bigint> {
  const rows = await db.select({ gasCost: swapRelays.gasCost }).from(swapRelays).where(and(
    eq(swapRelays.tenantId, tenantId), userId ? eq(swapRelays.userId, userId) : undefined, gte(swapRelays.createdAt, since), ne(swapRelays.status, 'released'),
  ))
  return rows.reduce((sum, r) => sum + BigInt(r.gasCost), 0n)
}
