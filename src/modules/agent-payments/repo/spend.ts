/**
 * What counts against limits: the running totals (ap_spend_totals, kept by triggers on
 * ap_executions; schema.ts) and the scans of the executions that stand behind them (a window's
 * first use, or a total past what SQL adds exactly). An owner is an agent (its policy's windows)
 * or a mandate (its budget, occurrences and recurrence); a window is `[start, end)` of `countedAt`.
 */
import type { InValue } from '@libsql/client'
import { and, eq, gte, inArray, sql, type SQL } from 'drizzle-orm'
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core'
import type { Executor, InStatement } from '../../../db/client'
import { apExecutions, apSpendTotals } from '../schema'
import { COUNTED_STATUSES, type ExecutionStatus } from '../record-types'
import { AMOUNT_LIMBS, MAX_WHOLE_DIGITS, unitsOfLimbs } from './amount-sql'

export interface SpendOwner { kind: 'agent' | 'mandate'; id: string }
export interface SpendWindow { start: number; end: number | null }
/** a window without end, as its row stores it */
export const OPEN_END = Number.MAX_SAFE_INTEGER

const dialect = new SQLiteSyncDialect()
const E9 = 1_000_000_000n
const E18 = E9 * E9
/** a room above this whole part holds any total SQL keeps (the triggers keep wholes at most 4e18) */
const ANY_WHOLE = 5_000_000_000_000_000_000n
const counted = sql.raw(COUNTED_STATUSES.map((s) => `'${s}'`).join(', '))
const countedAt = sql.raw('coalesce(counted_at, created_at)')
const endOf = (w: SpendWindow) => w.end ?? OPEN_END
const ownerCol = (o: SpendOwner) => sql.raw(o.kind === 'agent' ? 'agent_id' : 'mandate_id')
const rowOf = (tenantId: string, o: SpendOwner, w: SpendWindow) =>
  sql`tenant_id = ${tenantId} AND owner_kind = ${o.kind} AND owner_id = ${o.id} AND window_end = ${endOf(w)} AND window_start = ${w.start}`

/**
 * The window's row made from the executions counted in it, when it is not there yet (a write
 * batch sends these before the statements whose conditions read them): inserted empty and marked
 * (overflow -1), then filled from a scan of the executions. The scan runs only for a row so
 * marked, at its first use. Limbs split in 9 digits, so no sum leaves 64 bits.
 */
export function ensureTotalStatements(tenantId: string, o: SpendOwner, w: SpendWindow): InStatement[] {
  const make = sql`INSERT INTO ap_spend_totals (tenant_id, owner_kind, owner_id, window_end, window_start, whole, frac, count, overflow)
    VALUES (${tenantId}, ${o.kind}, ${o.id}, ${endOf(w)}, ${w.start}, 0, 0, 0, -1) ON CONFLICT DO NOTHING`
  const fill = sql`UPDATE ap_spend_totals SET (whole, frac, count, overflow) = (SELECT
      CASE WHEN over THEN 0 ELSE wh * 1000000000 + wlo + (fh + flo / 1000000000) / 1000000000 END,
      CASE WHEN over THEN 0 ELSE ((fh + flo / 1000000000) % 1000000000) * 1000000000 + flo % 1000000000 END, n, over
    FROM (SELECT coalesce(max(wl), 0) > ${MAX_WHOLE_DIGITS} OR coalesce(sum(w / 1000000000), 0) > 3000000000 AS over,
      coalesce(sum(w / 1000000000), 0) AS wh, coalesce(sum(w % 1000000000), 0) AS wlo,
      coalesce(sum(f / 1000000000), 0) AS fh, coalesce(sum(f % 1000000000), 0) AS flo, count(*) AS n
      FROM (SELECT ${AMOUNT_LIMBS} FROM ap_executions WHERE tenant_id = ${tenantId} AND ${ownerCol(o)} = ${o.id} AND status IN (${counted})
        AND ${countedAt} >= ${w.start} AND ${countedAt} < ${endOf(w)})))
    WHERE ${rowOf(tenantId, o, w)} AND overflow = -1`
  return [make, fill].map((q) => {
    const { sql: text, params } = dialect.sqlToQuery(q)
    return { sql: text, args: params as InValue[] }
  })
}

/**
 * The window rows this process has seen made (made or read by a batch that went through): a batch
 * leaves out their making. Rows are never deleted by the service; were one missing all the same,
 * the conditions reading it fail (they ask for the row), the batch writes nothing, and the caller
 * forgets it (`forgetTotals`) and tries again with the making. Bounded: cleared when full.
 */
const known = new Set<string>()
const KNOWN_MAX = 50_000
const keyOf = (tenantId: string, o: SpendOwner, w: SpendWindow) => `${tenantId}\n${o.kind}\n${o.id}\n${w.start}\n${endOf(w)}`
export const totalsKnown = (tenantId: string, o: SpendOwner, w: SpendWindow) => known.has(keyOf(tenantId, o, w))
export function rememberTotals(tenantId: string, rows: Array<{ owner: SpendOwner; w: SpendWindow }>) {
  if (known.size + rows.length > KNOWN_MAX) known.clear()
  for (const r of rows) known.add(keyOf(tenantId, r.owner, r.w))
}
export function forgetTotals(tenantId: string, rows: Array<{ owner: SpendOwner; w: SpendWindow }>) {
  for (const r of rows) known.delete(keyOf(tenantId, r.owner, r.w))
}

/** The window's total, with `units` (1e-18) more, stays at most `max` (units of 1e-18): a condition of a write batch. */
export function totalRoomFor(tenantId: string, o: SpendOwner, w: SpendWindow, units: bigint, max: bigint): SQL {
  const room = max - units
  if (room < 0n) return sql`0`
  const rw = room / E18
  const fits = rw >= ANY_WHOLE ? sql`1` : sql`(whole < ${rw} OR (whole = ${rw} AND frac <= ${room % E18}))`
  return sql`EXISTS (SELECT 1 FROM ap_spend_totals WHERE ${rowOf(tenantId, o, w)} AND overflow = 0 AND ${fits})`
}

/** Fewer than `n` executions count in the window: a condition of a write batch. */
export const countBelow = (tenantId: string, o: SpendOwner, w: SpendWindow, n: number): SQL =>
  sql`EXISTS (SELECT 1 FROM ap_spend_totals WHERE ${rowOf(tenantId, o, w)} AND count < ${n})`

/** `readTotals`' read as a query, to send with other reads (`readAll`): the owner's rows of the windows ending where `windows` end. */
export const totalsQuery = (db: Executor, tenantId: string, o: SpendOwner, windows: SpendWindow[]) => db.select({
  start: apSpendTotals.windowStart, end: apSpendTotals.windowEnd, overflow: apSpendTotals.overflow, count: apSpendTotals.count,
  whole: sql<string>`CAST(${apSpendTotals.whole} AS TEXT)`, frac: sql<string>`CAST(${apSpendTotals.frac} AS TEXT)`,
}).from(apSpendTotals).where(and(
  eq(apSpendTotals.tenantId, tenantId), eq(apSpendTotals.ownerKind, o.kind), eq(apSpendTotals.ownerId, o.id),
  inArray(apSpendTotals.windowEnd, [...new Set(windows.map(endOf))]),
))

export type TotalsRow = Awaited<ReturnType<typeof totalsQuery>>[number]

/** Each window's total from `totalsQuery`'s rows (units of 1e-18, how many), or null where its row is missing or past exact sums. */
export function totalsOf(rows: TotalsRow[], windows: SpendWindow[]): Array<{ units: bigint; count: number } | null> {
  return windows.map((w) => {
    const r = rows.find((x) => x.start === w.start && x.end === endOf(w))
    return r && !r.overflow ? { units: BigInt(r.whole) * E18 + BigInt(r.frac), count: Number(r.count) } : null
  })
}

/** Each window's total (units of 1e-18, how many), or null where its row is missing or past exact sums (count from the executions). */
export async function readTotals(db: Executor, tenantId: string, o: SpendOwner, windows: SpendWindow[]): Promise<Array<{ units: bigint; count: number } | null>> {
  return totalsOf(await totalsQuery(db, tenantId, o, windows), windows)
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

