/**
 * Judge and reserve: inside a write transaction, what the agent has reserved or paid in each
 * window of its policy (executions `processing`, `succeeded`, `refunded`, `partially_refunded`),
 * then the policy engine. The caller inserts or moves the execution in the same transaction,
 * so concurrent executions cannot together pass a limit (the write transactions are serial:
 * BEGIN IMMEDIATE).
 */
import type { Executor } from '../../db/client'
import { judge, policyTimeZone, toUnits, fromUnits, windowOf, WINDOW_INTERVALS, type Judgement, type WindowInterval } from './policy'
import { judgeMandate, type MandatePaymentRequest } from './mandate-check'
import * as repo from './repo'
import type { AgentRow, MerchantRow, PolicyRow } from './schema'
import type { Rail } from './record-types'

export interface Spend { spent: Partial<Record<WindowInterval, string>>; executionsToday: number }

/** What the agent reserved or paid in each window of the policy that contains `now`, and how many today. */
export async function spendOf(db: Executor, tenantId: string, agentId: string, policy: PolicyRow, now: number, excludeId?: string): Promise<Spend> {
  const tz = policyTimeZone(policy)
  const day = windowOf('daily', now, tz)
  const intervals = WINDOW_INTERVALS.filter((i) => policy.limits.some((l) => l.interval === i))
  const starts = new Map(intervals.map((i) => [i, windowOf(i, now, tz)] as const))
  const since = Math.min(day.start, ...[...starts.values()].map((w) => w.start))
  const rows = (await repo.countedExecutions(db, tenantId, agentId, since)).filter((r) => r.id !== excludeId)
  const spent: Spend['spent'] = {}
  for (const [i, w] of starts) {
    spent[i] = fromUnits(rows.filter((r) => r.createdAt >= w.start && (w.end === null || r.createdAt < w.end)).reduce((s, r) => s + toUnits(r.amount), 0n))
  }
  const executionsToday = rows.filter((r) => r.createdAt >= day.start && (day.end === null || r.createdAt < day.end)).length
  return { spent, executionsToday }
}

export interface Judged extends Judgement { policy: PolicyRow | undefined }

export async function judgeIn(db: Executor, tenantId: string, input: {
  agent: AgentRow; merchant: MerchantRow | undefined; amount: string; currency: string; rail: Rail; network: string | null; now: number; excludeId?: string
}): Promise<Judged> {
  const policy = input.agent.policyId ? await repo.findPolicy(db, tenantId, input.agent.policyId) : undefined
  if (!policy) return { decision: 'deny', reasons: [{ code: 'POLICY_MISSING', message: 'The agent has no policy: it cannot pay' }], policy }
  const { spent, executionsToday } = await spendOf(db, tenantId, input.agent.id, policy, input.now, input.excludeId)
  const m = input.merchant
  const verdict = judge({
    agent: input.agent, policy, amount: input.amount, currency: input.currency, rail: input.rail, network: input.network, now: input.now,
    merchant: m && { id: m.id, status: m.status, category: m.category, network: m.payToNetwork }, spent, executionsToday,
  })
  return { ...verdict, policy }
}

/**
 * The mandate's judgement joined to the policy's, read in the reserving transaction: the
 * mandate as it is now and what its counted executions used (so concurrent executions under
 * one cart mandate cannot both pass). A mandate that refuses denies, with its reasons first.
 */
export async function withMandate(tx: Executor, tenantId: string, mandateId: string, policy: Judged, req: Omit<MandatePaymentRequest, 'spentUnderMandate' | 'occurrencesUsed' | 'lastPaymentAt'>): Promise<Judged> {
  const mandate = (await repo.findMandate(tx, tenantId, mandateId))!
  const used = await repo.mandateExecutions(tx, tenantId, mandateId)
  const spent = used.reduce((sum, e) => sum + toUnits(e.amount), 0n)
  const m = judgeMandate(mandate, { ...req, spentUnderMandate: fromUnits(spent), occurrencesUsed: used.length, lastPaymentAt: used.length ? Math.max(...used.map((e) => e.createdAt)) : null })
  if (m.ok) return policy
  const refused = m.reasons.map((code) => ({ code, message: `The mandate refuses this payment (${code})` }))
  return { ...policy, decision: 'deny', reasons: [...refused, ...policy.reasons] }
}
