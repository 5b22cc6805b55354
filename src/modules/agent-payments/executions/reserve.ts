/**
 * An execution judged and reserved in one request to the primary: its inputs read
 * before the write, judged with the same policy engine, then every row it writes (the execution,
 * its audit entry and events, its approval and jobs) sent as one write batch
 * (`Database.writeBatch`, one transaction). The execution's insert carries the judgement's
 * conditions (repo/reserve-conditions.ts, repo/spend.ts): when any no longer holds at the primary,
 * its id is NULL, SQLite refuses the row (NOT NULL), and the batch writes nothing; the caller
 * judges again. The limits' conditions read the running totals of each window (ap_spend_totals),
 * one row each whatever the executions counted, made first when missing; the insert's trigger then
 * adds the execution to them, in the same transaction. Idempotency is the tenant's unique index on
 * the key, as before. The first try does not read what the agent's limits hold: it judges the
 * rest, and the conditions hold the limits; a try after a failed one reads it, so a payment over a
 * limit is judged a refusal.
 *
 * The conditions also hold the agent to its `updated_at`, its wallet (live, same owner and network)
 * and the webhooks the events go to, so reads kept from an earlier execution (read-keep.ts) are
 * as safe as reads made now.
 *
 * A refusal judged before the spend was read, without a mandate (a deny that no spend can take
 * back), is written the same way, as a rejected execution under the same conditions
 * (`rejectInOneBatch`), so it rests on what the primary holds. Other refusals (a deny once the
 * spend was read or under a mandate, no consent of the wallet's owner) go the interactive way
 * (reserve-in-transaction.ts), judged in the write transaction.
 */
import { sql, type SQL } from 'drizzle-orm'
import type { InStatement } from '../../../db/client'
import { readAll } from '../../../db/batch'
import { jobsScheduled, scheduleJobStatement } from '../../../jobs/outbox'
import { newId } from '../../../lib/ids'
import { eventTargetsAsRead, eventTargetsOf, eventTargetsQuery } from '../../webhooks'
import { lookupChain } from '../../tokens'
import { walletAsRead, type WalletRow } from '../../wallets'
import type { Scope } from '../agents/credentials'
import { tenantManagesUserWallets } from '../agents/wallet-consent'
import { changeStatements } from '../changes'
import { judge, policyTimeZone, toUnits, windowOf, type Judgement } from '../policies/policy'
import { spendOf, withMandate } from '../policies/judging'
import * as repo from '../repo'
import type { AgentRow, ApprovalRow, ExecutionRow, MandateRow, MerchantRow, PolicyRow } from '../schema'
import { ENVIRONMENTS, type ExecutionStatus, type Rail } from '../record-types'
import { APPROVAL_EXPIRE_TOPIC } from '../topics'
import { approvalView, executionChangeView } from '../views'
import { watchJob } from './moves'
import type { ReadForJudging } from './reads'
import { confirmationJob } from './pay'

export interface ReserveInput {
  agent: AgentRow
  wallet: WalletRow | undefined
  merchant: MerchantRow | undefined
  mandate: MandateRow | undefined
  amount: string
  currency: string
  rail: Rail
  network: string
  /** the execution row but for what the judgement decides */
  row: Omit<ExecutionRow, 'policyId' | 'policyVersion' | 'status' | 'decision' | 'reasons' | 'completedAt'>
}

/** The SQLite refusal of an execution whose conditions no longer held (its id NULL): nothing of the batch was written. */
export function staleReservation(err: unknown): boolean {
  for (let e = err as { message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (/NOT NULL constraint failed: ap_executions\.id|integer overflow/.test(String(e.message ?? ''))) return true
  }
  return false
}

/**
 * Judges the execution from reads made now and writes it in one batch. Answers the row written,
 * or why it went no further: `refused` (a deny or no consent: the caller judges it in a write
 * transaction), `stale` (the conditions failed at the primary: nothing written).
 */
export async function reserveInOneBatch(
  scope: Scope, input: ReserveInput, now: number, readSpend = true, read?: ReadForJudging,
): Promise<ExecutionRow | 'refused' | 'stale'> {
  const db = scope.deps.database.db
  const { agent, merchant, mandate, row } = input
  const t = scope.tenantId
  const conds: SQL[] = []
  // the wallet owner's consent, as walletConsentRefusal reads it
  const consented = !!input.wallet && agent.walletConsentBy !== null && agent.walletConsentBy === input.wallet.userId
  if (!consented && !tenantManagesUserWallets(scope)) return 'refused'
  conds.push(repo.agentAsRead(t, agent))
  const payTo = merchant?.payToAddress ?? null
  const evm = lookupChain(input.network)?.chain.family === 'evm'
  if (!agent.policyId) return 'refused'
  // read with the agent (reads.ts) when that read's policy is the agent's; else one request to a server for the three (readAll)
  const given = read && read.policy?.id === agent.policyId && (!payTo || read.payees)
  const [policies, merchantsAtPayTo, hooks] = given
    ? [[read.policy], (read.payees ?? []).filter((m) => evm || m.address === payTo), read.hooks]
    : await readAll(scope.deps.database, [
      repo.policyQuery(db, t, agent.policyId),
      repo.merchantsAt(db, t, input.network, payTo ?? '', evm),
      eventTargetsQuery(db, t, [row.environment], 'agent_payments'),
    ])
  // the wallet and the webhooks the events go to, as read (read-keep.ts may have kept them from an earlier execution)
  if (input.wallet) conds.push(walletAsRead(t, input.wallet))
  conds.push(eventTargetsAsRead(t, hooks, given ? [...ENVIRONMENTS] : [row.environment], 'agent_payments'))
  const policy = policies[0]
  if (!policy) return 'refused'
  const payee = payTo ? { address: payTo, merchants: merchantsAtPayTo.map((m) => ({ id: m.id, status: m.status })) } : null
  const targets = eventTargetsOf(hooks, [row.environment], 'agent_payments')
  conds.push(repo.policyAsRead(t, policy))
  if (merchant) conds.push(repo.merchantAsRead(t, merchant))
  if (payee) conds.push(sql`${repo.payeeFingerprint(t, input.network, payee.address, evm)} IS ${repo.payeeFingerprintOf(payee.merchants)}`)
  // the spend is read only when asked (`readSpend`): a judgement without it passes the limits, and the
  // insert's conditions hold them (a limit without room fails the batch; the caller asks again with the spend read)
  const { spent, executionsToday } = readSpend ? await spendOf(db, t, agent.id, policy, now, undefined, scope.deps.database) : { spent: {}, executionsToday: 0 }
  const verdict: Judgement = judge({
    agent, policy, amount: input.amount, currency: input.currency, rail: input.rail, network: input.network, now,
    merchant: merchant && { id: merchant.id, status: merchant.status, category: merchant.category, network: merchant.payToNetwork }, payee, spent, executionsToday,
  })
  let j: Judgement = verdict
  if (mandate) {
    const request = { agentId: agent.id, merchantId: merchant?.id ?? null, merchantCategory: merchant?.category ?? null, amount: input.amount, currency: input.currency, now }
    // the mandate as read with the agent (reads.ts), and its totals: the write batch re-checks both (mandateAsRead, the mandate's windows)
    const mandateRead = read?.mandateTotals && { mandate, totals: read.mandateTotals }
    j = await withMandate(db, t, mandate.id, { ...verdict, policy }, request, undefined, mandateRead)
  }
  if (j.decision === 'deny') {
    // judged without the spend and without a mandate: a deny that stands whatever the spend, written as one batch too
    if (readSpend || mandate) return 'refused'
    return rejectInOneBatch(scope, input, { policy, payee, now, conds, targets })
  }
  // every limit still has room for the amount at the primary, in the running totals of the windows spendOf reads
  const amount = toUnits(input.amount)
  const tz = policyTimeZone(policy)
  const windows = new Map<string, { owner: repo.SpendOwner; w: repo.SpendWindow }>()
  const at = (owner: repo.SpendOwner, w: repo.SpendWindow) => {
    windows.set(`${owner.kind}:${w.start}:${w.end}`, { owner, w })
    return w
  }
  const byAgent: repo.SpendOwner = { kind: 'agent', id: agent.id }
  for (const limit of policy.limits) {
    if (limit.interval === 'per_transaction') continue
    conds.push(repo.totalRoomFor(t, byAgent, at(byAgent, windowOf(limit.interval, now, tz)), amount, toUnits(limit.amount)))
  }
  if (policy.maxExecutionsPerDay != null) conds.push(repo.countBelow(t, byAgent, at(byAgent, windowOf('daily', now, tz)), policy.maxExecutionsPerDay))
  if (mandate) {
    conds.push(repo.mandateAsRead(t, mandate))
    const c = mandate.constraints
    const byMandate: repo.SpendOwner = { kind: 'mandate', id: mandate.id }
    const all = { start: 0, end: null }
    if (c.budget !== undefined) conds.push(repo.totalRoomFor(t, byMandate, at(byMandate, all), amount, toUnits(c.budget)))
    if (c.recurrence) {
      conds.push(repo.countBelow(t, byMandate, at(byMandate, all), c.recurrence.maxOccurrences))
      // none counted since this period began (one payment per period)
      conds.push(repo.countBelow(t, byMandate, at(byMandate, { start: windowOf(c.recurrence.frequency, now, 'UTC').start, end: null }), 1))
    }
    if (mandate.type === 'cart') conds.push(repo.countBelow(t, byMandate, at(byMandate, all), 1))
  }

  const status: ExecutionStatus = j.decision === 'require_approval' ? 'requires_approval' : mandate?.humanPresent ? 'requires_confirmation' : 'processing'
  const r: ExecutionRow = { ...row, policyId: policy.id, policyVersion: policy.version, status, decision: j.decision, reasons: j.reasons, completedAt: null }
  const env = [r.environment]
  const totalRows = [...windows.values()]
  const stmts: InStatement[] = [
    // the windows' rows first (made from the executions when missing; left out when this process saw them made), then the insert whose conditions read them
    ...totalRows.filter(({ owner, w }) => !repo.totalsKnown(t, owner, w)).flatMap(({ owner, w }) => repo.ensureTotalStatements(t, owner, w)),
    repo.insertExecutionStatementIf(db, r, repo.allOf(conds)),
    ...changeStatements(db, scope, { resourceType: 'execution', resourceId: r.id, change: 'created', before: null, after: executionChangeView(r), environments: env }, targets, now),
  ]
  if (status === 'processing') stmts.push(scheduleJobStatement(db, watchJob(t, r.id, now), now))
  if (status === 'requires_confirmation') stmts.push(scheduleJobStatement(db, confirmationJob(scope.deps, t, r.id, now), now))
  if (status === 'requires_approval') {
    const a: ApprovalRow = {
      id: newId(), tenantId: t, executionId: r.id, agentId: r.agentId, status: 'pending', reasons: j.reasons, note: null, decidedBy: null,
      expiresAt: now + scope.deps.config.agentPaymentsApprovalTtlMs, createdAt: now, decidedAt: null,
    }
    stmts.push(repo.insertApprovalStatement(db, a))
    stmts.push(...changeStatements(db, scope, { resourceType: 'approval', resourceId: a.id, change: 'created', before: null, after: approvalView(a), environments: env }, targets, now))
    stmts.push(scheduleJobStatement(db, { id: `ap-approval-expire:${a.id}`, topic: APPROVAL_EXPIRE_TOPIC, tenantId: t, payload: { approvalId: a.id }, runAt: a.expiresAt }, now))
  }
  try {
    await scope.deps.database.writeBatch(stmts)
    repo.rememberTotals(t, totalRows)
  } catch (err) {
    // the next try makes the rows again, in case one was missing
    repo.forgetTotals(t, totalRows)
    if (staleReservation(err)) return 'stale'
    throw err
  }
  jobsScheduled()
  return r
}

/**
 * A refusal judged from reads made before the write (no mandate, the spend not read: every reason
 * but the limits' stands whatever the spend, and those add reasons, never take the deny back),
 * written as one batch: the rejected execution and its audit entry and events, under the same
 * conditions as an accepted one (the agent, wallet, policy version, merchant, payees and webhooks
 * as read), so the refusal rests on what the primary holds. The reasons are judged with the spend
 * read now, as the write transaction would list them. `stale` when a condition failed (nothing written).
 */
async function rejectInOneBatch(
  scope: Scope, input: ReserveInput, x: { policy: PolicyRow; payee: Parameters<typeof judge>[0]['payee']; now: number; conds: SQL[]; targets: ReturnType<typeof eventTargetsOf> },
): Promise<ExecutionRow | 'stale'> {
  const db = scope.deps.database.db
  const { agent, merchant, row } = input
  const { policy, now } = x
  const { spent, executionsToday } = await spendOf(db, scope.tenantId, agent.id, policy, now, undefined, scope.deps.database)
  const j = judge({
    agent, policy, amount: input.amount, currency: input.currency, rail: input.rail, network: input.network, now,
    merchant: merchant && { id: merchant.id, status: merchant.status, category: merchant.category, network: merchant.payToNetwork }, payee: x.payee, spent, executionsToday,
  })
  const r: ExecutionRow = { ...row, policyId: policy.id, policyVersion: policy.version, status: 'rejected', decision: 'deny', reasons: j.reasons, completedAt: now }
  // the rows of the windows spendOf reads made when missing (the agent's next refusal reads them, not its executions)
  const tz = policyTimeZone(policy)
  const byAgent: repo.SpendOwner = { kind: 'agent', id: agent.id }
  const intervals = [...new Set(['daily' as const, ...policy.limits.flatMap((l) => (l.interval === 'per_transaction' ? [] : [l.interval]))])]
  const totalRows = intervals.map((i) => ({ owner: byAgent, w: windowOf(i, now, tz) })).filter(({ w }) => !repo.totalsKnown(scope.tenantId, byAgent, w))
  const stmts: InStatement[] = [
    ...totalRows.flatMap(({ owner, w }) => repo.ensureTotalStatements(scope.tenantId, owner, w)),
    repo.insertExecutionStatementIf(db, r, repo.allOf(x.conds)),
    ...changeStatements(db, scope, { resourceType: 'execution', resourceId: r.id, change: 'created', before: null, after: executionChangeView(r), environments: [r.environment] }, x.targets, now),
  ]
  try {
    await scope.deps.database.writeBatch(stmts)
    repo.rememberTotals(scope.tenantId, totalRows)
  } catch (err) {
    if (staleReservation(err)) return 'stale'
    throw err
  }
  jobsScheduled()
  return r
}
