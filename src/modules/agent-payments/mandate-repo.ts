/** The only file that reads or writes `ap_mandates`; every function filters by the tenant. */
import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { apMandates, type MandateRow, type MandateStatus, type MandateType } from './mandate-schema'

export async function insertMandate(db: Executor, row: MandateRow) {
  await db.insert(apMandates).values(row)
}

export function findMandate(db: Executor, tenantId: string, id: string) {
  return db.select().from(apMandates).where(and(eq(apMandates.tenantId, tenantId), eq(apMandates.id, id))).get()
}

export async function listMandates(db: Executor, tenantId: string, f: { type?: MandateType; status?: MandateStatus; agentId?: string; limit: number; offset: number }) {
  const where = and(
    eq(apMandates.tenantId, tenantId),
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
