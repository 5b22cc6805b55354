/** Agents (routes 1-7): the payer an AI agent acts as, with its wallet, policy and status. */
import { BadRequestError, ConflictError, NotFoundError } from '../../../lib/errors'
import { iso } from '../../../lib/clock'
import { newId } from '../../../lib/ids'
import { isCustodial } from '../../transactions'
import { findWallet } from '../../wallets'
import { recordChange } from '../changes'
import type { Scope } from './credentials'
import type { CreateAgent, UpdateAgent } from '../model'
import { spendOf } from '../policies/judging'
import { fromUnits, policyTimeZone, toUnits, windowOf } from '../policies/policy'
import * as repo from '../repo'
import type { AgentRow } from '../schema'
import type { AgentStatus, ApEnvironment } from '../record-types'
import { agentView } from '../views'
import { consentAtBinding } from './wallet-consent'

const agentNotFound = () => new NotFoundError('Agent not found')

/** Private members of the JWK key types (RFC 7518): an agent's key given with them is refused, not stored. */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']

function checkJwk(jwk: Record<string, unknown> | undefined) {
  const leaked = jwk ? PRIVATE_JWK_MEMBERS.filter((m) => m in jwk) : []
  if (leaked.length) throw new BadRequestError('publicKeyJwk must be a public key: it has private members', { code: 'AGENT_JWK_PRIVATE', details: { members: leaked } })
}

/** The agent's wallet: a live custodial wallet of the tenant (executions sign with it). */
async function agentWallet(scope: Scope, walletId: string): Promise<{ environment: ApEnvironment; ownerId: string }> {
  const w = await findWallet(scope.deps.database.db, scope.tenantId, walletId)
  if (!w) throw new NotFoundError('Wallet not found', { code: 'WALLET_NOT_FOUND' })
  if (!isCustodial(w)) throw new BadRequestError('The agent\'s wallet must be custodial: Slipway signs its payments', { code: 'AGENT_WALLET_NOT_CUSTODIAL' })
  return { environment: w.isTestnet ? 'sandbox' : 'production', ownerId: w.userId }
}

async function checkPolicy(scope: Scope, policyId: string) {
  if (!await repo.findPolicy(scope.deps.database.db, scope.tenantId, policyId)) throw new NotFoundError('Policy not found', { code: 'POLICY_NOT_FOUND' })
}

/** The agent, when the scope may see it: another tenant's, an unknown one, or (for an agent key) another agent answer 404. */
export async function visibleAgent(scope: Scope, agentId: string): Promise<AgentRow> {
  if (scope.agentId !== undefined && scope.agentId !== agentId) throw agentNotFound()
  return seenAgent(scope, agentId, await repo.findAgent(scope.deps.database.db, scope.tenantId, agentId))
}

/** `visibleAgent` of a row already read (with other reads) by the scope's tenant and `agentId`. */
export function seenAgent(scope: Scope, agentId: string, row: AgentRow | undefined): AgentRow {
  if ((scope.agentId !== undefined && scope.agentId !== agentId) || !row) throw agentNotFound()
  return row
}

export async function createAgent(scope: Scope, input: CreateAgent) {
  checkJwk(input.publicKeyJwk)
  const { environment, ownerId } = await agentWallet(scope, input.walletId)
  if (input.policyId) await checkPolicy(scope, input.policyId)
  const now = scope.deps.clock.now()
  const row: AgentRow = {
    id: newId(), tenantId: scope.tenantId, name: input.name, description: input.description ?? null, walletId: input.walletId, environment,
    // the owner's consent: given by binding one's own wallet, else asked of the owner (wallet-consent.ts)
    ...consentAtBinding(ownerId, scope.actor.id, now),
    policyId: input.policyId ?? null, publicKeyJwk: input.publicKeyJwk ?? null, metadata: input.metadata ?? {}, status: 'active',
    createdAt: now, updatedAt: now, archivedAt: null,
  }
  await scope.deps.database.write(async (tx) => {
    await repo.insertAgent(tx, row)
    await recordChange(tx, scope, { resourceType: 'agent', resourceId: row.id, change: 'created', before: null, after: agentView(row), environments: [environment] }, now)
  })
  return agentView(row)
}

export async function listAgents(scope: Scope, q: { status?: AgentStatus; limit?: number; offset?: number }) {
  const { rows, total } = await repo.listAgents(scope.deps.database.db, scope.tenantId, { status: q.status, limit: q.limit ?? 50, offset: q.offset ?? 0 })
  return { data: rows.map(agentView), total }
}

/**
 * One agent with what it spent in each limit window of its policy: the amounts of its
 * executions that count (processing, succeeded, refunded, partially refunded), as judging does.
 */
export async function getAgent(scope: Scope, agentId: string) {
  const row = await visibleAgent(scope, agentId)
  const policy = row.policyId ? await repo.findPolicy(scope.deps.database.db, scope.tenantId, row.policyId) : undefined
  if (!policy) return { ...agentView(row), spend: null }
  const now = scope.deps.clock.now()
  const timeZone = policyTimeZone(policy)
  // what executions reserved or paid in each window
  const { spent, executionsToday } = await spendOf(scope.deps.database.db, scope.tenantId, row.id, policy, now)
  const windows = policy.limits.map((l) => {
    if (l.interval === 'per_transaction') return { interval: l.interval, limitAmount: l.amount, spentAmount: '0', remainingAmount: l.amount, windowStart: null, windowEnd: null }
    const w = windowOf(l.interval, now, timeZone)
    const used = toUnits(spent[l.interval] ?? '0')
    const left = toUnits(l.amount) - used
    return {
      interval: l.interval, limitAmount: l.amount, spentAmount: fromUnits(used), remainingAmount: fromUnits(left > 0n ? left : 0n),
      windowStart: l.interval === 'all_time' ? null : iso(w.start), windowEnd: w.end === null ? null : iso(w.end),
    }
  })
  return {
    ...agentView(row),
    spend: { policyId: policy.id, policyVersion: policy.version, currency: policy.currency, timeZone, executionsToday, windows },
  }
}

export async function updateAgent(scope: Scope, agentId: string, input: UpdateAgent) {
  const before = await visibleAgent(scope, agentId)
  if (before.status === 'archived') throw new ConflictError('The agent is archived', { code: 'AGENT_ARCHIVED' })
  const changes: Partial<AgentRow> = {}
  if (input.name !== undefined) changes.name = input.name
  if (input.description !== undefined) changes.description = input.description
  if (input.metadata !== undefined) changes.metadata = input.metadata
  const now = scope.deps.clock.now()
  if (input.walletId !== undefined && input.walletId !== before.walletId) {
    const wallet = await agentWallet(scope, input.walletId)
    changes.walletId = input.walletId
    changes.environment = wallet.environment
    // a consent is for one wallet: another wallet needs its own owner's
    Object.assign(changes, consentAtBinding(wallet.ownerId, scope.actor.id, now))
  }
  if (input.policyId !== undefined && input.policyId !== before.policyId) {
    if (input.policyId !== null) await checkPolicy(scope, input.policyId)
    changes.policyId = input.policyId
  }
  const after: AgentRow = { ...before, ...changes, updatedAt: now }
  if (JSON.stringify(agentView({ ...after, updatedAt: before.updatedAt })) === JSON.stringify(agentView(before))) return agentView(before)
  await scope.deps.database.write(async (tx) => {
    await repo.updateAgent(tx, scope.tenantId, agentId, { ...changes, updatedAt: now })
    await recordChange(
      tx, scope,
      { resourceType: 'agent', resourceId: agentId, change: 'updated', before: agentView(before), after: agentView(after), environments: [...new Set([before.environment, after.environment])] },
      now,
    )
  })
  return agentView(after)
}

/** `active → paused` and back; anything else answers 409 `AGENT_STATE_INVALID`. */
export async function setAgentStatus(scope: Scope, agentId: string, to: 'paused' | 'active') {
  const before = await visibleAgent(scope, agentId)
  const from = to === 'paused' ? 'active' : 'paused'
  if (before.status !== from) throw new ConflictError(`The agent is ${before.status}; only a ${from} agent can be ${to === 'paused' ? 'paused' : 'resumed'}`, { code: 'AGENT_STATE_INVALID' })
  const now = scope.deps.clock.now()
  const after: AgentRow = { ...before, status: to, updatedAt: now }
  await scope.deps.database.write(async (tx) => {
    await repo.updateAgent(tx, scope.tenantId, agentId, { status: to, updatedAt: now })
    await recordChange(
      tx, scope,
      { resourceType: 'agent', resourceId: agentId, change: to === 'paused' ? 'paused' : 'resumed', before: agentView(before), after: agentView(after), environments: [before.environment] },
      now,
    )
  })
  return agentView(after)
}

/** Archives the agent (final) and revokes its live keys in the same transaction; an archived agent answers as it is. */
export async function archiveAgent(scope: Scope, agentId: string) {
  const before = await visibleAgent(scope, agentId)
  if (before.status === 'archived') return agentView(before)
  const now = scope.deps.clock.now()
  const after: AgentRow = { ...before, status: 'archived', archivedAt: now, updatedAt: now }
  await scope.deps.database.write(async (tx) => {
    await repo.updateAgent(tx, scope.tenantId, agentId, { status: 'archived', archivedAt: now, updatedAt: now })
    const revoked = await repo.revokeOwnerKeys(tx, scope.tenantId, 'agent', agentId, now)
    for (const keyId of revoked) {
      await recordChange(
        tx, scope,
        {
          resourceType: 'agent_api_key', resourceId: keyId, change: 'revoked',
          before: { id: keyId, agentId, revokedAt: null }, after: { id: keyId, agentId, revokedAt: iso(now) },
          environments: [before.environment],
        },
        now,
      )
    }
    await recordChange(tx, scope, { resourceType: 'agent', resourceId: agentId, change: 'archived', before: agentView(before), after: agentView(after), environments: [before.environment] }, now)
  })
  return agentView(after)
}
