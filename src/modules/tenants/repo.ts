/**
 * The tenants table's only reader and writer. A tenant's id is its key, so every function
 * but the platform-wide list and the API-key lookup (which is how a signed request finds
 * its tenant) takes it first.
 */
import { desc, eq, sql } from 'drizzle-orm'
import type { Database, Executor } from '../../db/client'
import { preparedOnce } from '../../db/prepared'
import { tenants } from '../../db/schema'

export type TenantRow = typeof tenants.$inferSelect

export function findTenant(db: Executor, id: string) {
  return db.select().from(tenants).where(eq(tenants.id, id)).get()
}

/** What the tenant signature check needs, by API key: it runs on every signed request, so it is prepared once per connection. */
const apiKeyQuery = preparedOnce('tenants:by-api-key', (db) => db
  .select({ id: tenants.id, name: tenants.name, status: tenants.status, secret: tenants.apiSecretSealed, settings: tenants.settings })
  .from(tenants)
  .where(eq(tenants.apiKey, sql.placeholder('apiKey')))
  .prepare())

/** Associated data of a tenant's sealed API secret (`api_secret_sealed`). */
export const secretAad = (tenantId: string) => `tenant:${tenantId}:api_secret`

export const findByApiKey = (database: Database, apiKey: string) => apiKeyQuery(database).get({ apiKey })

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
