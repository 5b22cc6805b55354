/** The passkeys, passkey_challenges and passkey_grants tables' only reader and writer; every function takes the tenant first. */
import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm'
import { uniqueViolation, type Executor } from '../../db/client'
import { passkeyChallenges, passkeyGrants, passkeys } from './schema'

export type PasskeyRow = typeof passkeys.$inferSelect
export type ChallengeRow = typeof passkeyChallenges.$inferSelect
export type GrantRow = typeof passkeyGrants.$inferSelect

export async function insertPasskey(db: Executor, tenantId: string, row: Omit<PasskeyRow, 'tenantId'>) {
  await db.insert(passkeys).values({ ...row, tenantId })
}

export const isCredentialConflict = (err: unknown) => uniqueViolation(err).includes('passkeys.credential_id')

export function listOfUser(db: Executor, tenantId: string, userId: string) {
  return db.select().from(passkeys).where(and(eq(passkeys.tenantId, tenantId), eq(passkeys.userId, userId))).orderBy(asc(passkeys.createdAt), asc(passkeys.id)).all()
}

export async function countOfUser(db: Executor, tenantId: string, userId: string): Promise<number> {
  const row = await db.select({ n: sql<number>`count(*)` }).from(passkeys).where(and(eq(passkeys.tenantId, tenantId), eq(passkeys.userId, userId))).get()
  return row?.n ?? 0
}

export function findOfUser(db: Executor, tenantId: string, userId: string, id: string) {
  return db.select().from(passkeys).where(and(eq(passkeys.tenantId, tenantId), eq(passkeys.userId, userId), eq(passkeys.id, id))).get()
}

export function findByCredentialId(db: Executor, tenantId: string, credentialId: string) {
  return db.select().from(passkeys).where(and(eq(passkeys.tenantId, tenantId), eq(passkeys.credentialId, credentialId))).get()
}

export async function rename(db: Executor, tenantId: string, id: string, name: string) {
  await db.update(passkeys).set({ name }).where(and(eq(passkeys.tenantId, tenantId), eq(passkeys.id, id)))
}

export async function remove(db: Executor, tenantId: string, id: string) {
  await db.delete(passkeys).where(and(eq(passkeys.tenantId, tenantId), eq(passkeys.id, id)))
}

/**
 * Records a use: the new counter and the time. Only when the stored counter is still the one the
 * check read, so of two assertions racing with one counter value one loses (false).
 */
export async function recordUse(db: Executor, tenantId: string, id: string, seenCounter: number, counter: number, backedUp: boolean, now: number) {
  const out = await db.update(passkeys).set({ counter, backedUp, lastUsedAt: now })
    .where(and(eq(passkeys.tenantId, tenantId), eq(passkeys.id, id), eq(passkeys.counter, seenCounter)))
    .returning({ id: passkeys.id })
  return out.length === 1
}

export async function insertChallenge(db: Executor, tenantId: string, row: Omit<ChallengeRow, 'tenantId'>) {
  await db.insert(passkeyChallenges).values({ ...row, tenantId })
}

export function findChallenge(db: Executor, tenantId: string, challenge: string) {
  return db.select().from(passkeyChallenges).where(and(eq(passkeyChallenges.tenantId, tenantId), eq(passkeyChallenges.challenge, challenge))).get()
}

/** Spends the challenge if it is still unused; of two concurrent verifications one gets true. */
export async function spendChallenge(db: Executor, tenantId: string, id: string, now: number): Promise<boolean> {
  const out = await db.update(passkeyChallenges).set({ usedAt: now })
    .where(and(eq(passkeyChallenges.tenantId, tenantId), eq(passkeyChallenges.id, id), isNull(passkeyChallenges.usedAt)))
    .returning({ id: passkeyChallenges.id })
  return out.length === 1
}

export async function insertGrant(db: Executor, tenantId: string, row: Omit<GrantRow, 'tenantId'>) {
  await db.insert(passkeyGrants).values({ ...row, tenantId })
}

/**
 * The grant with this hash, of any tenant: only for the hosted page's token, which arrives
 * before anything names a tenant (the hash of 256 random bits is the credential; the caller
 * checks the grant's tenant).
 */
export function findGrantOfAnyTenant(db: Executor, tokenHash: string) {
  return db.select().from(passkeyGrants).where(eq(passkeyGrants.tokenHash, tokenHash)).get()
}

/** The tenant's grant with this hash: another tenant's is as unknown as a made-up one. */
export function findGrant(db: Executor, tenantId: string, tokenHash: string) {
  return db.select().from(passkeyGrants).where(and(eq(passkeyGrants.tenantId, tenantId), eq(passkeyGrants.tokenHash, tokenHash))).get()
}

/** Spends the grant if it is unused and unexpired; of two concurrent uses one gets true. */
export async function spendGrant(db: Executor, tenantId: string, id: string, now: number): Promise<boolean> {
  const out = await db.update(passkeyGrants).set({ usedAt: now })
    .where(and(eq(passkeyGrants.tenantId, tenantId), eq(passkeyGrants.id, id), isNull(passkeyGrants.usedAt), sql`${passkeyGrants.expiresAt} > ${now}`))
    .returning({ id: passkeyGrants.id })
  return out.length === 1
}

/** Challenges and grants past their expiry serve nothing (a replay of one is refused as unknown then): dropped as new ones come. */
export async function dropExpired(db: Executor, tenantId: string, now: number) {
  await db.delete(passkeyChallenges).where(and(eq(passkeyChallenges.tenantId, tenantId), lt(passkeyChallenges.expiresAt, now - 3_600_000)))
  await db.delete(passkeyGrants).where(and(eq(passkeyGrants.tenantId, tenantId), lt(passkeyGrants.expiresAt, now - 3_600_000)))
}
