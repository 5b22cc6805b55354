/**
 * The tenants table's reader and writer (the credential reads, by API key and with a
 * user's token, are src/db/callers.ts). A tenant's id is its key, so every function but
 * the platform-wide list takes it first.
 */
import { desc, eq, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { tenants } from '../../db/schema'

export type TenantRow = typeof tenants.$inferSelect

export function findTenant(db: Executor, id: string) {
  return db.select().from(tenants).where(eq(tenants.id, id)).get()
}

export { secretAad } from '../../db/callers'

export async function insertTenant(db: Executor, row: TenantRow) {
  await db.insert(tenants).values(row)
}

export async function updateTenant(db: Executor, id: string, set: Partial<Pick<TenantRow, 'name' | 'status' | 'settings' | 'apiSecretSealed' | 'updatedAt'>>) {
  await db.update(tenants).set(set).where(eq(tenants.id, id))
}

/** Newest first; `onlyId` restricts the list to one tenant (a tenantadmin's own). */
export async function listTenants(db: Executor, onlyId: string | null, limit: number, offset: number) {
  const where = onlyId === null ? undefined : eq(tenants.id, onlyId)
  const [rows, [count]] = await Promise.all([
    db.select().from(tenants).where(where).orderBy(desc(tenants.createdAt), desc(tenants.id)).limit(limit).offset(offset),
    db.select({ n: sql<number>`count(*)` }).from(tenants).where(where),
  ])
  return { rows, total: Number(count?.n ?? 0) }
}
