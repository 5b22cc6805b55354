/** Agents, their policies and the API keys of agents and merchants. */
import { and, desc, eq, isNull, ne, sql } from 'drizzle-orm'
import type { Executor } from '../../../db/client'
import { apAgents, apApiKeys, apPolicies, type AgentRow, type ApiKeyRow, type PolicyRow } from '../schema'
import type { AgentStatus } from '../record-types'
import { countOf, paged } from './paging'

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
