/** Request and answer shapes of the shoppers (routes 25-31). */
import { t } from 'elysia'
import { integer } from '../../../http/integer'
import { Limit, Offset } from '../../../http/schemas'
import { Uuid } from '../model'
import { prose } from '../../../http/prose'

const When = t.String({ format: 'date-time' })
const TenantIdField = t.Optional(t.String({ format: 'uuid', description: 'platform admins: the tenant acted on (also accepted in the query); a tenantadmin or a merchant key leaves it out' }))
const ExternalRef = t.String({ minLength: 1, maxLength: 200, description: 'the merchant\'s own id of its customer; unique per merchant' })
const UserId = t.String({ minLength: 1, maxLength: 200, description: 'the shopper\'s user id, as the tenant knows it' })
const Email = t.String({ format: 'email', maxLength: 320 })
const ShopperJwk = t.Object({ kty: t.String({ minLength: 1, maxLength: 16 }) }, {
  additionalProperties: true,
  description: prose`
    the shopper's public key as a JWK: EC P-256 (ES256) or OKP Ed25519 (EdDSA); it signs the AP2
    authorizations of its mandates (docs/agent-payments.md, "Shoppers"). Private members answer 400
    \`SHOPPER_JWK_PRIVATE\`; another key type 400 \`SHOPPER_JWK_INVALID\``,
})

export const CreateShopper = t.Object({
  tenantId: TenantIdField,
  externalRef: ExternalRef,
  userId: t.Optional(UserId),
  email: t.Optional(Email),
  merchantId: Uuid,
  publicKeyJwk: t.Optional(ShopperJwk),
}, { additionalProperties: false, examples: [{ externalRef: 'cust_1042', email: 'ada@example.com', merchantId: '0b6f4c1e-8a52-4d7e-9b3a-2f1c5d6e7a80' }] })
export type CreateShopper = typeof CreateShopper.static

export const UpdateShopper = t.Object({
  externalRef: t.Optional(ExternalRef),
  userId: t.Optional(t.Union([UserId, t.Null()])),
  email: t.Optional(t.Union([Email, t.Null()])),
  publicKeyJwk: t.Optional(t.Union([ShopperJwk, t.Null()])),
}, { additionalProperties: false, minProperties: 1, examples: [{ email: 'ada@example.org' }] })
export type UpdateShopper = typeof UpdateShopper.static

export const ChangeShopperKey = t.Object({
  tenantId: TenantIdField,
  publicKeyJwk: ShopperJwk,
  authorization: t.String({ minLength: 1, maxLength: 20000, description: prose`
    a compact JWS (JWT) signed by the shopper's current key (ES256 or EdDSA) whose claims hold
    \`shopperId\` (this shopper), \`newKeyThumbprint\` (the RFC 7638 thumbprint of \`publicKeyJwk\`)
    and \`exp\`, at most 15 minutes ahead (a key change is not idempotent: one that never expired would
    apply again if the shopper went back to the key that signed it)` }),
}, {
  additionalProperties: false,
  examples: [{
    publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' },
    // a compact JWS: header, payload and signature, joined by dots
    authorization: [
      'eyJhbGciOiJFZERTQSJ9',
      'eyJzaG9wcGVySWQiOiIwYjZmNGMxZS04YTUyLTRkN2UtOWIzYS0yZjFjNWQ2ZTdhODAiLCJuZXdLZXlUaHVtYnByaW50IjoiTlp6ZU9ZdkRKSmFPZ0d5ZVlmNVBNVldfM3U1UmhzdE5qR0xPTmVIZ3RfTSIsImV4cCI6MTc5NTAwMDAwMH0',
      'c2lnbmF0dXJlLW9mLXRoZS1jdXJyZW50LWtleQ',
    ].join('.'),
  }],
})
export type ChangeShopperKey = typeof ChangeShopperKey.static

export const ShopperListQuery = t.Object({
  tenantId: TenantIdField,
  merchantId: t.Optional(Uuid),
  limit: t.Optional(Limit(200, 50)),
  offset: t.Optional(Offset),
})
export const ShopperPageQuery = t.Object({ tenantId: TenantIdField, limit: t.Optional(Limit(200, 50)), offset: t.Optional(Offset) })
export const ShopperParams = t.Object({ shopperId: Uuid })

export const Shopper = t.Object({
  id: Uuid,
  merchantId: Uuid,
  externalRef: t.String(),
  userId: t.Union([t.String(), t.Null()]),
  email: t.Union([t.String(), t.Null()]),
  publicKeyJwk: t.Union([t.Record(t.String(), t.Any()), t.Null()]),
  keyThumbprint: t.Union([t.String(), t.Null()], { description: 'the RFC 7638 thumbprint (SHA-256, base64url) of `publicKeyJwk`; null without a key' }),
  keyChangedAt: t.Union([When, t.Null()], { description: prose`
    when the key last changed after the shopper was created (null: the key given at creation, or none);
    a JWS cannot authorize a mandate created before it` }),
  createdAt: When,
  updatedAt: When,
}, { title: 'AgentPaymentsShopper' })
export const ShopperList = t.Object({ data: t.Array(Shopper), total: integer({ description: 'number of items matching, all pages' }) }, { title: 'AgentPaymentsShopperList' })
