/** Request and answer shapes of the mandates (routes 32-36). */
import { t } from 'elysia'
import { integer } from '../../../http/integer'
import { Limit, Offset } from '../../../http/schemas'
import { DECIMAL_PATTERN } from '../policies/policy'
import { ENVIRONMENT_NOTE, Uuid } from '../model'
import { prose } from '../../../http/prose'

const Amount = (description: string) => t.String({ pattern: DECIMAL_PATTERN, description: `${description}; a decimal string in the currency's units (\`"12.50"\`)`, examples: ['25.00'] })
const Currency = t.String({ pattern: '^[A-Za-z0-9]{2,12}$', description: 'an ISO code (`EUR`, `USD`) or a token symbol of the registry (`USDC`, `EURe`); compared without case' })
const When = t.String({ format: 'date-time' })
const Category = t.String({ pattern: '^[a-z0-9][a-z0-9_.-]{0,63}$', description: 'lower-case, as the tenant names merchants\' categories (`travel`, `saas`)' })
const TenantIdField = t.Optional(t.String({ format: 'uuid', description: 'platform admins: the tenant acted on (also accepted in the query); a tenantadmin may leave it out' }))
const TypeField = t.Union([t.Literal('intent'), t.Literal('cart')])
const StatusField = t.Union([
  t.Literal('pending_authorization'), t.Literal('active'), t.Literal('rejected'), t.Literal('expired'), t.Literal('consumed'), t.Literal('exhausted'), t.Literal('revoked'),
], {
  description: '`pending_authorization → active | rejected | expired`; `active → consumed` (a cart paid) `| exhausted` (budget or occurrences used up) `| revoked | expired`',
})
const Frequency = t.Union([t.Literal('daily'), t.Literal('weekly'), t.Literal('monthly')])

const Constraints = t.Object({
  maxAmount: Amount('the most one payment may be'),
  currency: Currency,
  budget: t.Optional(Amount('the most all payments under the mandate may add up to')),
  merchantIds: t.Optional(t.Array(Uuid, { minItems: 1, maxItems: 100, uniqueItems: true, description: 'merchants of the tenant it may pay; any when absent' })),
  categories: t.Optional(t.Array(Category, { minItems: 1, maxItems: 50, uniqueItems: true, description: 'merchant categories it may pay; any when absent' })),
  recurrence: t.Optional(t.Object({
    frequency: Frequency,
    maxOccurrences: integer({ minimum: 1, maximum: 10000, description: 'payments in all; at most one per period (UTC day, week from Monday, calendar month)' }),
  }, { additionalProperties: false })),
  notBefore: t.Optional(When),
  notAfter: t.Optional(When),
}, { additionalProperties: false })

const CartItem = t.Object({
  name: t.String({ minLength: 1, maxLength: 200 }),
  quantity: integer({ minimum: 1, maximum: 1_000_000 }),
  unitPrice: Amount('the price of one'),
}, { additionalProperties: false })

const Cart = t.Object({
  items: t.Array(CartItem, { minItems: 1, maxItems: 100 }),
  total: Amount('the sum of quantity × unitPrice of the items, exactly'),
  currency: Currency,
  merchantId: Uuid,
}, { additionalProperties: false })

export const CreateMandate = t.Object({
  tenantId: TenantIdField,
  type: TypeField,
  agentId: Uuid,
  shopperId: t.Optional(t.String({ format: 'uuid', description: 'a shopper of the tenant (404 `SHOPPER_NOT_FOUND`), whose key may then authorize the mandate' })),
  constraints: Constraints,
  cart: t.Optional(Cart),
  description: t.Optional(t.String({ maxLength: 1000 })),
  expiresAt: When,
  humanPresent: t.Boolean({ description: 'whether a human confirms each payment (the executions will ask for the confirmation)' }),
}, {
  additionalProperties: false,
  examples: [{
    type: 'intent', agentId: '0b6f4c1e-8a52-4d7e-9b3a-2f1c5d6e7a80',
    constraints: { maxAmount: '50.00', currency: 'USDC', budget: '200.00', categories: ['travel'] },
    expiresAt: '2026-12-31T00:00:00.000Z', humanPresent: false,
  }],
})
export type CreateMandate = typeof CreateMandate.static

export const AuthorizeMandate = t.Object({
  tenantId: TenantIdField,
  userAuthorization: t.Optional(t.String({ minLength: 1, maxLength: 20000, description: prose`
    AP2: a compact JWS (JWT) signed by the mandate's shopper's \`publicKeyJwk\` (ES256 or EdDSA) whose
    payload holds \`contentHash\`, the hex SHA-256 of the mandate's canonical content
    (docs/agent-payments.md, "Shoppers"); \`exp\` honoured when present` })),
}, { additionalProperties: false, examples: [{}] })
export type AuthorizeMandate = typeof AuthorizeMandate.static

export const MandateListQuery = t.Object({
  tenantId: TenantIdField,
  type: t.Optional(TypeField),
  status: t.Optional(StatusField),
  agentId: t.Optional(Uuid),
  shopperId: t.Optional(Uuid),
  limit: t.Optional(Limit(200, 50)),
  offset: t.Optional(Offset),
})
export const MandateParams = t.Object({ mandateId: Uuid })

export const Mandate = t.Object({
  id: Uuid,
  type: TypeField,
  agentId: Uuid,
  shopperId: t.Union([t.String(), t.Null()]),
  status: StatusField,
  environment: t.Union([t.Literal('production'), t.Literal('sandbox')], { description: `${ENVIRONMENT_NOTE} (its agent's)` }),
  constraints: Constraints,
  cart: t.Union([Cart, t.Null()]),
  description: t.Union([t.String(), t.Null()]),
  humanPresent: t.Boolean(),
  expiresAt: When,
  authorization: t.Union([t.Object({
    authorizedBy: t.Union([Uuid, t.Null()], { description: 'the user who approved it; null when the shopper\'s JWS authorized it' }),
    authorizedAt: When,
    contentHash: t.String({ description: 'lower-case hex SHA-256 of the mandate\'s content approved (docs/agent-payments.md, "Mandates")' }),
    keyThumbprint: t.Union([t.String(), t.Null()], { description: 'the RFC 7638 thumbprint (SHA-256, base64url) of the shopper\'s key whose JWS authorized it; null when a user approved it' }),
  }), t.Null()]),
  createdAt: When,
  updatedAt: When,
  endedAt: t.Union([When, t.Null()], { description: 'when it reached a final state' }),
}, { title: 'Mandate' })

export const MandateList = t.Object({ data: t.Array(Mandate), total: integer({ description: 'number of items matching, all pages' }) }, { title: 'MandateList' })
