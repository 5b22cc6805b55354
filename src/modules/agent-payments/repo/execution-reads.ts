/**
 * What creating an execution reads before its write, as queries to send together (`readEach`,
 * src/db/batch.ts: one request to a server). The reads that would wait for another's answer (the
 * agent's policy, the merchants at the merchant's address) take what they need by subquery from
 * the same ids the request names, so they go in the same batch: one snapshot on a server.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm'
import type { Executor } from '../../../db/client'
import { apAgents, apExecutions, apMandates, apMerchants, apPolicies } from '../schema'

export const agentQuery = (db: Executor, tenantId: string, id: string) =>
  db.select().from(apAgents).where(and(eq(apAgents.tenantId, tenantId), eq(apAgents.id, id))).limit(1)

export const merchantQuery = (db: Executor, tenantId: string, id: string) =>
  db.select().from(apMerchants).where(and(eq(apMerchants.tenantId, tenantId), eq(apMerchants.id, id))).limit(1)

export const mandateQuery = (db: Executor, tenantId: string, id: string) =>
  db.select().from(apMandates).where(and(eq(apMandates.tenantId, tenantId), eq(apMandates.id, id))).limit(1)

export const executionByKeyQuery = (db: Executor, tenantId: string, idempotencyKey: string) =>
  db.select().from(apExecutions).where(and(eq(apExecutions.tenantId, tenantId), eq(apExecutions.idempotencyKey, idempotencyKey))).limit(1)

/** The id of the agent's wallet, as a subquery (for the wallets module's `walletQuery`). */
export const agentWalletId = (tenantId: string, agentId: string): SQL =>
  sql`(SELECT wallet_id FROM ap_agents WHERE tenant_id = ${tenantId} AND id = ${agentId})`

/** The agent's policy (not deleted), as `policyQuery` reads it, its id taken from the agent's row. */
export const policyOfAgentQuery = (db: Executor, tenantId: string, agentId: string) =>
  db.select().from(apPolicies).where(and(
    eq(apPolicies.tenantId, tenantId), sql`${apPolicies.deletedAt} IS NULL`,
    eq(apPolicies.id, sql`(SELECT policy_id FROM ap_agents WHERE tenant_id = ${tenantId} AND id = ${agentId})`),
  )).limit(1)

/**
 * The merchants registered at the merchant's payTo (its network, the address compared without
 * case): `merchantsAt`'s answer for an EVM network; on another network the caller keeps those at
 * the exact address.
 */
export const merchantsAtMerchantQuery = (db: Executor, tenantId: string, merchantId: string) => {
  const payTo = sql`(SELECT pay_to_network, lower(pay_to_address) FROM ap_merchants WHERE tenant_id = ${tenantId} AND id = ${merchantId})`
  return db.select({ id: apMerchants.id, address: apMerchants.payToAddress, status: apMerchants.status }).from(apMerchants)
    .where(and(eq(apMerchants.tenantId, tenantId), sql`(${apMerchants.payToNetwork}, lower(${apMerchants.payToAddress})) = ${payTo}`))
}
