/** The only file that reads or writes the MPC tables; every query names the tenant. */
import { and, asc, count, desc, eq, gt, inArray, lt, max, ne, or, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { sealedTextColumn, type SealedColumn } from '../../db/sealed-columns'
import { mpcMessages, mpcResults, mpcServiceShares, mpcSessionParties, mpcSessions, type MpcMessageRow, type MpcResultRow, type MpcServiceShareRow, type MpcSessionRow } from './schema'

export type { MpcMessageRow, MpcResultRow, MpcServiceShareRow, MpcSessionRow }

export const BROADCAST = -1

export async function insertSession(db: Executor, row: MpcSessionRow) {
  await db.insert(mpcSessions).values(row)
}

export function findSession(db: Executor, tenantId: string, id: string) {
  return db.select().from(mpcSessions).where(and(eq(mpcSessions.tenantId, tenantId), eq(mpcSessions.id, id))).get()
}

/** Applies `set` while the session is still `status` (default open); false when it is not. */
export async function updateSession(db: Executor, tenantId: string, id: string, set: Partial<MpcSessionRow>, status: MpcSessionRow['status'] = 'open') {
  const r = await db.update(mpcSessions).set(set).where(and(eq(mpcSessions.tenantId, tenantId), eq(mpcSessions.id, id), eq(mpcSessions.status, status))).returning({ id: mpcSessions.id })
  return r.length === 1
}

/** Marks a DKG session's wallet registered, once. */
export async function markRegistered(db: Executor, tenantId: string, id: string, walletId: string, now: number) {
  const r = await db.update(mpcSessions).set({ registeredWalletId: walletId, updatedAt: now })
    .where(and(eq(mpcSessions.tenantId, tenantId), eq(mpcSessions.id, id), sql`${mpcSessions.registeredWalletId} is null`)).returning({ id: mpcSessions.id })
  return r.length === 1
}

export async function joinParty(db: Executor, tenantId: string, sessionId: string, partyId: number, now: number) {
  await db.insert(mpcSessionParties).values({ sessionId, partyId, tenantId, joinedAt: now }).onConflictDoNothing()
}

export function listParties(db: Executor, tenantId: string, sessionId: string) {
  return db.select().from(mpcSessionParties).where(and(eq(mpcSessionParties.tenantId, tenantId), eq(mpcSessionParties.sessionId, sessionId))).orderBy(asc(mpcSessionParties.partyId)).all()
}

export async function insertMessage(db: Executor, row: Omit<MpcMessageRow, 'seq'>): Promise<number> {
  const r = await db.insert(mpcMessages).values(row).returning({ seq: mpcMessages.seq })
  return r[0]!.seq
}

/** What the session holds so far: its message count, and the highest round `fromParty` sent in. */
export async function messageState(db: Executor, tenantId: string, sessionId: string, fromParty: number) {
  const total = await db.select({ n: count() }).from(mpcMessages).where(and(eq(mpcMessages.tenantId, tenantId), eq(mpcMessages.sessionId, sessionId))).get()
  const mine = await db.select({ round: max(mpcMessages.round) }).from(mpcMessages)
    .where(and(eq(mpcMessages.tenantId, tenantId), eq(mpcMessages.sessionId, sessionId), eq(mpcMessages.fromParty, fromParty))).get()
  return { count: total?.n ?? 0, lastRound: mine?.round ?? 0 }
}

/** Messages for `partyId` (addressed to it, or broadcast by another party) after `afterSeq`, in order. */
export function inbox(db: Executor, tenantId: string, sessionId: string, partyId: number, afterSeq: number, round: number | undefined, limit: number) {
  return db.select().from(mpcMessages).where(and(
    eq(mpcMessages.tenantId, tenantId), eq(mpcMessages.sessionId, sessionId), gt(mpcMessages.seq, afterSeq),
    ne(mpcMessages.fromParty, partyId),
    or(eq(mpcMessages.toParty, partyId), eq(mpcMessages.toParty, BROADCAST)),
    round === undefined ? undefined : eq(mpcMessages.round, round),
  )).orderBy(asc(mpcMessages.seq)).limit(limit).all()
}

export async function insertResult(db: Executor, row: MpcResultRow) {
  const r = await db.insert(mpcResults).values(row).onConflictDoNothing().returning({ partyId: mpcResults.partyId })
  return r.length === 1
}

export function listResults(db: Executor, tenantId: string, sessionId: string) {
  return db.select().from(mpcResults).where(and(eq(mpcResults.tenantId, tenantId), eq(mpcResults.sessionId, sessionId))).orderBy(asc(mpcResults.partyId)).all()
}

export async function insertShare(db: Executor, row: MpcServiceShareRow) {
  await db.insert(mpcServiceShares).values(row)
}

export function findShareOfSession(db: Executor, tenantId: string, sessionId: string) {
  return db.select().from(mpcServiceShares).where(and(eq(mpcServiceShares.tenantId, tenantId), eq(mpcServiceShares.sessionId, sessionId))).get()
}

export function findShareOfWallet(db: Executor, tenantId: string, walletId: string) {
  return db.select().from(mpcServiceShares).where(and(eq(mpcServiceShares.tenantId, tenantId), eq(mpcServiceShares.walletId, walletId))).get()
}

export async function bindShare(db: Executor, tenantId: string, sessionId: string, walletId: string) {
  await db.update(mpcServiceShares).set({ walletId }).where(and(eq(mpcServiceShares.tenantId, tenantId), eq(mpcServiceShares.sessionId, sessionId)))
}

/** The registered MPC wallets of a tenant with their DKG sessions, newest first (the operators' list). */
export function listTenantShares(db: Executor, tenantId: string, limit: number, offset: number) {
  return db.select({
    sessionId: mpcServiceShares.sessionId,
    walletId: mpcServiceShares.walletId,
    userId: mpcServiceShares.userId,
    publicKey: mpcServiceShares.publicKey,
    createdAt: mpcServiceShares.createdAt,
  })
    .from(mpcServiceShares).where(and(eq(mpcServiceShares.tenantId, tenantId), sql`${mpcServiceShares.walletId} is not null`))
    .orderBy(desc(mpcServiceShares.createdAt)).limit(limit).offset(offset).all()
}

export async function countTenantShares(db: Executor, tenantId: string) {
  const r = await db.select({ n: count() }).from(mpcServiceShares).where(and(eq(mpcServiceShares.tenantId, tenantId), sql`${mpcServiceShares.walletId} is not null`)).get()
  return r?.n ?? 0
}

/**
 * Housekeeping, not a read: the protocol messages of every tenant's sessions that expired
 * before `now` (the sessions themselves stay, as the record of what happened), and
 * service shares of DKG sessions never registered.
 */
export async function deleteExpiredMessages(db: Executor, now: number) {
  const expired = db.select({ id: mpcSessions.id }).from(mpcSessions).where(lt(mpcSessions.expiresAt, now))
  await db.delete(mpcMessages).where(inArray(mpcMessages.sessionId, expired))
  const unregistered = db.select({ id: mpcSessions.id }).from(mpcSessions).where(and(lt(mpcSessions.expiresAt, now), eq(mpcSessions.kind, 'dkg'), sql`${mpcSessions.registeredWalletId} is null`))
  await db.delete(mpcServiceShares).where(and(inArray(mpcServiceShares.sessionId, unregistered), sql`${mpcServiceShares.walletId} is null`))
}

/** `slipway reseal`: the service parties' sealed shares. */
export function shareColumn(o: { aad(row: { id: string; tenantId: string }): string }): SealedColumn {
  return sealedTextColumn({
    name: 'mpc_service_shares.share_sealed',
    table: mpcServiceShares,
    id: mpcServiceShares.sessionId,
    value: mpcServiceShares.shareSealed,
    tenantId: mpcServiceShares.tenantId,
    aad: (r) => o.aad({ id: r.id, tenantId: r.tenantId! }),
  })
}
