/**
 * The conditions an execution's insert carries when it is written as one batch
 * (executions/reserve.ts): SQL that holds at the primary, in the batch's own transaction, exactly
 * when the judgement made from reads before the batch still stands. The rows judged are unchanged
 * (the agent, its policy's version, the merchant, the merchants at the payee's address, the
 * mandate); the limits' conditions read the running totals (spend.ts).
 */
import { sql, type SQL } from 'drizzle-orm'
import type { AgentRow, MandateRow, MerchantRow } from '../schema'

/** The agent as judged: its status, policy, wallet and consent as read, and not changed since (`updated_at`). */
export const agentAsRead = (tenantId: string, a: AgentRow) =>
  sql`EXISTS (SELECT 1 FROM ap_agents WHERE tenant_id = ${tenantId} AND id = ${a.id} AND status = ${a.status} AND policy_id IS ${a.policyId}
    AND wallet_id = ${a.walletId} AND wallet_consent_by IS ${a.walletConsentBy} AND updated_at = ${a.updatedAt})`

/** The policy at the version judged, not deleted. */
export const policyAsRead = (tenantId: string, policy: { id: string; version: number }) =>
  sql`EXISTS (SELECT 1 FROM ap_policies WHERE tenant_id = ${tenantId} AND id = ${policy.id} AND version = ${policy.version} AND deleted_at IS NULL)`

/** The merchant as judged. */
export const merchantAsRead = (tenantId: string, m: MerchantRow) =>
  sql`EXISTS (SELECT 1 FROM ap_merchants WHERE tenant_id = ${tenantId} AND id = ${m.id} AND status = ${m.status}
    AND category IS ${m.category} AND pay_to_network = ${m.payToNetwork} AND pay_to_address = ${m.payToAddress})`

/** The mandate as read (judged from that read: any change since fails this). */
export const mandateAsRead = (tenantId: string, m: MandateRow) =>
  sql`EXISTS (SELECT 1 FROM ap_mandates WHERE tenant_id = ${tenantId} AND id = ${m.id} AND status = 'active' AND updated_at = ${m.updatedAt})`

/** The merchants registered at an address on a network as `id:status`, sorted by id (the payee rule's input), or null when none. */
export function payeeFingerprint(tenantId: string, network: string, address: string, evm: boolean): SQL {
  const at = evm ? sql`lower(pay_to_address) = ${address.toLowerCase()}` : sql`pay_to_address = ${address}`
  return sql`(SELECT group_concat(x, ',') FROM (SELECT id || ':' || status AS x FROM ap_merchants WHERE tenant_id = ${tenantId} AND pay_to_network = ${network} AND ${at} ORDER BY id))`
}

/** The same fingerprint from the merchants read. */
export const payeeFingerprintOf = (merchants: Array<{ id: string; status: string }>) =>
  merchants.length ? [...merchants].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((m) => `${m.id}:${m.status}`).join(',') : null

/** All of `conds` (none: true). */
export const allOf = (conds: SQL[]) => (conds.length ? sql.join(conds.map((c) => sql`(${c})`), sql` AND `) : sql`1`)
