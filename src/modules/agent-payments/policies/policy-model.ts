/** Request and answer shapes of the agent payments policies (`/v1/agent-payments/policies`): spending limits, approvals and the "what if" simulation. */
import { t } from 'elysia'
import { integer } from '../../../http/integer'
import { Amount, Category, Currency, list, Network, TenantIdField, Uuid, When } from '../model'
import { prose } from '../../../http/prose'

const Limits = t.Array(t.Object({
  interval: t.Union([t.Literal('per_transaction'), t.Literal('daily'), t.Literal('weekly'), t.Literal('monthly'), t.Literal('all_time')]),
  amount: Amount('the most that may be paid in the interval'),
}, { additionalProperties: false }), { maxItems: 5, description: prose`
  each interval at most once; windows are local days, weeks from Monday and calendar months in the
  policy's time zone (\`activeHours.timeZone\`, else UTC). An execution counts in the windows
  containing the instant it was last judged (created, approved or confirmed), from that instant: one
  waiting for an approval or a confirmation holds its amount there; rejected, canceled, expired and
  failed ones count no more` })
const ActiveHoursSchema = t.Object({
  timeZone: t.String({ minLength: 1, maxLength: 64, description: prose`
    an IANA zone name (\`Europe/Berlin\`, \`UTC\`); the policy's days, weeks and months are counted in
    it. An offset (\`+01:00\`, \`-00:05\`) or an unknown zone: 400 \`POLICY_INVALID\` whose
    \`details[0].path\` is \`/activeHours/timeZone\`` }),
  days: t.Array(
    t.Union([t.Literal('mon'), t.Literal('tue'), t.Literal('wed'), t.Literal('thu'), t.Literal('fri'), t.Literal('sat'), t.Literal('sun')]),
    { minItems: 1, maxItems: 7, uniqueItems: true },
  ),
  start: t.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'local time `HH:MM`, included' }),
  end: t.String({ pattern: '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$', description: 'local time `HH:MM`, excluded; after `start` (no window across midnight)' }),
}, { additionalProperties: false, description: 'payments only on these local weekdays, from `start` to `end`' })
const IdList = t.Array(Uuid, { maxItems: 500, uniqueItems: true })
const policyFields = {
  name: t.String({ minLength: 1, maxLength: 100 }),
  currency: Currency,
  limits: Limits,
  allowedMerchantIds: IdList,
  blockedMerchantIds: IdList,
  allowedCategories: t.Array(Category, { maxItems: 100, uniqueItems: true }),
  allowedRails: t.Array(t.Union([t.Literal('onchain'), t.Literal('x402')]), { minItems: 1, maxItems: 2, uniqueItems: true }),
  allowedNetworks: t.Array(Network, { maxItems: 50, uniqueItems: true }),
  approvalMode: t.Union([t.Literal('auto'), t.Literal('threshold'), t.Literal('always')], { description: '`auto`: no approval; `threshold`: above `approvalThreshold`; `always`: every payment' }),
  approvalThreshold: Amount('with `approvalMode: threshold` (and only then): payments above it need an approval'),
  maxExecutionsPerDay: integer({ minimum: 1, maximum: 100000 }),
  activeHours: ActiveHoursSchema,
  allowUnregisteredPayees: t.Boolean({ description: prose`
    whether a payee that is no merchant of the tenant may be paid (an x402 resource's \`payTo\` when the
    execution names no merchant). Every payment is also judged by the address it pays: an address
    registered by a merchant the policy blocks (\`MERCHANT_BLOCKED\`) or one disabled
    (\`MERCHANT_DISABLED\`) is refused, named or not. \`true\`: unregistered payees allowed; \`false\`:
    refused (\`PAYEE_UNREGISTERED\`; on x402, the requirement is refused before signing); not set
    (null): allowed only when the policy has no merchant rule (\`allowedMerchantIds\`,
    \`blockedMerchantIds\`, \`allowedCategories\`). \`true\` cannot go with \`allowedMerchantIds\` or
    \`allowedCategories\`, which allow only named merchants` }),
}
export const CreatePolicy = t.Object({
  tenantId: TenantIdField,
  name: policyFields.name,
  currency: policyFields.currency,
  limits: policyFields.limits,
  allowedMerchantIds: t.Optional(policyFields.allowedMerchantIds),
  blockedMerchantIds: t.Optional(policyFields.blockedMerchantIds),
  allowedCategories: t.Optional(policyFields.allowedCategories),
  allowedRails: t.Optional(policyFields.allowedRails),
  allowedNetworks: t.Optional(policyFields.allowedNetworks),
  approvalMode: t.Optional({ ...policyFields.approvalMode, default: 'auto' }),
  approvalThreshold: t.Optional(policyFields.approvalThreshold),
  maxExecutionsPerDay: t.Optional(policyFields.maxExecutionsPerDay),
  activeHours: t.Optional(policyFields.activeHours),
  allowUnregisteredPayees: t.Optional(policyFields.allowUnregisteredPayees),
}, {
  additionalProperties: false,
  examples: [{
    name: 'Travel', currency: 'USDC',
    limits: [{ interval: 'per_transaction', amount: '200' }, { interval: 'daily', amount: '500' }, { interval: 'monthly', amount: '3000' }],
    allowedCategories: ['travel'], allowedRails: ['onchain', 'x402'], allowedNetworks: ['base'],
    approvalMode: 'threshold', approvalThreshold: '100', maxExecutionsPerDay: 20,
    activeHours: { timeZone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '08:00', end: '20:00' },
  }],
})
export type CreatePolicy = typeof CreatePolicy.static

const nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Optional(t.Union([s, t.Null()]))
export const UpdatePolicy = t.Object({
  name: t.Optional(policyFields.name),
  currency: t.Optional(policyFields.currency),
  limits: t.Optional(policyFields.limits),
  allowedMerchantIds: nullable(policyFields.allowedMerchantIds),
  blockedMerchantIds: nullable(policyFields.blockedMerchantIds),
  allowedCategories: nullable(policyFields.allowedCategories),
  allowedRails: nullable(policyFields.allowedRails),
  allowedNetworks: nullable(policyFields.allowedNetworks),
  approvalMode: t.Optional(policyFields.approvalMode),
  approvalThreshold: nullable(policyFields.approvalThreshold),
  maxExecutionsPerDay: nullable(policyFields.maxExecutionsPerDay),
  activeHours: nullable(policyFields.activeHours),
  allowUnregisteredPayees: nullable(policyFields.allowUnregisteredPayees),
}, { additionalProperties: false, minProperties: 1, examples: [{ limits: [{ interval: 'per_transaction', amount: '150' }, { interval: 'daily', amount: '400' }], maxExecutionsPerDay: null }] })
export type UpdatePolicy = typeof UpdatePolicy.static

export const Policy = t.Object({
  id: Uuid,
  name: t.String(),
  currency: t.String(),
  limits: t.Array(t.Object({ interval: t.String(), amount: t.String({ description: 'a decimal string' }) })),
  allowedMerchantIds: t.Union([t.Array(Uuid), t.Null()], { description: 'null: any merchant' }),
  blockedMerchantIds: t.Union([t.Array(Uuid), t.Null()]),
  allowedCategories: t.Union([t.Array(t.String()), t.Null()], { description: 'null: any category' }),
  allowedRails: t.Union([t.Array(t.String()), t.Null()], { description: 'null: any rail' }),
  allowedNetworks: t.Union([t.Array(t.String()), t.Null()], { description: 'null: any network' }),
  approvalMode: t.String(),
  approvalThreshold: t.Union([t.String({ description: 'a decimal string' }), t.Null()]),
  maxExecutionsPerDay: t.Union([integer(), t.Null()]),
  activeHours: t.Union([t.Object({ timeZone: t.String(), days: t.Array(t.String()), start: t.String(), end: t.String() }), t.Null()]),
  allowUnregisteredPayees: t.Union([t.Boolean(), t.Null()], { description: 'null: not set (unregistered payees allowed only when the policy has no merchant rule)' }),
  version: integer({ description: '1 at creation, + 1 on each change' }),
  createdAt: When,
  updatedAt: When,
}, { title: 'AgentPolicy' })
export const PolicyList = list(Policy, 'AgentPolicyList')

export const SimulateBody = t.Object({
  tenantId: TenantIdField,
  agentId: t.String({ format: 'uuid', description: 'an agent of the tenant (it need not use this policy: the simulation asks "what if")' }),
  merchantId: t.Optional(t.String({ format: 'uuid' })),
  amount: Amount('the payment'),
  currency: Currency,
  rail: t.Union([t.Literal('onchain'), t.Literal('x402')]),
  network: t.Optional(Network),
}, {
  additionalProperties: false,
  examples: [{ agentId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', merchantId: '3fa85f64-5717-4562-b3fc-2c963f66afa6', amount: '120.00', currency: 'USDC', rail: 'onchain' }],
})
export type SimulateBody = typeof SimulateBody.static

export const Simulation = t.Object({
  decision: t.Union([t.Literal('allow'), t.Literal('require_approval'), t.Literal('deny')]),
  reasons: t.Array(t.Object({ code: t.String(), message: t.String(), interval: t.Optional(t.String()) }), { description: 'every deny reason, or the approval reason; empty on `allow`' }),
  policyId: Uuid,
  policyVersion: integer(),
  evaluatedAt: When,
}, { title: 'AgentPolicySimulation' })
