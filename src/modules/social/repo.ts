/** The user_identities table's only reader and writer: which Google or Apple subject is which user. */
import { and, eq } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { userIdentities } from '../../db/schema'

export type IdentityRow = typeof userIdentities.$inferSelect

export function findBySubject(db: Executor, tenantId: string, provider: IdentityRow['provider'], subject: string) {
  return db.select().from(userIdentities)
    .where(and(eq(userIdentities.tenantId, tenantId), eq(userIdentities.provider, provider), eq(userIdentities.subject, subject)))
    .get()
}

export async function insertIdentity(db: Executor, tenantId: string, row: Omit<IdentityRow, 'tenantId'>) {
  await db.insert(userIdentities).values({ ...row, tenantId })
}

/** The providers a user signs in with, sorted, without repeats. */
export async function providersOf(db: Executor, tenantId: string, userId: string): Promise<IdentityRow['provider'][]> {
  const rows = await db.select({ provider: userIdentities.provider }).from(userIdentities)
    .where(and(eq(userIdentities.tenantId, tenantId), eq(userIdentities.userId, userId)))
  return [...new Set(rows.map((r) => r.provider))].sort()
}
