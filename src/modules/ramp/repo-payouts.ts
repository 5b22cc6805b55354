/**
 * The bank ramp's payout side: quotes and payouts, the address challenges and the proven
 * addresses a payout pays from. Part of the module's repo (repo.ts hands it on). Tenant id
 * first after the executor, always in the filter.
 */
import { and, count, desc, eq, inArray, isNotNull, isNull, lt, or } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { rampAddressChallenges, rampPayouts, rampPayoutQuotes, rampProvenAddresses, type RampEnv } from './schema'

export type QuoteRow = typeof rampPayoutQuotes.$inferSelect
export type PayoutRow = typeof rampPayouts.$inferSelect

export async function insertQuote(db: Executor, tenantId: string, row: Omit<QuoteRow, 'tenantId'>) {
  await db.insert(rampPayoutQuotes).values({ ...row, tenantId })
}

export const findQuote = (db: Executor, tenantId: string, env: RampEnv, userId: string, id: string) =>
  db.select().from(rampPayoutQuotes).where(and(eq(rampPayoutQuotes.tenantId, tenantId), eq(rampPayoutQuotes.environment, env), eq(rampPayoutQuotes.userId, userId), eq(rampPayoutQuotes.id, id))).get()

export const findPayoutOfQuote = (db: Executor, tenantId: string, quoteId: string) =>
  db.select().from(rampPayouts).where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.quoteId, quoteId))).get()

/** Reserves the quote for one payout: false when another payout took it first. */
export async function insertPayout(db: Executor, tenantId: string, row: Omit<PayoutRow, 'tenantId'>): Promise<boolean> {
  const out = await db.insert(rampPayouts).values({ ...row, tenantId }).onConflictDoNothing().returning({ id: rampPayouts.id })
  return out.length === 1
}

export async function updatePayout(db: Executor, tenantId: string, id: string, patch: Partial<Omit<PayoutRow, 'id' | 'tenantId'>>) {
  await db.update(rampPayouts).set(patch).where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.id, id)))
}

export async function deletePayout(db: Executor, tenantId: string, id: string) {
  await db.delete(rampPayouts).where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.id, id)))
}

export const findPayout = (db: Executor, tenantId: string, env: RampEnv, userId: string, id: string) =>
  db.select().from(rampPayouts).where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.environment, env), eq(rampPayouts.userId, userId), eq(rampPayouts.id, id))).get()

export const findPayoutById = (db: Executor, tenantId: string, env: RampEnv, id: string) =>
  db.select().from(rampPayouts).where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.environment, env), eq(rampPayouts.id, id))).get()

export async function listPayouts(db: Executor, tenantId: string, env: RampEnv, userId: string, limit: number, offset: number) {
  const where = and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.environment, env), eq(rampPayouts.userId, userId))
  const rows = await db.select().from(rampPayouts).where(where).orderBy(desc(rampPayouts.createdAt), desc(rampPayouts.id)).limit(limit).offset(offset).all()
  const [{ n }] = await db.select({ n: count() }).from(rampPayouts).where(where).all() as [{ n: number }]
  return { rows, total: n }
}

export const findPayoutByRampTransaction = (db: Executor, tenantId: string, env: RampEnv, rampTransactionId: string) =>
  db.select().from(rampPayouts).where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.environment, env), eq(rampPayouts.rampTransactionId, rampTransactionId))).get()

export type ChallengeRow = typeof rampAddressChallenges.$inferSelect
export type ProvenAddressRow = typeof rampProvenAddresses.$inferSelect

/** Stores a challenge; the user's spent and expired ones are dropped as new ones come. */
export async function insertChallenge(db: Executor, tenantId: string, row: Omit<ChallengeRow, 'tenantId'>) {
  const mine = and(eq(rampAddressChallenges.tenantId, tenantId), eq(rampAddressChallenges.environment, row.environment), eq(rampAddressChallenges.userId, row.userId))
  await db.delete(rampAddressChallenges).where(and(mine, or(lt(rampAddressChallenges.expiresAt, row.createdAt), isNotNull(rampAddressChallenges.usedAt))))
  await db.insert(rampAddressChallenges).values({ ...row, tenantId })
}

export const findChallenge = (db: Executor, tenantId: string, env: RampEnv, userId: string, id: string) =>
  db.select().from(rampAddressChallenges).where(and(
    eq(rampAddressChallenges.tenantId, tenantId),
    eq(rampAddressChallenges.environment, env),
    eq(rampAddressChallenges.userId, userId),
    eq(rampAddressChallenges.id, id),
  )).get()

/** Spends a challenge: false when it was spent already (single use, also under concurrent requests). */
export async function spendChallenge(db: Executor, tenantId: string, id: string, now: number): Promise<boolean> {
  const out = await db.update(rampAddressChallenges).set({ usedAt: now })
    .where(and(eq(rampAddressChallenges.tenantId, tenantId), eq(rampAddressChallenges.id, id), isNull(rampAddressChallenges.usedAt))).returning({ id: rampAddressChallenges.id })
  return out.length === 1
}

/** Inserts the proven address, or refreshes the row the user already had for it; answers the row. */
export async function upsertProvenAddress(db: Executor, tenantId: string, row: Omit<ProvenAddressRow, 'tenantId'>): Promise<ProvenAddressRow> {
  const [out] = await db.insert(rampProvenAddresses).values({ ...row, tenantId })
    .onConflictDoUpdate({
      target: [rampProvenAddresses.tenantId, rampProvenAddresses.environment, rampProvenAddresses.userId, rampProvenAddresses.chain, rampProvenAddresses.address],
      set: { rampAddressId: row.rampAddressId, provenAt: row.provenAt },
    })
    .returning()
  return out!
}

export const listProvenAddresses = (db: Executor, tenantId: string, env: RampEnv, userId: string) =>
  db.select().from(rampProvenAddresses).where(and(eq(rampProvenAddresses.tenantId, tenantId), eq(rampProvenAddresses.environment, env), eq(rampProvenAddresses.userId, userId)))
    .orderBy(desc(rampProvenAddresses.provenAt), desc(rampProvenAddresses.id)).all()

export const findProvenAddress = (db: Executor, tenantId: string, env: RampEnv, userId: string, id: string) =>
  db.select().from(rampProvenAddresses).where(and(
    eq(rampProvenAddresses.tenantId, tenantId),
    eq(rampProvenAddresses.environment, env),
    eq(rampProvenAddresses.userId, userId),
    eq(rampProvenAddresses.id, id),
  )).get()

export async function deleteProvenAddress(db: Executor, tenantId: string, id: string) {
  await db.delete(rampProvenAddresses).where(and(eq(rampProvenAddresses.tenantId, tenantId), eq(rampProvenAddresses.id, id)))
}

/** The user's payouts in the environment that may still move money (`pending`, `processing`). */
export const unfinishedPayouts = (db: Executor, tenantId: string, env: RampEnv, userId: string) =>
  db.select({ id: rampPayouts.id, status: rampPayouts.status }).from(rampPayouts)
    .where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.environment, env), eq(rampPayouts.userId, userId), inArray(rampPayouts.status, ['pending', 'processing']))).all()
