/**
 * What the paymaster may sign, decided in the write that records it. `reserveSponsorship` runs
 * inside the caller's write transaction (writers are serialised across processes), so
 * concurrent operations can never together pass a limit: it reads the tenant's policy for the
 * network, checks the operation's kind (and, for dApp calls, every call against the allowlist),
 * its maximum cost against the per-operation maximum, the user's UTC day and the tenant's UTC
 * month, in wei and in USD (at the price adapter's rate for the native coin, read before the
 * write and recorded beside the usage), then records the sponsorship and adds its maximum cost
 * to the running totals. The
 * operation's outcome later replaces the maximum by what it cost (`settleSponsorship`) or
 * takes it off (`releaseSponsorship`: it was never executed).
 */
import type { Tx } from '../../db/client'
import { newId } from '../../lib/ids'
import { costAboveLimit, costAboveLimitUsd, delegationPending, GasLimitReached, notSponsored, policyOff, priceUnavailable } from './errors'
import { formatUsd, parseUsd, weiToUsd } from './usd'
import { addToCounter, closeSponsorship, findOpenOfSender, findPolicy, findSponsorship, insertSponsorship, readCounter } from './repo'
import { scheduleSettle } from './settle-schedule'
import type { GasOperationKind, GasPolicyRow, SponsorshipRow } from './schema'

const DAY_MS = 86_400_000

export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)
export const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7)
const nextMonthStart = (ms: number) => {
  const d = new Date(ms)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
}

export interface SponsorRequest {
  tenantId: string
  userId: string
  /** registry id of the network */
  network: string
  sender: string
  kind: GasOperationKind
  /** the calls of a dApp operation, checked against the allowlist */
  calls?: Array<{ to: string; data: string }>
  maxCost: bigint
  nonce: bigint
  source: 'custodial' | 'erc7677'
  userOpHash: string | null
  /** Unix s */
  validUntil: number
  transactionId?: string | null
  /**
   * USD per whole native coin (the price adapter's, read before the write: `usdRateFor`), recorded
   * with the sponsorship; required where the policy has a USD limit, else 503 GAS_PRICE_UNAVAILABLE
   */
  usdRate?: { usd: string; asOf: number } | null
  /**
   * It carries the sender's EIP-7702 authorization (its first operation): refused with 409
   * GAS_DELEGATION_PENDING while another sponsored operation of the sender is still open, as
   * bundlers take one delegating operation per sender and the second could never run.
   */
  delegates?: boolean
  /** nothing else follows its outcome until it is sent (an MPC wallet's prepared operation): the settle job looks at it (settle.ts) */
  watch?: boolean
}

/** Throws unless the policy covers the kind and, for dApp calls, every call is allowlisted. */
export function checkCovered(policy: GasPolicyRow | undefined, network: string, kind: GasOperationKind, calls: SponsorRequest['calls']) {
  if (!policy || !policy.enabled) throw policyOff(network)
  if (!policy.operations.includes(kind)) throw notSponsored(`${kind} operations are not sponsored on ${network}`)
  if (kind !== 'dapp') return policy
  for (const c of calls ?? []) {
    const allowed = policy.allowlist.find((a) => a.contract === c.to.toLowerCase())
    const selector = c.data.slice(0, 10).toLowerCase()
    if (!allowed) throw notSponsored(`${c.to} is not on the policy's allowlist`)
    if (allowed.selectors.length && !allowed.selectors.includes(selector)) throw notSponsored(`selector ${selector} of ${c.to} is not on the policy's allowlist`)
  }
  return policy
}

const counters = (r: { tenantId: string; network: string; userId: string }, now: number) => ({
  userDay: { tenantId: r.tenantId, network: r.network, scope: `user:${r.userId}`, period: dayOf(now) },
  userMonth: { tenantId: r.tenantId, network: r.network, scope: `user:${r.userId}`, period: monthOf(now) },
  tenantDay: { tenantId: r.tenantId, network: r.network, scope: 'tenant', period: dayOf(now) },
  tenantMonth: { tenantId: r.tenantId, network: r.network, scope: 'tenant', period: monthOf(now) },
})

/** One limit of the policy against what is counted, in wei and in USD (atto-USD): why it is passed, or null. */
function within(used: { totalWei: bigint; totalUsd: bigint }, cost: { wei: bigint; usd: bigint | null }, limits: { wei: string | null; usd: string | null }) {
  if (limits.wei !== null && used.totalWei + cost.wei > BigInt(limits.wei)) return `${used.totalWei} of ${limits.wei} wei used; this operation may cost ${cost.wei}`
  if (limits.usd !== null && used.totalUsd + cost.usd! > parseUsd(limits.usd)) {
    return `${formatUsd(used.totalUsd)} of ${limits.usd} USD used; this operation may cost ${formatUsd(cost.usd!)} USD`
  }
  return null
}

/**
 * Inside the caller's write: checks the policy and the limits (in wei and, where the policy sets
 * them, in USD at `r.usdRate`), records the sponsorship with its rate and counts its maximum.
 */
export async function reserveSponsorship(tx: Tx, r: SponsorRequest, now: number): Promise<SponsorshipRow> {
  const policy = checkCovered(await findPolicy(tx, r.tenantId, r.network), r.network, r.kind, r.calls)
  const rate = r.usdRate ? parseUsd(r.usdRate.usd) : null
  const maxUsd = rate !== null ? weiToUsd(r.maxCost, rate) : null
  if (maxUsd === null && (policy.userDailyLimitUsd !== null || policy.tenantMonthlyBudgetUsd !== null || policy.maxPerOperationUsd !== null)) throw priceUnavailable(r.network)
  if (policy.maxPerOperationWei !== null && r.maxCost > BigInt(policy.maxPerOperationWei)) throw costAboveLimit(r.maxCost, BigInt(policy.maxPerOperationWei))
  if (policy.maxPerOperationUsd !== null && maxUsd! > parseUsd(policy.maxPerOperationUsd)) throw costAboveLimitUsd(formatUsd(maxUsd!), policy.maxPerOperationUsd)
  if (r.delegates) {
    const open = await findOpenOfSender(tx, r.tenantId, r.network, r.sender.toLowerCase())
    if (open) throw delegationPending(r.network, open.transactionId)
  }
  const c = counters(r, now)
  const cost = { wei: r.maxCost, usd: maxUsd }
  const day = within(await readCounter(tx, c.userDay), cost, { wei: policy.userDailyLimitWei, usd: policy.userDailyLimitUsd })
  if (day) {
    const retry = Math.ceil((Math.floor(now / DAY_MS) * DAY_MS + DAY_MS - now) / 1000)
    throw new GasLimitReached(retry, `The user's daily gas sponsorship on ${r.network} is used up (${day}): it resumes at 00:00 UTC`, 'GAS_USER_DAILY_LIMIT')
  }
  const month = within(await readCounter(tx, c.tenantMonth), cost, { wei: policy.tenantMonthlyBudgetWei, usd: policy.tenantMonthlyBudgetUsd })
  if (month) {
    const retry = Math.ceil((nextMonthStart(now) - now) / 1000)
    throw new GasLimitReached(retry, `The tenant's monthly gas sponsorship budget on ${r.network} is used up (${month}): it resumes on the 1st (UTC)`, 'GAS_TENANT_MONTHLY_BUDGET')
  }
  const row: SponsorshipRow = {
    id: newId(), tenantId: r.tenantId, userId: r.userId, network: r.network, sender: r.sender.toLowerCase(), kind: r.kind, source: r.source,
    userOpHash: r.userOpHash, nonce: r.nonce.toString(), maxCostWei: r.maxCost.toString(), actualCostWei: null,
    usdRate: r.usdRate && rate !== null ? formatUsd(rate) : null, usdRateAsOf: r.usdRate?.asOf ?? null, maxCostUsd: maxUsd !== null ? formatUsd(maxUsd) : null, actualCostUsd: null,
    status: 'reserved', day: dayOf(now), month: monthOf(now), validUntil: r.validUntil, transactionId: r.transactionId ?? null, createdAt: now, updatedAt: now,
  }
  await insertSponsorship(tx, row)
  for (const k of Object.values(c)) await addToCounter(tx, k, { wei: r.maxCost, usd: maxUsd ?? 0n, operations: 1 }, now)
  if (r.watch) await scheduleSettle(tx, r.tenantId, row.id, now)
  return row
}

/** The periods a sponsorship counted in (those of its signature, not of now). */
function countersOfRow(s: SponsorshipRow) {
  const at = Date.parse(`${s.day}T00:00:00Z`)
  return counters(s, at)
}

/** It ran and cost `actualCost` (wei): the totals count that (and its USD at the recorded rate) instead of its maximum. False when it had an outcome already. */
export async function settleSponsorship(tx: Tx, tenantId: string, id: string, actualCost: bigint, now: number): Promise<boolean> {
  const s = await findSponsorship(tx, tenantId, id)
  const actualUsd = s?.usdRate ? weiToUsd(actualCost, parseUsd(s.usdRate)) : null
  const to = { status: 'settled' as const, actualCostWei: actualCost.toString(), actualCostUsd: actualUsd !== null ? formatUsd(actualUsd) : null, updatedAt: now }
  if (!s || !(await closeSponsorship(tx, tenantId, id, to))) return false
  const usd = actualUsd !== null && s.maxCostUsd !== null ? actualUsd - parseUsd(s.maxCostUsd) : 0n
  for (const k of Object.values(countersOfRow(s))) await addToCounter(tx, k, { wei: actualCost - BigInt(s.maxCostWei), usd, operations: 0 }, now)
  return true
}

/** It never ran (refused by the bundler, dropped and failed, expired unused): the totals drop it. */
export async function releaseSponsorship(tx: Tx, tenantId: string, id: string, now: number): Promise<boolean> {
  const s = await findSponsorship(tx, tenantId, id)
  if (!s || !(await closeSponsorship(tx, tenantId, id, { status: 'released', actualCostWei: null, actualCostUsd: null, updatedAt: now }))) return false
  const usd = s.maxCostUsd !== null ? -parseUsd(s.maxCostUsd) : 0n
  for (const k of Object.values(countersOfRow(s))) await addToCounter(tx, k, { wei: -BigInt(s.maxCostWei), usd, operations: -1 }, now)
  return true
}
