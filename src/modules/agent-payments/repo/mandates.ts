/** Mandates and the audit log. */
import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Executor } from '../../../db/client'
import { statementOf } from '../../../db/batch'
import { apAuditLog, apMandates, type AuditRow, type MandateRow } from '../schema'
import type { MandateStatus, MandateType } from '../record-types'
import { countOf, paged } from './paging'

// audit log

export async function insertAudit(db: Executor, row: AuditRow) {
  await db.insert(apAuditLog).values(row)
}

export const insertAuditStatement = (db: Executor, row: AuditRow) => statementOf(db.insert(apAuditLog).values(row))

export function listAudit(db: Executor, tenantId: string, f: { resourceType?: string; resourceId?: string; actorType?: AuditRow['actorType']; limit: number; offset: number }) {
  const where = and(
    eq(apAuditLog.tenantId, tenantId),
    f.resourceType ? eq(apAuditLog.resourceType, f.resourceType) : undefined,
    f.resourceId ? eq(apAuditLog.resourceId, f.resourceId) : undefined,
    f.actorType ? eq(apAuditLog.actorType, f.actorType) : undefined,
  )
  return paged(
    db.select().from(apAuditLog).where(where).orderBy(desc(apAuditLog.createdAt), desc(sql`rowid`)).limit(f.limit).offset(f.offset),
    countOf(db, apAuditLog, where),
  )
}

// mandates

export async function insertMandate(db: Executor, row: MandateRow) {
  await db.insert(apMandates).values(row)
}

export function findMandate(db: Executor, tenantId: string, id: string) {
  return db.select().from(apMandates).where(and(eq(apMandates.tenantId, tenantId), eq(apMandates.id, id))).get()
}

export async function listMandates(db: Executor, tenantId: string, f: { type?: MandateType; status?: MandateStatus; agentId?: string; shopperId?: string; limit: number; offset: number }) {
  const where = and(
    eq(apMandates.tenantId, tenantId),
    f.shopperId ? eq(apMandates.shopperId, f.shopperId) : undefined,
    f.type ? eq(apMandates.type, f.type) : undefined,
    f.status ? eq(apMandates.status, f.status) : undefined,
    f.agentId ? eq(apMandates.agentId, f.agentId) : undefined,
  )
  const [rows, [c]] = await Promise.all([
    db.select().from(apMandates).where(where).orderBy(desc(apMandates.createdAt), desc(apMandates.id)).limit(f.limit).offset(f.offset),
    db.select({ n: sql<number>`count(*)` }).from(apMandates).where(where),
  ])
  return { rows, total: Number(c?.n ?? 0) }
}

/** Moves the mandate only from one of `from`; answers the row after, or null when it was in another state. */
export async function moveMandate(db: Executor, tenantId: string, id: string, from: readonly MandateStatus[], changes: Partial<Omit<MandateRow, 'id' | 'tenantId' | 'createdAt'>>) {
  const rows = await db.update(apMandates).set(changes)
    .where(and(eq(apMandates.tenantId, tenantId), eq(apMandates.id, id), inArray(apMandates.status, [...from]))).returning()
  return rows[0] ?? null
}
