/**
 * The conditions an execution's insert carries when it is written as one batch (reserve.ts):
 * SQL that holds at the primary, in the batch's own transaction, exactly when the judgement made
 * from reads before the batch still stands. The rows judged are unchanged (the agent, its policy's
 * version, the merchant, the merchants at the payee's address, the mandate), and every limit still
 * has room for the amount, summed in SQL over the executions counted in its window now.
 *
 * Amounts are summed exactly as integer limbs (amount-sql.ts), carried and compared with the room
 * left (`max - amount`, as the same limbs). A whole part longer than 15 digits fails the condition
 * (the sum could leave 64 bits): the write then goes the interactive way, judged in JavaScript.
 */
import { sql, type SQL } from 'drizzle-orm'
import { COUNTED_STATUSES } from '../record-types'
import { AMOUNT_LIMBS, MAX_WHOLE_DIGITS } from '../amount-sql'

const E9 = 1_000_000_000n
const E18 = E9 * E9
/** above this whole part, the room is taken as this (a sum past it fails the condition: the interactive way decides) */
const MAX_WHOLE = 4_000_000_000_000_000_000n

const counted = sql.raw(COUNTED_STATUSES.map((s) => `'${s}'`).join(', '))
export const countedAtSql = sql.raw('coalesce(counted_at, created_at)')

/** The counted executions matching `where` (a condition on ap_executions' columns) sum to at most `room` (units of 1e-18, >= 0). */
export function sumAtMost(where: SQL, room: bigint): SQL {
  const r = room > MAX_WHOLE * E18 ? MAX_WHOLE * E18 : room
  const rw = r / E18
  const rh = (r % E18) / E9
  const rl = r % E9
  return sql`(SELECT CASE WHEN m > ${MAX_WHOLE_DIGITS} THEN 0 WHEN w2 < ${rw} THEN 1 WHEN w2 > ${rw} THEN 0 WHEN h2 < ${rh} THEN 1 WHEN h2 > ${rh} THEN 0 ELSE l2 <= ${rl} END
    FROM (SELECT m, w + (h + l / 1000000000) / 1000000000 AS w2, (h + l / 1000000000) % 1000000000 AS h2, l % 1000000000 AS l2
      FROM (SELECT coalesce(sum(w), 0) AS w, coalesce(sum(h), 0) AS h, coalesce(sum(l), 0) AS l, coalesce(max(wl), 0) AS m
        FROM (SELECT ${AMOUNT_LIMBS} FROM ap_executions WHERE status IN (${counted}) AND ${where})))) = 1`
}

/** How many counted executions match `where`. */
export const countOf = (where: SQL) => sql`(SELECT count(*) FROM ap_executions WHERE status IN (${counted}) AND ${where})`

/** The latest `countedAt` of the counted executions matching `where`, or -1. */
export const lastCountedAt = (where: SQL) => sql`(SELECT coalesce(max(${countedAtSql}), -1) FROM ap_executions WHERE status IN (${counted}) AND ${where})`

/** An agent's counted executions in a window (`end` null: no end). */
export function agentWindow(tenantId: string, agentId: string, start: number, end: number | null): SQL {
  const upTo = end === null ? sql`` : sql` AND ${countedAtSql} < ${end}`
  return sql`tenant_id = ${tenantId} AND agent_id = ${agentId} AND ${countedAtSql} >= ${start}${upTo}`
}

/** A mandate's counted executions. */
export const mandateRows = (tenantId: string, mandateId: string) => sql`tenant_id = ${tenantId} AND mandate_id = ${mandateId}`

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
