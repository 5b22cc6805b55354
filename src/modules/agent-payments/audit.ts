/** The group's audit log (route 54): every change, newest first. */
import type { Scope } from './agents/credentials'
import * as repo from './repo'
import type { AuditRow } from './schema'
import { auditView } from './views'

export async function listAudit(scope: Scope, q: { resourceType?: string; resourceId?: string; actorType?: AuditRow['actorType']; limit?: number; offset?: number }) {
  const { rows, total } = await repo.listAudit(scope.deps.database.db, scope.tenantId, { ...q, limit: q.limit ?? 50, offset: q.offset ?? 0 })
  return { data: rows.map(auditView), total }
}
