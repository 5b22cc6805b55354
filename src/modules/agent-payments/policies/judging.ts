/**
 * Judge and reserve: inside a write transaction, what counts against each window of the
 * agent's policy (executions waiting for an approval or a confirmation, `processing`,
 * `succeeded`, `refunded`, `partially_refunded`), then the policy engine. The caller inserts or
 * moves the execution in the same transaction, setting its `countedAt` to the `now` it was
 * judged at, so concurrent executions cannot together pass a limit (the write transactions are
 * serial: BEGIN IMMEDIATE) and an execution counts in the windows it was judged in.
 */
import { readAll } from '../../../db/batch'
import type { Database, Executor } from '../../../db/client'
import { lookupChain } from '../../tokens'
import { judge, policyTimeZone, toUnits, fromUnits, windowOf, WINDOW_INTERVALS, type Judgement, type WindowInterval } from './policy'
import { judgeMandate, type MandatePaymentRequest } from '../mandates/mandate-check'
import type { Payee } from './payees'
import * as repo from '../repo'
import type { AgentRow, ExecutionRow, MandateRow, MerchantRow, PolicyRow } from '../schema'
import { COUNTED_STATUSES, type Rail } from '../record-types'

type Reads = Pick<Database, 'db' | 'mode' | 'readBatch'>

export interface Spend { spent: Partial<Record<WindowInterval, string>>; executionsToday: number }
/** An execution judged again: what it holds itself is left out of the totals. */
export type Judged0 = Pick<ExecutionRow, 'id' | 'amount' | 'status' | 'countedAt' | 'createdAt'>

/** What `exclude` holds in window `w` (it counts there): its units and 1, else 0 and 0. */
function heldBy(exclude: Judged0 | undefined, w: { start: number; end: number | null }): { units: bigint; count: number } {
  if (!exclude || !COUNTED_STATUSES.includes(exclude.status)) return { units: 0n, count: 0 }
  const at = exclude.countedAt ?? exclude.createdAt
  return at >= w.start && (w.end === null || at < w.end) ? { units: toUnits(exclude.amount), count: 1 } : { units: 0n, count: 0 }
}

/**
 * What counts in each window of the policy that contains `now` (by each execution's `countedAt`),
 * and how many today: the windows' running totals (repo/spend.ts), one row each; counted from the
 * executions where a window has no row yet (its first use) or its total is past exact SQL sums.
 */
export async function spendOf(db: Executor, tenantId: string, agentId: string, policy: PolicyRow, now: number, exclude?: Judged0, grouped?: Reads): Promise<Spend> {
  const tz = policyTimeZone(policy)
  const day = windowOf('daily', now, tz)
  const intervals = WINDOW_INTERVALS.filter((i) => policy.limits.some((l) => l.interval === i))
  const starts = new Map(intervals.map((i) => [i, windowOf(i, now, tz)] as const))
  const windows = [day, ...starts.values()]
  // `grouped`: read through `readAll` (on a server, with the process's concurrent read batches as one request)
  const owner = { kind: 'agent' as const, id: agentId }
  const totals = grouped ? repo.totalsOf((await readAll(grouped, [repo.totalsQuery(db, tenantId, owner, windows)]))[0], windows) : await repo.readTotals(db, tenantId, owner, windows)
  const summed = totals.every((x) => x !== null)
    ? totals.map((x, k) => ({ units: x!.units - heldBy(exclude, windows[k]!).units, count: x!.count - heldBy(exclude, windows[k]!).count }))
    // summed in SQL: one row back, however many executions count
    : await repo.countedSums(db, tenantId, agentId, windows, exclude?.id).catch((err: unknown) => {
      if (/integer overflow/.test(String((err as { cause?: { message?: string } })?.cause?.message ?? (err as Error)?.message))) return null
      throw err
    })
  if (summed) {
    const spent: Spend['spent'] = {}
    ;[...starts.keys()].forEach((i, k) => { spent[i] = fromUnits(summed[k + 1]!.units) })
    return { spent, executionsToday: summed[0]!.count }
  }
  const since = Math.min(day.start, ...[...starts.values()].map((w) => w.start))
  const rows = (await repo.countedExecutions(db, tenantId, agentId, since)).filter((r) => r.id !== exclude?.id)
  const within = (w: { start: number; end: number | null }) => rows.filter((r) => r.countedAt >= w.start && (w.end === null || r.countedAt < w.end))
  const spent: Spend['spent'] = {}
  for (const [i, w] of starts) spent[i] = fromUnits(within(w).reduce((s, r) => s + toUnits(r.amount), 0n))
  return { spent, executionsToday: within(day).length }
}

/** The payee at `address` on `network`: the tenant's merchants registered there (payees.ts). */
export async function payeeAt(db: Executor, tenantId: string, network: string, address: string): Promise<Payee> {
  const evm = lookupChain(network)?.chain.family === 'evm'
  const merchants = await repo.merchantsAt(db, tenantId, network, address, evm)
  return { address, merchants: merchants.map((m) => ({ id: m.id, status: m.status })) }
}

export interface Judged extends Judgement { policy: PolicyRow | undefined }

export async function judgeIn(db: Executor, tenantId: string, input: {
  agent: AgentRow; merchant: MerchantRow | undefined; amount: string; currency: string; rail: Rail; network: string | null; now: number; exclude?: Judged0
  /** the address paid when known (the merchant's payTo, or an x402 payTo once asked); judged with the merchants registered at it */
  payTo?: string | null
}): Promise<Judged> {
  const policy = input.agent.policyId ? await repo.findPolicy(db, tenantId, input.agent.policyId) : undefined
  if (!policy) return { decision: 'deny', reasons: [{ code: 'POLICY_MISSING', message: 'The agent has no policy: it cannot pay' }], policy }
  const { spent, executionsToday } = await spendOf(db, tenantId, input.agent.id, policy, input.now, input.exclude)
  const m = input.merchant
  const payTo = input.payTo ?? m?.payToAddress ?? null
  const network = input.network ?? m?.payToNetwork ?? null
  const payee = payTo && network ? await payeeAt(db, tenantId, network, payTo) : null
  const verdict = judge({
    agent: input.agent, policy, amount: input.amount, currency: input.currency, rail: input.rail, network: input.network, now: input.now,
    merchant: m && { id: m.id, status: m.status, category: m.category, network: m.payToNetwork }, payee, spent, executionsToday,
  })
  return { ...verdict, policy }
}

/**
 * The mandate's judgement joined to the policy's, read in the reserving transaction: the
 * mandate as it is now and what its counted executions use (waiting ones too, `exclude` the
 * one judged again), so concurrent executions under one mandate cannot together pass its budget.
 * Read from the mandate's running totals (all time, and this period for a recurring one), from
 * its executions where a total has no row yet. A mandate that refuses denies, with its reasons first.
 */
export async function withMandate(
  tx: Executor, tenantId: string, mandateId: string, policy: Judged, req: Omit<MandatePaymentRequest,
  'spentUnderMandate' | 'occurrencesUsed' | 'lastPaymentAt'>, exclude?: Judged0, read?: { mandate: MandateRow; totals: repo.TotalsRow[] },
): Promise<Judged> {
  // `read`: the mandate and its open-ended totals read already (with the execution's other reads), each re-checked by the write batch
  const mandate = read?.mandate ?? (await repo.findMandate(tx, tenantId, mandateId))!
  const r = mandate.constraints.recurrence
  const all = { start: 0, end: null }
  const period = r ? { start: windowOf(r.frequency, req.now, 'UTC').start, end: null } : undefined
  const windows = period ? [all, period] : [all]
  const [total, inPeriod] = read ? repo.totalsOf(read.totals, windows) : await repo.readTotals(tx, tenantId, { kind: 'mandate', id: mandateId }, windows)
  let usage: Pick<MandatePaymentRequest, 'spentUnderMandate' | 'occurrencesUsed' | 'lastPaymentAt'>
  if (total && (!period || inPeriod)) {
    const held = heldBy(exclude, all)
    // a payment counted in this period stands for the latest one: judgeMandate asks only whether it is in the period
    const paidInPeriod = period && inPeriod!.count - heldBy(exclude, period).count > 0
    usage = { spentUnderMandate: fromUnits(total.units - held.units), occurrencesUsed: total.count - held.count, lastPaymentAt: paidInPeriod ? period.start : null }
  } else {
    const used = (await repo.mandateExecutions(tx, tenantId, mandateId)).filter((e) => e.id !== exclude?.id)
    const spent = used.reduce((sum, e) => sum + toUnits(e.amount), 0n)
    usage = { spentUnderMandate: fromUnits(spent), occurrencesUsed: used.length, lastPaymentAt: used.length ? Math.max(...used.map((e) => e.countedAt)) : null }
  }
  const m = judgeMandate(mandate, { ...req, ...usage })
  if (m.ok) return policy
  const refused = m.reasons.map((code) => ({ code, message: `The mandate refuses this payment (${code})` }))
  return { ...policy, decision: 'deny', reasons: [...refused, ...policy.reasons] }
}

/**
 * A waiting execution judged again when it is approved or confirmed: in the windows containing
 * `now`, its own waiting amount left out (it held it where it was judged before), and under its
 * mandate with what the others under it hold. The caller counts it at `now` from then on.
 */
export async function judgeAgain(tx: Executor, tenantId: string, row: ExecutionRow, now: number): Promise<Judged> {
  const agent = (await repo.findAgent(tx, tenantId, row.agentId))!
  const merchant = row.merchantId ? await repo.findMerchant(tx, tenantId, row.merchantId) : undefined
  const { amount, currency, rail, network } = row
  const j = await judgeIn(tx, tenantId, { agent, merchant, amount, currency, rail, network, payTo: row.payToAddress, now, exclude: row })
  if (!row.mandateId) return j
  const request = { agentId: row.agentId, merchantId: row.merchantId, merchantCategory: merchant?.category ?? null, amount, currency, now }
  return withMandate(tx, tenantId, row.mandateId, j, request, row)
}
