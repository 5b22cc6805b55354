/** Rows as the API answers them: ISO dates, no key hash ever. Audit entries and webhook events use the same views. */
import { iso } from '../../lib/clock'
import { jwkThumbprint } from './merchants/jwk-thumbprint'
import type { AgentRow, ApiKeyRow, ApprovalRow, AuditRow, ExecutionRow, MerchantRow, PolicyRow } from './schema'

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms))

export const agentView = (r: AgentRow) => ({
  id: r.id, name: r.name, description: r.description, walletId: r.walletId,
  walletConsent: r.walletConsentBy === null || r.walletConsentAt === null ? null : { grantedBy: r.walletConsentBy, grantedAt: iso(r.walletConsentAt) },
  policyId: r.policyId,
  publicKeyJwk: r.publicKeyJwk, metadata: r.metadata, status: r.status, environment: r.environment,
  createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt), archivedAt: isoOrNull(r.archivedAt),
})

export const policyView = (r: PolicyRow) => ({
  id: r.id, name: r.name, currency: r.currency, limits: r.limits,
  allowedMerchantIds: r.allowedMerchantIds, blockedMerchantIds: r.blockedMerchantIds, allowedCategories: r.allowedCategories,
  allowedRails: r.allowedRails, allowedNetworks: r.allowedNetworks, approvalMode: r.approvalMode, approvalThreshold: r.approvalThreshold,
  maxExecutionsPerDay: r.maxExecutionsPerDay, activeHours: r.activeHours, allowUnregisteredPayees: r.allowUnregisteredPayees, version: r.version,
  createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt),
})

export const merchantView = (r: MerchantRow) => ({
  id: r.id, name: r.name, website: r.website, category: r.category, payTo: { network: r.payToNetwork, address: r.payToAddress },
  environment: r.environment, status: r.status, createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt), disabledAt: isoOrNull(r.disabledAt),
})

/** A key without its hash: the key itself is answered once by the create verb, outside this view. */
export const keyView = (r: ApiKeyRow) => ({
  id: r.id, name: r.name, prefix: r.prefix, scopes: r.scopes,
  lastUsedAt: isoOrNull(r.lastUsedAt), revokedAt: isoOrNull(r.revokedAt), createdAt: iso(r.createdAt),
})

export const auditView = (r: AuditRow) => ({
  id: r.id, actorType: r.actorType, actorId: r.actorId, action: r.action, resourceType: r.resourceType, resourceId: r.resourceId,
  before: r.before, after: r.after, requestId: r.requestId, createdAt: iso(r.createdAt),
})

/** the x402 record with every field present (null when not reached); the hold's id stays inside */
const x402View = (x: import('./record-types').X402Record | null) => x === null ? null : {
  version: x.version ?? null, requirement: x.requirement ?? null, refused: x.refused ?? [], authorization: x.authorization ?? null, settlement: x.settlement ?? null, resource: x.resource ?? null,
}

export const executionView = (r: ExecutionRow) => ({
  id: r.id, agentId: r.agentId, merchantId: r.merchantId, mandateId: r.mandateId, amount: r.amount, currency: r.currency, rail: r.rail,
  network: r.network, payToAddress: r.payToAddress, description: r.description, idempotencyKey: r.idempotencyKey, environment: r.environment,
  status: r.status, decision: r.decision, reasons: r.reasons, policyId: r.policyId, policyVersion: r.policyVersion,
  transactionId: r.transactionId, txHash: r.txHash, failureReason: r.failureReason, resourceUrl: r.resourceUrl, x402: x402View(r.x402),
  refundedAmount: r.refundedAmount, createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt), completedAt: isoOrNull(r.completedAt),
})

export const approvalView = (r: ApprovalRow) => ({
  id: r.id, executionId: r.executionId, agentId: r.agentId, status: r.status, reasons: r.reasons, note: r.note, decidedBy: r.decidedBy,
  expiresAt: iso(r.expiresAt), createdAt: iso(r.createdAt), decidedAt: isoOrNull(r.decidedAt),
})

export const shopperView = (r: import('./schema').ShopperRow) => ({
  id: r.id, merchantId: r.merchantId, externalRef: r.externalRef, userId: r.userId, email: r.email, publicKeyJwk: r.publicKeyJwk,
  keyThumbprint: r.publicKeyJwk ? jwkThumbprint(r.publicKeyJwk) : null, keyChangedAt: isoOrNull(r.keyChangedAt),
  createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt),
})

/**
 * An execution as the audit log and webhook events carry it: without the x402 resource's body
 * (up to AGENT_PAYMENTS_X402_MAX_BODY_BYTES), which the execution itself keeps; its size and type stay.
 */
export const executionChangeView = (r: ExecutionRow) => {
  const v = executionView(r)
  return v.x402?.resource ? { ...v, x402: { ...v.x402, resource: { ...v.x402.resource, body: null, bodyBase64: null } } } : v
}
