/** The activity log's repo: who did what in a tenant, when. Never a secret. The tenant is the entry's first field. */
import { and, desc, eq, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { activityLog } from '../../db/schema'
import { newId } from '../../lib/ids'
import type { Actor } from '../../context'

export interface ActivityEntry {
  tenantId: string
  actor: Actor | null
  action: string
  targetType?: string
  targetId?: string
  details?: Record<string, unknown>
  requestId?: string
  at: number
}

export async function recordActivity(db: Executor, e: ActivityEntry) {
  await db.insert(activityLog).values({
    id: newId(),
    tenantId: e.tenantId,
    actorId: e.actor?.userId ?? null,
    actorRole: e.actor?.role ?? null,
    action: e.action,
    targetType: e.targetType ?? null,
    targetId: e.targetId ?? null,
    details: e.details ?? null,
    requestId: e.requestId ?? null,
    createdAt: e.at,
  })
}

export async function listActivity(db: Executor, tenantId: string, limit: number, offset: number) {
  const [rows, [count]] = await Promise.all([
    db.select().from(activityLog).where(eq(activityLog.tenantId, tenantId)).orderBy(desc(activityLog.createdAt), desc(sql`rowid`)).limit(limit).offset(offset),
    db.select({ n: sql<number>`count(*)` }).from(activityLog).where(and(eq(activityLog.tenantId, tenantId))),
  ])
  return { rows, total: Number(count?.n ?? 0) }
}
