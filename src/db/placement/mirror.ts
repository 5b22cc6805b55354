/**
 * A placed tenant's own row in its own database. The control database is where a tenant is
 * created, found by API key and changed; the tenant's database keeps a copy of that one row,
 * because its users, wallets and every other row name it by foreign key, and the bearer
 * check reads the user with its tenant in one statement (src/db/callers.ts). The copy is
 * written after the control database's write commits: the two are not one transaction
 * (docs/scaling.md, "Risks"), so a copy that failed is written again at the next start.
 */
import { eq } from 'drizzle-orm'
import type { Database } from '../client'
import { tenants } from '../schema'

/** Copies the tenant's row from `control` into `target` (inserted, or updated in place so rows that name it keep it); false when control has none. */
export async function mirrorTenantRow(control: Database, target: Database, tenantId: string): Promise<boolean> {
  const row = await control.db.select().from(tenants).where(eq(tenants.id, tenantId)).get()
  if (!row) return false
  const { id: _id, ...rest } = row
  await target.write((tx) => tx.insert(tenants).values(row).onConflictDoUpdate({ target: tenants.id, set: rest }))
  return true
}
