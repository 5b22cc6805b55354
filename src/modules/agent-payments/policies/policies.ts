/** Policies (routes 11-16): the spending rules that judge an agent's payments (policy.ts). */
import { BadRequestError, ConflictError, NotFoundError, refusedField } from '../../../lib/errors'
import { iso } from '../../../lib/clock'
import { newId } from '../../../lib/ids'
import { lookupChain } from '../../tokens'
import { visibleAgent } from '../agents/agents'
import { BOTH_ENVIRONMENTS, recordChange } from '../changes'
import type { Scope } from '../agents/credentials'
import { visibleMerchant } from '../merchants/merchants'
import type { CreatePolicy, SimulateBody, UpdatePolicy } from './policy-model'
import { isTimeZone, judge, minutesOf, toUnits } from './policy'
import { payeeAt } from './judging'
import * as repo from '../repo'
import type { PolicyRow } from '../schema'
import { policyView } from '../views'
import { prose } from '../../../http/prose'

const policyNotFound = () => new NotFoundError('Policy not found')
/** 400 POLICY_INVALID, the field at fault in \`details\` as one validation issue. */
const invalid = (message: string, path: string, params: Record<string, unknown> = {}) => refusedField(message, path, params, 'POLICY_INVALID')

async function visiblePolicy(scope: Scope, policyId: string): Promise<PolicyRow> {
  const row = await repo.findPolicy(scope.deps.database.db, scope.tenantId, policyId)
  if (!row) throw policyNotFound()
  return row
}

type PolicyFields = Omit<PolicyRow, 'id' | 'tenantId' | 'version' | 'createdAt' | 'updatedAt' | 'deletedAt'>

/** What the schema cannot say: one limit per interval, amounts above 0, a threshold exactly with `threshold`, known networks, zones and merchants. */
async function checkPolicy(scope: Scope, p: PolicyFields) {
  const seen = new Set<string>()
  for (const l of p.limits) {
    if (seen.has(l.interval)) throw invalid(`The ${l.interval} limit is given twice`, '/limits', { interval: l.interval })
    seen.add(l.interval)
    if (toUnits(l.amount) === 0n) throw invalid(`The ${l.interval} limit must be more than 0`, '/limits', { interval: l.interval })
  }
  if (p.approvalMode === 'threshold' && p.approvalThreshold === null) throw invalid('approvalMode threshold needs approvalThreshold', '/approvalThreshold')
  if (p.approvalMode !== 'threshold' && p.approvalThreshold !== null) throw invalid('approvalThreshold applies only with approvalMode threshold', '/approvalThreshold')
  const unknownNetworks = (p.allowedNetworks ?? []).filter((n) => lookupChain(n)?.network.id !== n)
  if (unknownNetworks.length) throw invalid(`Unknown networks: ${unknownNetworks.join(', ')}`, '/allowedNetworks', { networks: unknownNetworks })
  if (p.activeHours) {
    // an IANA zone only: `Intl` also takes offsets (`-00:05`), which would put the policy's midnight at any minute
    if (!isTimeZone(p.activeHours.timeZone)) throw invalid(prose`
      activeHours.timeZone must be an IANA time zone name such as Europe/Berlin or UTC, not an offset or
      an unknown zone: ${p.activeHours.timeZone}`, '/activeHours/timeZone', { timeZone: p.activeHours.timeZone })
    if (minutesOf(p.activeHours.end) <= minutesOf(p.activeHours.start)) throw invalid('activeHours.end must be after activeHours.start (no window across midnight)', '/activeHours/end')
  }
  if (p.allowUnregisteredPayees === true && (p.allowedMerchantIds?.length || p.allowedCategories?.length)) {
    throw invalid('allowUnregisteredPayees cannot be true with allowedMerchantIds or allowedCategories: those allow only registered merchants', '/allowUnregisteredPayees')
  }
  const both = (p.allowedMerchantIds ?? []).filter((id) => p.blockedMerchantIds?.includes(id))
  if (both.length) throw invalid('A merchant is both allowed and blocked', '/blockedMerchantIds', { merchantIds: both })
  const named = [...new Set([...(p.allowedMerchantIds ?? []), ...(p.blockedMerchantIds ?? [])])]
  const known = await repo.existingMerchantIds(scope.deps.database.db, scope.tenantId, named)
  const unknown = named.filter((id) => !known.has(id))
  // another tenant's merchant is as unknown as a made-up id
  if (unknown.length) throw invalid('Unknown merchants', (p.allowedMerchantIds ?? []).some((id) => unknown.includes(id)) ? '/allowedMerchantIds' : '/blockedMerchantIds', { merchantIds: unknown })
}

export async function createPolicy(scope: Scope, input: CreatePolicy) {
  const fields: PolicyFields = {
    name: input.name, currency: input.currency, limits: input.limits,
    allowedMerchantIds: input.allowedMerchantIds ?? null, blockedMerchantIds: input.blockedMerchantIds ?? null,
    allowedCategories: input.allowedCategories ?? null, allowedRails: input.allowedRails ?? null, allowedNetworks: input.allowedNetworks ?? null,
    approvalMode: input.approvalMode ?? 'auto', approvalThreshold: input.approvalThreshold ?? null,
    maxExecutionsPerDay: input.maxExecutionsPerDay ?? null, activeHours: input.activeHours ?? null,
    allowUnregisteredPayees: input.allowUnregisteredPayees ?? null,
  }
  await checkPolicy(scope, fields)
  const now = scope.deps.clock.now()
  const row: PolicyRow = { id: newId(), tenantId: scope.tenantId, ...fields, version: 1, createdAt: now, updatedAt: now, deletedAt: null }
  await scope.deps.database.write(async (tx) => {
    await repo.insertPolicy(tx, row)
    await recordChange(tx, scope, { resourceType: 'policy', resourceId: row.id, change: 'created', before: null, after: policyView(row), environments: BOTH_ENVIRONMENTS }, now)
  })
  return policyView(row)
}

export async function listPolicies(scope: Scope, q: { limit?: number; offset?: number }) {
  const { rows, total } = await repo.listPolicies(scope.deps.database.db, scope.tenantId, { limit: q.limit ?? 50, offset: q.offset ?? 0 })
  return { data: rows.map(policyView), total }
}

export async function getPolicy(scope: Scope, policyId: string) {
  return policyView(await visiblePolicy(scope, policyId))
}

/** Any change of the rules makes a new version (+ 1); a PATCH that changes nothing answers the policy unchanged. */
export async function updatePolicy(scope: Scope, policyId: string, input: UpdatePolicy) {
  const before = await visiblePolicy(scope, policyId)
  const changes: Partial<PolicyFields> = {}
  for (const [k, v] of Object.entries(input)) if (v !== undefined) (changes as Record<string, unknown>)[k] = v
  // switching away from `threshold` drops the threshold unless the patch sets one (then the check refuses it)
  if (changes.approvalMode && changes.approvalMode !== 'threshold' && input.approvalThreshold === undefined) changes.approvalThreshold = null
  const merged: PolicyRow = { ...before, ...changes }
  await checkPolicy(scope, merged)
  const now = scope.deps.clock.now()
  if (JSON.stringify(policyView(merged)) === JSON.stringify(policyView(before))) return policyView(before)
  const after: PolicyRow = { ...merged, version: before.version + 1, updatedAt: now }
  await scope.deps.database.write(async (tx) => {
    await repo.updatePolicy(tx, scope.tenantId, policyId, { ...changes, version: after.version, updatedAt: now })
    await recordChange(tx, scope, { resourceType: 'policy', resourceId: policyId, change: 'updated', before: policyView(before), after: policyView(after), environments: BOTH_ENVIRONMENTS }, now)
  })
  return policyView(after)
}

/** Deletes the policy unless an agent that is not archived uses it (409 `POLICY_IN_USE`); checked in the deleting transaction. */
export async function deletePolicy(scope: Scope, policyId: string) {
  const before = await visiblePolicy(scope, policyId)
  const now = scope.deps.clock.now()
  await scope.deps.database.write(async (tx) => {
    if (await repo.policyInUse(tx, scope.tenantId, policyId)) throw new ConflictError('An agent uses this policy: give the agent another policy or archive it first', { code: 'POLICY_IN_USE' })
    await repo.updatePolicy(tx, scope.tenantId, policyId, { deletedAt: now })
    await recordChange(tx, scope, { resourceType: 'policy', resourceId: policyId, change: 'deleted', before: policyView(before), after: null, environments: BOTH_ENVIRONMENTS }, now)
  })
}

/**
 * What the policy would decide about one payment now, with nothing stored: the agent's and
 * merchant's current state (and the merchants at the merchant's payTo), and nothing spent.
 */
export async function simulate(scope: Scope, policyId: string, input: SimulateBody) {
  const policy = await visiblePolicy(scope, policyId)
  const agent = await visibleAgent(scope, input.agentId)
  const merchant = input.merchantId ? await visibleMerchant(scope, input.merchantId) : undefined
  if (input.network && !lookupChain(input.network)) throw new BadRequestError(`Unknown network ${input.network}`, { code: 'NETWORK_UNKNOWN' })
  const now = scope.deps.clock.now()
  const payee = merchant ? await payeeAt(scope.deps.database.db, scope.tenantId, merchant.payToNetwork, merchant.payToAddress) : null
  const verdict = judge({
    agent, policy, amount: input.amount, currency: input.currency, rail: input.rail, network: input.network, now,
    merchant: merchant && { id: merchant.id, status: merchant.status, category: merchant.category, network: merchant.payToNetwork }, payee,
    spent: {}, executionsToday: 0,
  })
  return { ...verdict, policyId: policy.id, policyVersion: policy.version, evaluatedAt: iso(now) }
}
