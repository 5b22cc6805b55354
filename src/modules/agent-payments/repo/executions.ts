/** Executions and their approvals. */
import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm'
import type { Executor } from '../../../db/client'
import { statementOf } from '../../../db/batch'
import { apApprovals, apExecutions, apMandates, type ApprovalRow, type ExecutionRow } from '../schema'
import type { ApprovalStatus, ExecutionStatus } from '../record-types'
import { countOf, paged } from './paging'

// executions

export async function insertExecution(db: Executor, row: ExecutionRow) {
  await db.insert(apExecutions).values(row)
}

/**
 * The insert as a statement of a write batch, written only if `onlyIf` holds when it runs: else
 * its id is NULL, SQLite refuses the row (`NOT NULL constraint failed: ap_executions.id`) and the
 * batch (one transaction) writes nothing.
 */
export const insertExecutionStatementIf = (db: Executor, row: ExecutionRow, onlyIf: SQL) =>
  statementOf(db.insert(apExecutions).values({ ...row, id: sql`CASE WHEN ${onlyIf} THEN ${row.id} END` as unknown as string }))

export function findExecution(db: Executor, tenantId: string, id: string) {
  return db.select().from(apExecutions).where(and(eq(apExecutions.tenantId, tenantId), eq(apExecutions.id, id))).get()
}

export function findExecutionByKey(db: Executor, tenantId: string, idempotencyKey: string) {
  return db.select().from(apExecutions).where(and(eq(apExecutions.tenantId, tenantId), eq(apExecutions.idempotencyKey, idempotencyKey))).get()
}

export function listExecutions(
  db: Executor, tenantId: string,
  f: { status?: ExecutionStatus; agentId?: string; merchantId?: string; mandateId?: string; shopperId?: string; limit: number; offset: number },
) {
  const where = and(
    eq(apExecutions.tenantId, tenantId),
    // a shopper's executions: those under its mandates
    f.shopperId ? inArray(apExecutions.mandateId, db.select({ id: apMandates.id }).from(apMandates).where(and(eq(apMandates.tenantId, tenantId), eq(apMandates.shopperId, f.shopperId)))) : undefined,
    f.status ? eq(apExecutions.status, f.status) : undefined,
    f.agentId ? eq(apExecutions.agentId, f.agentId) : undefined,
    f.merchantId ? eq(apExecutions.merchantId, f.merchantId) : undefined,
    f.mandateId ? eq(apExecutions.mandateId, f.mandateId) : undefined,
  )
  return paged(db.select().from(apExecutions).where(where).orderBy(desc(apExecutions.createdAt), desc(apExecutions.id)).limit(f.limit).offset(f.offset), countOf(db, apExecutions, where))
}

export async function updateExecution(db: Executor, tenantId: string, id: string, changes: Partial<Omit<ExecutionRow, 'id' | 'tenantId' | 'createdAt'>>) {
  await db.update(apExecutions).set(changes).where(and(eq(apExecutions.tenantId, tenantId), eq(apExecutions.id, id)))
}

export async function insertApproval(db: Executor, row: ApprovalRow) {
  await db.insert(apApprovals).values(row)
}

export const insertApprovalStatement = (db: Executor, row: ApprovalRow) => statementOf(db.insert(apApprovals).values(row))

export function findApproval(db: Executor, tenantId: string, id: string) {
  return db.select().from(apApprovals).where(and(eq(apApprovals.tenantId, tenantId), eq(apApprovals.id, id))).get()
}

export function approvalOfExecution(db: Executor, tenantId: string, executionId: string) {
  return db.select().from(apApprovals).where(and(eq(apApprovals.tenantId, tenantId), eq(apApprovals.executionId, executionId))).get()
}

export function listApprovals(db: Executor, tenantId: string, f: { status?: ApprovalStatus; limit: number; offset: number }) {
  const where = and(eq(apApprovals.tenantId, tenantId), f.status ? eq(apApprovals.status, f.status) : undefined)
  return paged(db.select().from(apApprovals).where(where).orderBy(desc(apApprovals.createdAt), desc(apApprovals.id)).limit(f.limit).offset(f.offset), countOf(db, apApprovals, where))
}

export async function updateApproval(db: Executor, tenantId: string, id: string, changes: Partial<Omit<ApprovalRow, 'id' | 'tenantId' | 'createdAt'>>) {
  await db.update(apApprovals).set(changes).where(and(eq(apApprovals.tenantId, tenantId), eq(apApprovals.id, id)))
}
