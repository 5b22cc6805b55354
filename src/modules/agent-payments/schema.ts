/**
 * Agent payments (docs/agent-payments.md): agents, their spending policies, merchants,
 * the API keys of agents and merchants, the group's audit log, shoppers and mandates. Only
 * ./repo.ts reads and writes these tables. Every row carries its tenant; ids are UUIDs,
 * so the later tables (executions, mandates, approvals) join on `(tenant_id, id)`.
 */
import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { tenants } from '../../db/schema'
import {
  AGENT_STATUSES, APPROVAL_MODES, APPROVAL_STATUSES, ENVIRONMENTS, EXECUTION_STATUSES, MANDATE_STATUSES, MANDATE_TYPES, MERCHANT_STATUSES, RAILS,
  type ActiveHours, type ExecutionReason, type MandateCart, type MandateConstraints, type PolicyLimit, type Rail, type X402Record,
} from './record-types'

export const apPolicies = sqliteTable('ap_policies', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  name: text('name').notNull(),
  /** ISO code or token symbol, as sent (compared without case) */
  currency: text('currency').notNull(),
  limits: text('limits', { mode: 'json' }).$type<PolicyLimit[]>().notNull(),
  allowedMerchantIds: text('allowed_merchant_ids', { mode: 'json' }).$type<string[] | null>(),
  blockedMerchantIds: text('blocked_merchant_ids', { mode: 'json' }).$type<string[] | null>(),
  allowedCategories: text('allowed_categories', { mode: 'json' }).$type<string[] | null>(),
  allowedRails: text('allowed_rails', { mode: 'json' }).$type<Rail[] | null>(),
  allowedNetworks: text('allowed_networks', { mode: 'json' }).$type<string[] | null>(),
  approvalMode: text('approval_mode', { enum: APPROVAL_MODES }).notNull(),
  /** decimal string in `currency`; set exactly when approvalMode is `threshold` */
  approvalThreshold: text('approval_threshold'),
  maxExecutionsPerDay: integer('max_executions_per_day'),
  activeHours: text('active_hours', { mode: 'json' }).$type<ActiveHours | null>(),
  /**
   * whether a payee no merchant of the tenant has registered (an x402 `payTo`) may be paid:
   * null (not set) allows it only when the policy has no merchant rule (docs/agent-payments.md, "Payees")
   */
  allowUnregisteredPayees: integer('allow_unregistered_payees', { mode: 'boolean' }),
  /** 1 at creation, + 1 on each change: executions record the version that judged them */
  version: integer('version').notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  /** deleted policies stay for the executions judged by them; every read skips them */
  deletedAt: integer('deleted_at'),
}, (t) => [index('ap_policies_tenant_idx').on(t.tenantId, t.createdAt)])

export const apAgents = sqliteTable('ap_agents', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  name: text('name').notNull(),
  description: text('description'),
  /** a custodial wallet of the tenant that pays for the agent */
  walletId: text('wallet_id').notNull(),
  /** the wallet's network kind: where the agent's webhook events go */
  environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
  policyId: text('policy_id'),
  /** the agent's public key (a JWK without private parts), for signed requests later */
  publicKeyJwk: text('public_key_jwk', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  metadata: text('metadata', { mode: 'json' }).$type<Record<string, string>>().notNull(),
  /**
   * The wallet owner's consent to this agent paying from `walletId` (docs/agent-payments.md,
   * "The wallet owner's consent"): the owner's user id and when. Cleared whenever `walletId`
   * changes; null: no consent (the agent pays only when the tenant manages its users' wallets).
   */
  walletConsentBy: text('wallet_consent_by'),
  walletConsentAt: integer('wallet_consent_at'),
  status: text('status', { enum: AGENT_STATUSES }).notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  archivedAt: integer('archived_at'),
}, (t) => [
  index('ap_agents_tenant_idx').on(t.tenantId, t.status, t.createdAt),
  // POLICY_IN_USE: does an agent use this policy
  index('ap_agents_policy_idx').on(t.tenantId, t.policyId),
])

export const apMerchants = sqliteTable('ap_merchants', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  name: text('name').notNull(),
  website: text('website'),
  category: text('category'),
  /** registry id of the network paid on (`base`, `sepolia`) */
  payToNetwork: text('pay_to_network').notNull(),
  /** display form: EIP-55 (EVM) or base58 (Solana) */
  payToAddress: text('pay_to_address').notNull(),
  environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
  status: text('status', { enum: MERCHANT_STATUSES }).notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  disabledAt: integer('disabled_at'),
}, (t) => [
  index('ap_merchants_tenant_idx').on(t.tenantId, t.createdAt),
  // the payee rule: the merchants registered at an address on a network
  index('ap_merchants_pay_to_idx').on(t.tenantId, t.payToNetwork),
])

/**
 * API keys of agents (`sk_agent_…`) and merchants (`sk_merch_…`). Only the SHA-256 of a
 * key is kept: the key itself is answered once, at creation.
 */
export const apApiKeys = sqliteTable('ap_api_keys', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  kind: text('kind', { enum: ['agent', 'merchant'] }).notNull(),
  /** the agent's id for `agent` keys, the merchant's for `merchant` keys */
  ownerId: text('owner_id').notNull(),
  name: text('name').notNull(),
  /** the key's first characters, to recognise it in lists */
  prefix: text('prefix').notNull(),
  /** lower-case hex SHA-256 of the whole key */
  keyHash: text('key_hash').notNull(),
  scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
  lastUsedAt: integer('last_used_at'),
  revokedAt: integer('revoked_at'),
  createdAt: integer('created_at').notNull(),
}, (t) => [
  uniqueIndex('ap_api_keys_hash_uq').on(t.keyHash),
  index('ap_api_keys_owner_idx').on(t.tenantId, t.kind, t.ownerId, t.createdAt),
])

/** Every change of the group: who, what, before and after (views without secrets or key hashes). */
export const apAuditLog = sqliteTable('ap_audit_log', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  /** `user` (a tenantadmin or platform admin), `agent`, `merchant` (a merchant key), `system` */
  actorType: text('actor_type', { enum: ['user', 'agent', 'merchant', 'system'] }).notNull(),
  actorId: text('actor_id'),
  /** `<resource>.<change>`, the webhook event type without its `agent_payments.` prefix */
  action: text('action').notNull(),
  resourceType: text('resource_type').notNull(),
  resourceId: text('resource_id').notNull(),
  before: text('before', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  after: text('after', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  requestId: text('request_id'),
  createdAt: integer('created_at').notNull(),
}, (t) => [
  index('ap_audit_tenant_idx').on(t.tenantId, t.createdAt),
  index('ap_audit_resource_idx').on(t.tenantId, t.resourceType, t.resourceId, t.createdAt),
])

export type PolicyRow = typeof apPolicies.$inferSelect
export type AgentRow = typeof apAgents.$inferSelect
export type MerchantRow = typeof apMerchants.$inferSelect
export type ApiKeyRow = typeof apApiKeys.$inferSelect
export type AuditRow = typeof apAuditLog.$inferSelect

// mandates (routes 32-36): an agent's standing authorization to pay, within constraints (`intent`) or for one cart (`cart`)

export const apMandates = sqliteTable('ap_mandates', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  type: text('type', { enum: MANDATE_TYPES }).notNull(),
  agentId: text('agent_id').notNull(),
  /** the shopper it is for (routes 25-31), whose key may sign its authorization; null when none */
  shopperId: text('shopper_id'),
  /** the agent's environment: where the mandate's webhook events go */
  environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
  status: text('status', { enum: MANDATE_STATUSES }).notNull(),
  constraints: text('constraints', { mode: 'json' }).$type<MandateConstraints>().notNull(),
  cart: text('cart', { mode: 'json' }).$type<MandateCart | null>(),
  description: text('description'),
  humanPresent: integer('human_present', { mode: 'boolean' }).notNull(),
  expiresAt: integer('expires_at').notNull(),
  /** who authorized it (a user id), when, and the SHA-256 of the content authorized */
  authorizedBy: text('authorized_by'),
  authorizedAt: integer('authorized_at'),
  authorizationHash: text('authorization_hash'),
  /** the RFC 7638 thumbprint of the shopper's key that signed the authorization; null when a user authorized it */
  authorizedKeyThumbprint: text('authorized_key_thumbprint'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  /** when it left `pending_authorization`/`active` for a final state */
  endedAt: integer('ended_at'),
}, (t) => [
  index('ap_mandates_tenant_idx').on(t.tenantId, t.createdAt),
  index('ap_mandates_agent_idx').on(t.tenantId, t.agentId, t.status),
  index('ap_mandates_shopper_idx').on(t.tenantId, t.shopperId, t.createdAt),
])

/**
 * Shoppers (routes 25-31): a merchant's customer, on whose behalf mandates are made. Its
 * `publicKeyJwk` (ES256 or EdDSA, public) signs AP2 authorizations of its mandates. Removed
 * shoppers keep their row (`deletedAt`) for the mandates naming them; every read skips them.
 */
export const apShoppers = sqliteTable('ap_shoppers', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  merchantId: text('merchant_id').notNull(),
  /** the merchant's own id of its customer: unique per merchant among shoppers not removed */
  externalRef: text('external_ref').notNull(),
  userId: text('user_id'),
  email: text('email'),
  publicKeyJwk: text('public_key_jwk', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  /** when the key last changed after creation (null: the key given at creation, or none): a JWS cannot authorize a mandate created before it */
  keyChangedAt: integer('key_changed_at'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  deletedAt: integer('deleted_at'),
}, (t) => [
  index('ap_shoppers_tenant_idx').on(t.tenantId, t.merchantId, t.createdAt),
  uniqueIndex('ap_shoppers_ref_uq').on(t.tenantId, t.merchantId, t.externalRef).where(sql`deleted_at is null`),
])

export type ShopperRow = typeof apShoppers.$inferSelect
export type MandateRow = typeof apMandates.$inferSelect
// executions and approvals (part 2: routes 37-47; docs/agent-payments.md "Executions")

export const apExecutions = sqliteTable('ap_executions', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  agentId: text('agent_id').notNull(),
  merchantId: text('merchant_id'),
  /** the mandate the payment was made under (null: none) */
  mandateId: text('mandate_id'),
  /** the policy and the version that judged it (null: the agent had none) */
  policyId: text('policy_id'),
  policyVersion: integer('policy_version'),
  /** decimal string in `currency` */
  amount: text('amount').notNull(),
  currency: text('currency').notNull(),
  rail: text('rail', { enum: RAILS }).notNull(),
  network: text('network'),
  payToAddress: text('pay_to_address'),
  description: text('description'),
  idempotencyKey: text('idempotency_key'),
  environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
  status: text('status', { enum: EXECUTION_STATUSES }).notNull(),
  decision: text('decision', { enum: ['allow', 'require_approval', 'deny'] }).notNull(),
  reasons: text('reasons', { mode: 'json' }).$type<ExecutionReason[]>().notNull(),
  /** the x402 rail: the paid resource's address, as normalised when the execution was created */
  resourceUrl: text('resource_url'),
  /** the x402 rail's record (X402Record); null on the onchain rail */
  x402: text('x402', { mode: 'json' }).$type<X402Record>(),
  /** the transactions module's send (onchain rail) */
  transactionId: text('transaction_id'),
  txHash: text('tx_hash'),
  failureReason: text('failure_reason'),
  /** decimal string: what the merchant refunded so far ("0" before) */
  refundedAmount: text('refunded_amount').notNull(),
  createdAt: integer('created_at').notNull(),
  /**
   * the instant it was last judged (created, approved, confirmed): the windows its amount counts
   * in (daily, weekly, monthly, executions per day). Null on rows older than the column: their createdAt.
   */
  countedAt: integer('counted_at'),
  updatedAt: integer('updated_at').notNull(),
  /** when it reached succeeded, failed, rejected, canceled or expired */
  completedAt: integer('completed_at'),
}, (t) => [
  uniqueIndex('ap_executions_idem_uq').on(t.tenantId, t.idempotencyKey),
  index('ap_executions_tenant_idx').on(t.tenantId, t.createdAt),
  // the windows' sums: this agent's executions by status since a time
  index('ap_executions_agent_idx').on(t.tenantId, t.agentId, t.status, t.createdAt),
])

/**
 * Running totals of the executions that count against limits (COUNTED_STATUSES), per owner (an
 * agent: its policy's windows; a mandate: its budget, occurrences and recurrence) and per window
 * of `countedAt`, `[window_start, window_end)` in Unix ms (OPEN_END: no end). A window is its two
 * instants, whatever the time zone that drew it, so a total is a fact about the executions alone.
 * The sum is exact, `whole` units plus `frac` units of 1e-18 (below 1e18); `overflow` 1 when a
 * whole part was too long to add here (more than 15 digits, or a total past 4e18): readers then
 * count from ap_executions. Kept by triggers on ap_executions (drizzle/0033_ap_spend_totals.sql),
 * in the transaction of every change to what counts; a window's row is made on first use from
 * the executions already there (repo/spend.ts), so databases older than the table need no backfill.
 */
export const apSpendTotals = sqliteTable('ap_spend_totals', {
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  ownerKind: text('owner_kind', { enum: ['agent', 'mandate'] }).notNull(),
  ownerId: text('owner_id').notNull(),
  windowEnd: integer('window_end').notNull(),
  windowStart: integer('window_start').notNull(),
  whole: integer('whole').notNull(),
  frac: integer('frac').notNull(),
  count: integer('count').notNull(),
  overflow: integer('overflow').notNull(),
}, (t) => [
  // the triggers find the windows containing an instant by their end (those ending later: the current ones)
  primaryKey({ columns: [t.tenantId, t.ownerKind, t.ownerId, t.windowEnd, t.windowStart] }),
])

export const apApprovals = sqliteTable('ap_approvals', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  executionId: text('execution_id').notNull(),
  agentId: text('agent_id').notNull(),
  status: text('status', { enum: APPROVAL_STATUSES }).notNull(),
  reasons: text('reasons', { mode: 'json' }).$type<ExecutionReason[]>().notNull(),
  note: text('note'),
  decidedBy: text('decided_by'),
  expiresAt: integer('expires_at').notNull(),
  createdAt: integer('created_at').notNull(),
  decidedAt: integer('decided_at'),
}, (t) => [
  uniqueIndex('ap_approvals_execution_uq').on(t.tenantId, t.executionId),
  index('ap_approvals_tenant_idx').on(t.tenantId, t.status, t.createdAt),
])

export type ExecutionRow = typeof apExecutions.$inferSelect
export type ApprovalRow = typeof apApprovals.$inferSelect
export type SpendTotalRow = typeof apSpendTotals.$inferSelect
