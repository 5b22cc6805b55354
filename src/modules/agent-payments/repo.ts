/**
 * The only file that reads or writes the agent payments tables. Every function takes the
 * tenant after the executor and filters by it, except `findKeyByHash`: a presented key is
 * what tells which tenant it belongs to (its hash is unique across tenants).
 */
import { and, desc, eq, gte, inArray, isNull, ne, sql, type SQL } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { statementOf } from '../../db/batch'
import { AMOUNT_LIMBS, MAX_WHOLE_DIGITS, unitsOfLimbs } from './amount-sql'
import {
  apAgents, apApiKeys, apApprovals, apAuditLog, apExecutions, apMandates, apMerchants, apPolicies,
  apShoppers, type ShopperRow, type AgentRow, type ApiKeyRow, type ApprovalRow, type AuditRow,
  type ExecutionRow, type MandateRow, type MerchantRow, type PolicyRow,
} from './schema'
import { COUNTED_STATUSES, type AgentStatus, type ApprovalStatus, type ExecutionStatus, type MandateStatus, type MandateType } from './record-types'

export type { AgentRow, ApiKeyRow, ApprovalRow, AuditRow, ExecutionRow, MerchantRow, PolicyRow }

async function paged<T>(rows: Promise<T[]>, count: Promise<Array<{ n: number }>>) {
  const [data, [c]] = await Promise.all([rows, count])
  return { rows: data, total: Number(c?.n ?? 0) }
}
const countOf = (
  db: Executor,
  table: typeof apAgents | typeof apPolicies | typeof apMerchants | typeof apApiKeys | typeof apAuditLog | typeof apExecutions | typeof apApprovals | typeof apShoppers,
  where: SQL | undefined,
) =>
  db.select({ n: sql<number>`count(*)` }).from(table).where(where)

// agents

export async function insertAgent(db: Executor, row: AgentRow) {
  await db.insert(apAgents).values(row)
}

export function findAgent(db: Executor, tenantId: string, id: string) {
  return db.select().from(apAgents).where(and(eq(apAgents.tenantId, tenantId), eq(apAgents.id, id))).get()
}

export function listAgents(db: Executor, tenantId: string, f: { status?: AgentStatus; limit: number; offset: number }) {
  const where = and(eq(apAgents.tenantId, tenantId), f.status ? eq(apAgents.status, f.status) : undefined)
  return paged(db.select().from(apAgents).where(where).orderBy(desc(apAgents.createdAt), desc(apAgents.id)).limit(f.limit).offset(f.offset), countOf(db, apAgents, where))
}

export async function updateAgent(db: Executor, tenantId: string, id: string, changes: Partial<Omit<AgentRow, 'id' | 'tenantId' | 'createdAt'>>) {
  await db.update(apAgents).set(changes).where(and(eq(apAgents.tenantId, tenantId), eq(apAgents.id, id)))
}

/** Whether an agent that is not archived uses the policy. */
export async function policyInUse(db: Executor, tenantId: string, policyId: string): Promise<boolean> {
  const row = await db.select({ id: apAgents.id }).from(apAgents)
    .where(and(eq(apAgents.tenantId, tenantId), eq(apAgents.policyId, policyId), ne(apAgents.status, 'archived'))).limit(1).get()
  return !!row
}

// policies

export async function insertPolicy(db: Executor, row: PolicyRow) {
  await db.insert(apPolicies).values(row)
}

export function findPolicy(db: Executor, tenantId: string, id: string) {
  return policyQuery(db, tenantId, id).get()
}

/** `findPolicy` as a query (a list of at most one), to send with other reads (`readAll`). */
export const policyQuery = (db: Executor, tenantId: string, id: string) =>
  db.select().from(apPolicies).where(and(eq(apPolicies.tenantId, tenantId), eq(apPolicies.id, id), isNull(apPolicies.deletedAt))).limit(1)

export function listPolicies(db: Executor, tenantId: string, f: { limit: number; offset: number }) {
  const where = and(eq(apPolicies.tenantId, tenantId), isNull(apPolicies.deletedAt))
  return paged(db.select().from(apPolicies).where(where).orderBy(desc(apPolicies.createdAt), desc(apPolicies.id)).limit(f.limit).offset(f.offset), countOf(db, apPolicies, where))
}

export async function updatePolicy(db: Executor, tenantId: string, id: string, changes: Partial<Omit<PolicyRow, 'id' | 'tenantId' | 'createdAt'>>) {
  await db.update(apPolicies).set(changes).where(and(eq(apPolicies.tenantId, tenantId), eq(apPolicies.id, id)))
}

// merchants

export async function insertMerchant(db: Executor, row: MerchantRow) {
  await db.insert(apMerchants).values(row)
}

export function findMerchant(db: Executor, tenantId: string, id: string) {
  return db.select().from(apMerchants).where(and(eq(apMerchants.tenantId, tenantId), eq(apMerchants.id, id))).get()
}

/** The ids among `ids` that are merchants of the tenant (enabled or not). */
export async function existingMerchantIds(db: Executor, tenantId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set()
  const rows = await db.select({ id: apMerchants.id }).from(apMerchants)
    .where(and(eq(apMerchants.tenantId, tenantId), sql`${apMerchants.id} in (select value from json_each(${JSON.stringify(ids)}))`))
  return new Set(rows.map((r) => r.id))
}

/** The tenant's merchants (enabled or not) paid on a network: whose `payTo` a payee's address may be. */
export function merchantsOnNetwork(db: Executor, tenantId: string, network: string) {
  return db.select({ id: apMerchants.id, address: apMerchants.payToAddress, status: apMerchants.status }).from(apMerchants)
    .where(and(eq(apMerchants.tenantId, tenantId), eq(apMerchants.payToNetwork, network)))
}

/** The tenant's merchants (enabled or not) whose `payTo` is this address on this network; EVM addresses compared without case. */
export function merchantsAt(db: Executor, tenantId: string, network: string, address: string, evm: boolean) {
  return db.select({ id: apMerchants.id, address: apMerchants.payToAddress, status: apMerchants.status }).from(apMerchants)
    .where(and(
      eq(apMerchants.tenantId, tenantId), eq(apMerchants.payToNetwork, network),
      evm ? sql`lower(${apMerchants.payToAddress}) = ${address.toLowerCase()}` : eq(apMerchants.payToAddress, address),
    ))
}

export function listMerchants(db: Executor, tenantId: string, f: { status?: MerchantRow['status']; limit: number; offset: number }) {
  const where = and(eq(apMerchants.tenantId, tenantId), f.status ? eq(apMerchants.status, f.status) : undefined)
  return paged(db.select().from(apMerchants).where(where).orderBy(desc(apMerchants.createdAt), desc(apMerchants.id)).limit(f.limit).offset(f.offset), countOf(db, apMerchants, where))
}

export async function updateMerchant(db: Executor, tenantId: string, id: string, changes: Partial<Omit<MerchantRow, 'id' | 'tenantId' | 'createdAt'>>) {
  await db.update(apMerchants).set(changes).where(and(eq(apMerchants.tenantId, tenantId), eq(apMerchants.id, id)))
}

// API keys

export async function insertKey(db: Executor, row: ApiKeyRow) {
  await db.insert(apApiKeys).values(row)
}

/** The key with this hash, in any tenant (see the file comment). */
export function findKeyByHash(db: Executor, keyHash: string) {
  return db.select().from(apApiKeys).where(eq(apApiKeys.keyHash, keyHash)).get()
}

export function findKey(db: Executor, tenantId: string, kind: ApiKeyRow['kind'], ownerId: string, id: string) {
  return db.select().from(apApiKeys)
    .where(and(eq(apApiKeys.tenantId, tenantId), eq(apApiKeys.kind, kind), eq(apApiKeys.ownerId, ownerId), eq(apApiKeys.id, id))).get()
}

export function listKeys(db: Executor, tenantId: string, kind: ApiKeyRow['kind'], ownerId: string, f: { limit: number; offset: number }) {
  const where = and(eq(apApiKeys.tenantId, tenantId), eq(apApiKeys.kind, kind), eq(apApiKeys.ownerId, ownerId))
  return paged(db.select().from(apApiKeys).where(where).orderBy(desc(apApiKeys.createdAt), desc(apApiKeys.id)).limit(f.limit).offset(f.offset), countOf(db, apApiKeys, where))
}

/** Revokes one key; true when it was live. */
export async function revokeKey(db: Executor, tenantId: string, id: string, now: number): Promise<boolean> {
  const changed = await db.update(apApiKeys).set({ revokedAt: now })
    .where(and(eq(apApiKeys.tenantId, tenantId), eq(apApiKeys.id, id), isNull(apApiKeys.revokedAt))).returning({ id: apApiKeys.id })
  return changed.length > 0
}

/** Revokes every live key of an owner; answers the revoked keys' ids. */
export async function revokeOwnerKeys(db: Executor, tenantId: string, kind: ApiKeyRow['kind'], ownerId: string, now: number): Promise<string[]> {
  const changed = await db.update(apApiKeys).set({ revokedAt: now })
    .where(and(eq(apApiKeys.tenantId, tenantId), eq(apApiKeys.kind, kind), eq(apApiKeys.ownerId, ownerId), isNull(apApiKeys.revokedAt)))
    .returning({ id: apApiKeys.id })
  return changed.map((r) => r.id)
}

export async function touchKey(db: Executor, tenantId: string, id: string, now: number) {
  await db.update(apApiKeys).set({ lastUsedAt: now }).where(and(eq(apApiKeys.tenantId, tenantId), eq(apApiKeys.id, id)))
}

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

/**
 * The amounts and counting instants of the agent's executions that count against its limits
 * (waiting, reserved or paid), counted at or after `since`. `countedAt` is the instant the
 * execution was last judged; rows older than that column count at their `createdAt`.
 */
export function countedExecutions(db: Executor, tenantId: string, agentId: string, since: number) {
  const countedAt = sql<number>`coalesce(${apExecutions.countedAt}, ${apExecutions.createdAt})`
  return db.select({ id: apExecutions.id, amount: apExecutions.amount, countedAt }).from(apExecutions)
    .where(and(eq(apExecutions.tenantId, tenantId), eq(apExecutions.agentId, agentId), inArray(apExecutions.status, COUNTED_STATUSES), gte(countedAt, since)))
}

/**
 * What `countedExecutions` adds up, summed in SQL (amount-sql.ts): per window, the units of 1e-18
 * counted in it and how many; one row back whatever the number of executions. Null when a whole
 * part is too long to sum there (the caller adds the rows up itself).
 */
export async function countedSums(db: Executor, tenantId: string, agentId: string, windows: Array<{ start: number; end: number | null }>, excludeId?: string) {
  const since = Math.min(...windows.map((w) => w.start))
  const cols = windows.map((w) => {
    const inW = w.end === null ? sql`ca >= ${w.start}` : sql`ca >= ${w.start} AND ca < ${w.end}`
    const sum = (limb: string) => sql`CAST(coalesce(sum(CASE WHEN ${inW} THEN ${sql.raw(limb)} END), 0) AS TEXT)`
    return sql`${sum('w')}, ${sum('h')}, ${sum('l')}, count(CASE WHEN ${inW} THEN 1 END)`
  })
  const statuses = sql.join(COUNTED_STATUSES.map((s) => sql`${s}`), sql`, `)
  const [row] = await db.values<unknown[]>(sql`SELECT coalesce(max(wl), 0), ${sql.join(cols, sql`, `)} FROM (
    SELECT ${AMOUNT_LIMBS}, coalesce(counted_at, created_at) AS ca FROM ap_executions
    WHERE tenant_id = ${tenantId} AND agent_id = ${agentId} AND status IN (${statuses}) AND coalesce(counted_at, created_at) >= ${since}${excludeId ? sql` AND id <> ${excludeId}` : sql``})`)
  if (!row || Number(row[0]) > MAX_WHOLE_DIGITS) return null
  return windows.map((_, i) => ({ units: unitsOfLimbs(row[1 + 4 * i], row[2 + 4 * i], row[3 + 4 * i]), count: Number(row[4 + 4 * i]) }))
}

/**
 * The executions under a mandate that count: what its budget and occurrences have used. By
 * default those waiting, reserved or paid (what judging a new payment sees); `RESERVED_STATUSES`
 * for what payments have used up (whether a payment exhausts it).
 */
export function mandateExecutions(db: Executor, tenantId: string, mandateId: string, statuses: ExecutionStatus[] = COUNTED_STATUSES) {
  return db.select({ id: apExecutions.id, amount: apExecutions.amount, countedAt: sql<number>`coalesce(${apExecutions.countedAt}, ${apExecutions.createdAt})` }).from(apExecutions)
    .where(and(eq(apExecutions.tenantId, tenantId), eq(apExecutions.mandateId, mandateId), inArray(apExecutions.status, statuses)))
}

// approvals

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

// shoppers

export async function insertShopper(db: Executor, row: ShopperRow) {
  await db.insert(apShoppers).values(row)
}

/** A shopper not removed. */
export function findShopper(db: Executor, tenantId: string, id: string) {
  return db.select().from(apShoppers).where(and(eq(apShoppers.tenantId, tenantId), eq(apShoppers.id, id), isNull(apShoppers.deletedAt))).get()
}

export function findShopperByRef(db: Executor, tenantId: string, merchantId: string, externalRef: string) {
  return db.select().from(apShoppers).where(and(eq(apShoppers.tenantId, tenantId), eq(apShoppers.merchantId, merchantId), eq(apShoppers.externalRef, externalRef), isNull(apShoppers.deletedAt))).get()
}

export function listShoppers(db: Executor, tenantId: string, f: { merchantId?: string; limit: number; offset: number }) {
  const where = and(eq(apShoppers.tenantId, tenantId), isNull(apShoppers.deletedAt), f.merchantId ? eq(apShoppers.merchantId, f.merchantId) : undefined)
  return paged(db.select().from(apShoppers).where(where).orderBy(desc(apShoppers.createdAt), desc(apShoppers.id)).limit(f.limit).offset(f.offset), countOf(db, apShoppers, where))
}

export async function updateShopper(db: Executor, tenantId: string, id: string, changes: Partial<Omit<ShopperRow, 'id' | 'tenantId' | 'createdAt'>>) {
  await db.update(apShoppers).set(changes).where(and(eq(apShoppers.tenantId, tenantId), eq(apShoppers.id, id)))
}
