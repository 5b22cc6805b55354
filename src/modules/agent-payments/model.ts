/** Request and answer shapes of the agent payments group (`/v1/agent-payments`); the services take `typeof X.static`. */
import { t } from 'elysia'
import { integer } from '../../http/integer'
import { Limit, Offset } from '../../http/schemas'
import { DECIMAL_PATTERN } from './policies/policy'
import { prose } from '../../http/prose'

export const Uuid = t.String({ format: 'uuid' })
export const Amount = (description: string) => t.String({ pattern: DECIMAL_PATTERN, description: `${description}; a decimal string in the currency's units (\`"12.50"\`)`, examples: ['25.00'] })
export const Currency = t.String({ pattern: '^[A-Za-z0-9]{2,12}$', description: 'an ISO code (`EUR`, `USD`) or a token symbol of the registry (`USDC`, `EURe`); compared without case' })
export const When = t.String({ format: 'date-time' })
export const MaybeWhen = t.Union([When, t.Null()])
export const Network = t.String({ pattern: '^[a-z0-9-]{1,64}$', description: 'a registry id of a network (`base`, `ethereum`, `sepolia`, `solana-devnet`)' })
export const Category = t.String({ pattern: '^[a-z0-9][a-z0-9_.-]{0,63}$', description: 'lower-case, as the tenant names them (`travel`, `saas`)' })
const Metadata = t.Record(t.String({ minLength: 1, maxLength: 64 }), t.String({ maxLength: 500 }), { maxProperties: 50, description: 'the tenant\'s own labels: up to 50 string values' })
const Jwk = t.Object({ kty: t.String({ minLength: 1, maxLength: 16 }) }, { additionalProperties: true, description: prose`
  the agent's public key as a JWK (RFC 7517); a key with private parts (\`d\`, \`p\`, \`q\`, \`k\`...)
  is refused` })
export const TenantIdField = t.Optional(t.String({ format: 'uuid', description: 'platform admins: the tenant acted on (also accepted in the query); a tenantadmin may leave it out' }))

/** The consent rule, in the OpenAPI of the agent and execution routes. */
export const CONSENT_NOTE = prose`
  An agent pays from a user's wallet only with that user's consent (null here: executions answer 409
  \`AGENT_WALLET_CONSENT_REQUIRED\`, nothing paid), unless a platform admin set the tenant's
  \`agentPayments.tenantManagesUserWallets\` (docs/agent-payments.md, "The wallet owner's consent").`

export const ENVIRONMENT_NOTE = 'the webhook environment of its events: `sandbox` when its money is on a testnet, else `production`'

export const TenantQuery = t.Object({ tenantId: TenantIdField })
export const PageQuery = t.Object({ tenantId: TenantIdField, limit: t.Optional(Limit(200, 50)), offset: t.Optional(Offset) })
export const AgentListQuery = t.Object({
  tenantId: TenantIdField,
  status: t.Optional(t.Union([t.Literal('active'), t.Literal('paused'), t.Literal('archived')])),
  limit: t.Optional(Limit(200, 50)), offset: t.Optional(Offset),
})
export const MerchantListQuery = t.Object({
  tenantId: TenantIdField, status: t.Optional(t.Union([t.Literal('active'), t.Literal('disabled')])),
  limit: t.Optional(Limit(200, 50)), offset: t.Optional(Offset),
})

export const RESOURCE_TYPES = ['agent', 'agent_api_key', 'policy', 'merchant', 'merchant_api_key', 'mandate', 'execution', 'approval', 'shopper', 'webhook'] as const
export const AuditQuery = t.Object({
  tenantId: TenantIdField,
  resourceType: t.Optional(t.Union(RESOURCE_TYPES.map((r) => t.Literal(r)))),
  resourceId: t.Optional(Uuid),
  actorType: t.Optional(t.Union([t.Literal('user'), t.Literal('agent'), t.Literal('merchant'), t.Literal('system')])),
  limit: t.Optional(Limit(200, 50)),
  offset: t.Optional(Offset),
})

export const AgentParams = t.Object({ agentId: Uuid })
export const AgentKeyParams = t.Object({ agentId: Uuid, keyId: Uuid })
export const PolicyParams = t.Object({ policyId: Uuid })
export const MerchantParams = t.Object({ merchantId: Uuid })
export const MerchantKeyParams = t.Object({ merchantId: Uuid, keyId: Uuid })

export const list = <T extends ReturnType<typeof t.Object>>(item: T, title: string) =>
  t.Object({ data: t.Array(item), total: integer({ description: 'number of items matching, all pages' }) }, { title })

// agents

export const CreateAgent = t.Object({
  tenantId: TenantIdField,
  name: t.String({ minLength: 1, maxLength: 100 }),
  description: t.Optional(t.String({ maxLength: 1000 })),
  walletId: t.String({ format: 'uuid', description: prose`
    a custodial wallet of the tenant (any of its users) the agent pays from; the agent pays only once
    its owner consented (the caller's own wallet: consented by binding it)` }),
  policyId: t.Optional(t.String({ format: 'uuid', description: 'the policy that judges its payments; without one every execution will be refused' })),
  publicKeyJwk: t.Optional(Jwk),
  metadata: t.Optional(Metadata),
}, {
  additionalProperties: false,
  examples: [{
    name: 'Travel booker', description: 'Books trains under 200 EUR',
    walletId: '0b6f4c1e-8a52-4d7e-9b3a-2f1c5d6e7a80', policyId: '5d1c8e2a-3f4b-4c6d-9e7f-1a2b3c4d5e6f',
    metadata: { team: 'ops' },
  }],
})
export type CreateAgent = typeof CreateAgent.static

export const UpdateAgent = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  description: t.Optional(t.Union([t.String({ maxLength: 1000 }), t.Null()])),
  walletId: t.Optional(t.String({ format: 'uuid', description: 'another wallet clears the owner\'s consent: its own owner consents again (the caller\'s own wallet: consented by binding it)' })),
  policyId: t.Optional(t.Union([t.String({ format: 'uuid' }), t.Null()], { description: 'null: no policy (executions refused)' })),
  metadata: t.Optional(Metadata),
}, { additionalProperties: false, minProperties: 1, examples: [{ name: 'Travel booker (EU)', policyId: '5d1c8e2a-3f4b-4c6d-9e7f-1a2b3c4d5e6f' }] })
export type UpdateAgent = typeof UpdateAgent.static

export const Agent = t.Object({
  id: Uuid,
  name: t.String(),
  description: t.Union([t.String(), t.Null()]),
  walletId: Uuid,
  walletConsent: t.Union([t.Object({
    grantedBy: Uuid,
    grantedAt: When,
  }), t.Null()], { description: prose`
    the wallet owner's consent to this agent paying from \`walletId\`: by the owner's own \`POST
    /v1/agent-payments/agents/{agentId}/wallet-consent\`, or given when a tenant admin binds their own
    wallet; cleared when \`walletId\` changes. ${CONSENT_NOTE}` }),
  policyId: t.Union([Uuid, t.Null()]),
  publicKeyJwk: t.Union([t.Record(t.String(), t.Any()), t.Null()]),
  metadata: t.Record(t.String(), t.String()),
  status: t.Union([t.Literal('active'), t.Literal('paused'), t.Literal('archived')], { description: '`active ⇄ paused`; any → `archived` (final)' }),
  environment: t.Union([t.Literal('production'), t.Literal('sandbox')], { description: `${ENVIRONMENT_NOTE} (its wallet's network)` }),
  createdAt: When,
  updatedAt: When,
  archivedAt: MaybeWhen,
}, { title: 'Agent' })

export const SpendWindow = t.Object({
  interval: t.Union([t.Literal('per_transaction'), t.Literal('daily'), t.Literal('weekly'), t.Literal('monthly'), t.Literal('all_time')]),
  limitAmount: t.String({ description: 'the policy\'s limit, a decimal string' }),
  spentAmount: t.String({ description: prose`
    what counts in the window, a decimal string: executions waiting for an approval or a confirmation,
    reserved or paid, each in the window of the instant it was last judged (\`"0"\` for
    \`per_transaction\`)` }),
  remainingAmount: t.String({ description: 'what is left of the limit, a decimal string' }),
  windowStart: MaybeWhen,
  windowEnd: MaybeWhen,
}, { title: 'AgentSpendWindow' })

export const AgentWithSpend = t.Composite([Agent, t.Object({
  spend: t.Union([t.Object({
    policyId: Uuid,
    policyVersion: integer(),
    currency: t.String(),
    timeZone: t.String({ description: 'the zone the windows are counted in: the policy\'s active hours\' zone, else UTC' }),
    executionsToday: integer({ description: 'the executions that count in the policy\'s current day (waiting, reserved or paid), against `maxExecutionsPerDay`' }),
    windows: t.Array(SpendWindow),
  }), t.Null()], { description: 'per limit of its policy: spent in the window containing now; null without a policy' }),
})], { title: 'AgentWithSpend' })

export const AgentList = list(Agent, 'AgentList')

// keys

export const KeyName = t.String({ minLength: 1, maxLength: 100 })
export const CreateAgentKey = t.Object({ tenantId: TenantIdField, name: KeyName }, { additionalProperties: false, examples: [{ name: 'booking worker' }] })
export type CreateAgentKey = typeof CreateAgentKey.static

export const MERCHANT_SCOPES = ['shoppers:read', 'shoppers:write', 'mandates:read', 'executions:read'] as const
export const CreateMerchantKey = t.Object({
  tenantId: TenantIdField,
  name: KeyName,
  scopes: t.Array(t.Union(MERCHANT_SCOPES.map((s) => t.Literal(s))), { minItems: 1, maxItems: 4, uniqueItems: true }),
}, { additionalProperties: false, examples: [{ name: 'checkout backend', scopes: ['shoppers:read', 'shoppers:write'] }] })
export type CreateMerchantKey = typeof CreateMerchantKey.static

export const ApiKey = t.Object({
  id: Uuid,
  name: t.String(),
  prefix: t.String({ description: 'the key\'s first characters (`sk_agent_AbCd`), to recognise it' }),
  scopes: t.Array(t.String(), { description: 'merchant keys: what they may do; agent keys: `[]` (an agent key acts as its agent)' }),
  lastUsedAt: t.Union([When, t.Null()], { description: 'updated at most once a minute' }),
  revokedAt: MaybeWhen,
  createdAt: When,
}, { title: 'AgentPaymentsApiKey' })
export const ApiKeyWithSecret = t.Composite([ApiKey, t.Object({ key: t.String({ description: prose`
  the key, shown only now: Slipway keeps only its SHA-256` }) })], { title: 'AgentPaymentsApiKeyWithSecret' })
export const ApiKeyList = list(ApiKey, 'AgentPaymentsApiKeyList')

// merchants

const PayTo = t.Object({
  network: Network,
  address: t.String({ minLength: 1, maxLength: 64, description: 'an address of the network\'s family: EVM `0x…` (stored EIP-55), Solana base58' }),
}, { additionalProperties: false })
const Website = t.String({ maxLength: 2048, pattern: '^https?://[^\\s]+$' })
export const CreateMerchant = t.Object({
  tenantId: TenantIdField,
  name: t.String({ minLength: 1, maxLength: 100 }),
  website: t.Optional(Website),
  category: t.Optional(Category),
  payTo: PayTo,
}, { additionalProperties: false, examples: [{ name: 'Rail Europe', website: 'https://rail.example.com', category: 'travel', payTo: { network: 'base', address: prose`
  0x5a1E5A1e5a1E5a1e5A1E5a1e5A1e5a1E5A1E0001` } }] })
export type CreateMerchant = typeof CreateMerchant.static

export const UpdateMerchant = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  website: t.Optional(t.Union([Website, t.Null()])),
  category: t.Optional(t.Union([Category, t.Null()])),
  payTo: t.Optional(PayTo),
}, { additionalProperties: false, minProperties: 1, examples: [{ category: 'rail', website: 'https://rail.example.com/eu' }] })
export type UpdateMerchant = typeof UpdateMerchant.static

export const Merchant = t.Object({
  id: Uuid,
  name: t.String(),
  website: t.Union([t.String(), t.Null()]),
  category: t.Union([t.String(), t.Null()]),
  payTo: t.Object({ network: t.String(), address: t.String() }),
  environment: t.Union([t.Literal('production'), t.Literal('sandbox')], { description: `${ENVIRONMENT_NOTE} (its payTo network)` }),
  status: t.Union([t.Literal('active'), t.Literal('disabled')], { description: '`disabled` (final): executions to it refused' }),
  createdAt: When,
  updatedAt: When,
  disabledAt: MaybeWhen,
}, { title: 'AgentMerchant' })
export const MerchantList = list(Merchant, 'AgentMerchantList')

// audit

export const AuditEntry = t.Object({
  id: Uuid,
  actorType: t.Union([t.Literal('user'), t.Literal('agent'), t.Literal('merchant'), t.Literal('system')], { description: prose`
    \`user\`: a tenantadmin or platform admin (\`actorId\` their user id); \`agent\`, \`merchant\`: a
    key's owner` }),
  actorId: t.Union([t.String(), t.Null()]),
  action: t.String({ description: '`<resource>.<change>`: the webhook event type without `agent_payments.`' }),
  resourceType: t.String(),
  resourceId: Uuid,
  before: t.Union([t.Record(t.String(), t.Any()), t.Null()]),
  after: t.Union([t.Record(t.String(), t.Any()), t.Null()]),
  requestId: t.Union([t.String(), t.Null()]),
  createdAt: When,
}, { title: 'AgentPaymentsAuditEntry' })
export const AuditList = list(AuditEntry, 'AgentPaymentsAuditList')
