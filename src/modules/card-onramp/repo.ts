/** The only file that reads or writes `card_onramp_sessions`; the tenant on every query. */
import { and, count, desc, eq, isNotNull, type SQL } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { cardOnrampSessions, type CardSessionRow } from './schema'

export type { CardSessionRow }

export async function insertSession(db: Executor, row: CardSessionRow) {
  await db.insert(cardOnrampSessions).values(row)
}

export function findSession(db: Executor, tenantId: string, id: string) {
  return db.select().from(cardOnrampSessions).where(and(eq(cardOnrampSessions.tenantId, tenantId), eq(cardOnrampSessions.id, id))).get()
}

export function findByProviderId(db: Executor, tenantId: string, environment: 'sandbox' | 'production', providerSessionId: string) {
  return db.select().from(cardOnrampSessions).where(and(
    eq(cardOnrampSessions.tenantId, tenantId), eq(cardOnrampSessions.environment, environment), eq(cardOnrampSessions.providerSessionId, providerSessionId),
  )).get()
}

/** Applies `set` while the session is still as read (same status and last event): false when another event came first. */
export async function updateSession(db: Executor, row: CardSessionRow, set: Partial<CardSessionRow>) {
  const sameEvent = row.providerEventId === null ? undefined : eq(cardOnrampSessions.providerEventId, row.providerEventId)
  const r = await db.update(cardOnrampSessions).set(set)
    .where(and(eq(cardOnrampSessions.tenantId, row.tenantId), eq(cardOnrampSessions.id, row.id), eq(cardOnrampSessions.status, row.status), sameEvent))
    .returning({ id: cardOnrampSessions.id })
  return r.length === 1
}

/** A page of sessions, newest first: a user's own (`userId`), or the tenant's own-wallet sessions (`userId` null), optionally of one end user. */
export async function listSessions(db: Executor, tenantId: string, who: { userId: string } | { externalId?: string }, limit: number, offset: number) {
  const filters: SQL[] = [eq(cardOnrampSessions.tenantId, tenantId)]
  if ('userId' in who) filters.push(eq(cardOnrampSessions.userId, who.userId))
  else {
    filters.push(isNotNull(cardOnrampSessions.externalId))
    if (who.externalId !== undefined) filters.push(eq(cardOnrampSessions.externalId, who.externalId))
  }
  const where = and(...filters)
  const [rows, total] = await Promise.all([
    db.select().from(cardOnrampSessions).where(where).orderBy(desc(cardOnrampSessions.createdAt), desc(cardOnrampSessions.id)).limit(limit).offset(offset).all(),
    db.select({ n: count() }).from(cardOnrampSessions).where(where).get(),
  ])
  return { rows, total: total?.n ?? 0 }
}
