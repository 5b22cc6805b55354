/**
 * The wallet owner's consent (docs/agent-payments.md, "The wallet owner's consent"). A tenant
 * admin binds an agent to a custodial wallet, but every custodial wallet belongs to a user (the
 * product has no tenant-owned treasury wallet): the agent spends that user's funds, so it pays
 * only once the owner approved the delegation with their own token, or when a platform admin
 * wrote in the tenant's settings that the tenant manages its users' wallets
 * (`agentPayments.tenantManagesUserWallets`). A tenant admin binding their own wallet consents
 * by doing so. Changing the agent's wallet clears the consent (agents.ts).
 */
import type { Executor } from '../../../db/client'
import { ConflictError, NotFoundError } from '../../../lib/errors'
import type { ErrorCode } from '../../../lib/error-codes'
import { iso } from '../../../lib/clock'
import { tenantSettings } from '../../tenants'
import { findWallet } from '../../wallets'
import { recordChange } from '../changes'
import type { Scope } from './credentials'
import * as repo from '../repo'
import type { AgentRow } from '../schema'
import { agentView } from '../views'

export const CONSENT_REQUIRED = 'AGENT_WALLET_CONSENT_REQUIRED' satisfies ErrorCode

/** Whether a platform admin declared that the scope's tenant manages its users' wallets (its settings as the scope carries them). */
export function tenantManagesUserWallets(scope: Pick<Scope, 'deps' | 'tenant'>): boolean {
  return tenantSettings(scope.deps, scope.tenant).settings.agentPayments.tenantManagesUserWallets === true
}

/**
 * Why the agent may not pay from its wallet now, or null when it may: the wallet's owner
 * consented to this agent on this wallet, or the tenant manages its users' wallets. Read with
 * `db` (the caller's open write, when it has one).
 */
export async function walletConsentRefusal(scope: Pick<Scope, 'deps' | 'tenant'>, db: Executor, agent: AgentRow): Promise<string | null> {
  const wallet = await findWallet(db, agent.tenantId, agent.walletId)
  if (wallet && agent.walletConsentBy !== null && agent.walletConsentBy === wallet.userId) return null
  if (tenantManagesUserWallets(scope)) return null
  return 'The owner of the agent\'s wallet has not consented to this agent paying from it (POST /v1/agent-payments/agents/{agentId}/wallet-consent with the owner\'s token); nothing was paid'
}

/** The consent's fields for a binding made by `actorId`: granted at once when the caller binds their own wallet. */
export function consentAtBinding(walletOwnerId: string, actorId: string | null, now: number): Pick<AgentRow, 'walletConsentBy' | 'walletConsentAt'> {
  return walletOwnerId === actorId ? { walletConsentBy: actorId, walletConsentAt: now } : { walletConsentBy: null, walletConsentAt: null }
}

const notFound = () => new NotFoundError('Agent not found')

/** What the owner sees: the agent using their wallet and whether they consented. */
const consentView = (a: AgentRow) => ({
  agentId: a.id, agentName: a.name, agentDescription: a.description, agentStatus: a.status, walletId: a.walletId, policyId: a.policyId,
  consented: a.walletConsentBy !== null, grantedAt: a.walletConsentAt === null ? null : iso(a.walletConsentAt),
})

/** The agent, when it is bound to one of the caller's own wallets; any other (another user's, another tenant's, unknown) answers 404. */
async function ownersAgent(scope: Scope, db: Executor, agentId: string): Promise<AgentRow> {
  const agent = await repo.findAgent(db, scope.tenantId, agentId)
  const wallet = agent ? await findWallet(db, scope.tenantId, agent.walletId) : undefined
  if (!agent || !wallet || wallet.userId !== scope.actor.id) throw notFound()
  return agent
}

export async function getWalletConsent(scope: Scope, agentId: string) {
  return consentView(await ownersAgent(scope, scope.deps.database.db, agentId))
}

/** The owner consents; again answers the consent unchanged. Checked again in the write: a wallet changed meanwhile answers 404. */
export async function grantWalletConsent(scope: Scope, agentId: string) {
  const seen = await ownersAgent(scope, scope.deps.database.db, agentId)
  if (seen.status === 'archived') throw new ConflictError('The agent is archived', { code: 'AGENT_ARCHIVED' })
  if (seen.walletConsentBy === scope.actor.id) return consentView(seen)
  const now = scope.deps.clock.now()
  return scope.deps.database.write(async (tx) => {
    const before = await ownersAgent(scope, tx, agentId)
    if (before.status === 'archived') throw new ConflictError('The agent is archived', { code: 'AGENT_ARCHIVED' })
    if (before.walletConsentBy === scope.actor.id) return consentView(before)
    const after: AgentRow = { ...before, walletConsentBy: scope.actor.id, walletConsentAt: now, updatedAt: now }
    await repo.updateAgent(tx, scope.tenantId, agentId, { walletConsentBy: after.walletConsentBy, walletConsentAt: now, updatedAt: now })
    await recordChange(
      tx, scope,
      { resourceType: 'agent', resourceId: agentId, change: 'wallet_consent_granted', before: agentView(before), after: agentView(after), environments: [after.environment] },
      now,
    )
    return consentView(after)
  })
}

/** The owner withdraws it: from now on no payment of the agent starts from the wallet. Without a consent, answers as it is. */
export async function revokeWalletConsent(scope: Scope, agentId: string) {
  const seen = await ownersAgent(scope, scope.deps.database.db, agentId)
  if (seen.walletConsentBy === null) return consentView(seen)
  const now = scope.deps.clock.now()
  return scope.deps.database.write(async (tx) => {
    const before = await ownersAgent(scope, tx, agentId)
    if (before.walletConsentBy === null) return consentView(before)
    const after: AgentRow = { ...before, walletConsentBy: null, walletConsentAt: null, updatedAt: now }
    await repo.updateAgent(tx, scope.tenantId, agentId, { walletConsentBy: null, walletConsentAt: null, updatedAt: now })
    await recordChange(
      tx, scope,
      { resourceType: 'agent', resourceId: agentId, change: 'wallet_consent_revoked', before: agentView(before), after: agentView(after), environments: [after.environment] },
      now,
    )
    return consentView(after)
  })
}
