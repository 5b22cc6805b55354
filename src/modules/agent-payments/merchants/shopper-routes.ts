/** Routes 25-31: shoppers, for a tenant admin (J) or a merchant key of their merchant (M). */
import { Elysia } from 'elysia'
import type { Deps } from '../../../deps'
import { errorResponses } from '../../../http/schemas'
import { lazyService } from '../../../lib/lazy'
import { J } from '../agents/agent-routes'
import { apSecurity, scopeOf } from '../agents/credentials'
import { MandateList } from '../mandates/mandate-model'
import { ExecutionList } from '../executions/execution-model'
import { TenantQuery } from '../model'
import { ChangeShopperKey, CreateShopper, Shopper, ShopperList, ShopperListQuery, ShopperPageQuery, ShopperParams, UpdateShopper } from './shopper-model'
import { prose } from '../../../http/prose'

/** loaded with the first request that needs it */
const shoppers = lazyService(() => import('./shoppers'))

const M = (scope: string) => prose`
  Or a merchant API key (\`Authorization: Bearer sk_merch_…\`) with the scope \`${scope}\`, seeing
  only its merchant's shoppers (another merchant's answer 404; without the scope 403; 120 requests per
  minute per key, then 403 \`Rate limit exceeded\`).`

const KEY_RULE = prose`
  Who sets a shopper's key: whoever creates the shopper (J or M); then only a tenant admin (PATCH,
  audited) or the shopper itself (\`POST /shoppers/{shopperId}/key\`, signed by its current key). A
  JWS cannot authorize a mandate created before the last key change.`

export function shopperRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/agent-payments/shoppers', detail: { tags: ['Agent payments'] } })
    .use(apSecurity(deps))
    .post('', async ({ body, caller, set }) => {
      const out = await shoppers.createShopper(await scopeOf(caller, body.tenantId), body)
      set.status = 201
      return out
    }, {
      apAuth: 'operatorOrMerchant:shoppers:write',
      body: CreateShopper,
      response: { 201: Shopper, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: {
        operationId: 'agentPaymentsCreateShopper',
        summary: 'Create a shopper',
        description: prose`
          ${J} ${M('shoppers:write')} A merchant key creates only for its own merchant (another \`merchantId\`
          answers 404). An unknown merchant 404; a disabled one 409 \`MERCHANT_DISABLED\`; an \`externalRef\`
          the merchant already has 409 \`SHOPPER_EXISTS\`. \`publicKeyJwk\`: 400 \`SHOPPER_JWK_PRIVATE\` or
          \`SHOPPER_JWK_INVALID\`.`,
      },
    })
    .get('', async ({ query, caller }) => shoppers.listShoppers(await scopeOf(caller, query.tenantId), query), {
      apAuth: 'operatorOrMerchant:shoppers:read',
      query: ShopperListQuery,
      response: { 200: ShopperList, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsListShoppers', summary: 'List shoppers', description: `${J} ${M('shoppers:read')} Newest first; \`?merchantId\` filters.` },
    })
    .get('/:shopperId', async ({ params, query, caller }) => shoppers.getShopper(await scopeOf(caller, query.tenantId), params.shopperId), {
      apAuth: 'operatorOrMerchant:shoppers:read',
      params: ShopperParams,
      query: TenantQuery,
      response: { 200: Shopper, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsGetShopper', summary: 'One shopper', description: `${J} ${M('shoppers:read')}` },
    })
    .patch('/:shopperId', async ({ params, query, body, caller }) => shoppers.updateShopper(await scopeOf(caller, query.tenantId), params.shopperId, body), {
      apAuth: 'operatorOrMerchant:shoppers:write',
      params: ShopperParams,
      query: TenantQuery,
      body: UpdateShopper,
      response: { 200: Shopper, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: {
        operationId: 'agentPaymentsUpdateShopper',
        summary: 'Change a shopper',
        description: prose`
          ${J} ${M('shoppers:write')} externalRef, userId, email, publicKeyJwk (null clears them, but
          externalRef); its merchant stays. ${KEY_RULE} A merchant key sending another \`publicKeyJwk\` than
          the shopper's gets 403 \`SHOPPER_KEY_CHANGE_FORBIDDEN\` (nothing changed); a tenant admin's key
          change is audited as \`shopper.key_changed\`.`,
      },
    })
    .post('/:shopperId/key', async ({ params, body, caller }) => shoppers.changeShopperKey(await scopeOf(caller, body.tenantId), params.shopperId, body), {
      apAuth: 'operatorOrMerchant:shoppers:write',
      params: ShopperParams,
      body: ChangeShopperKey,
      response: { 200: Shopper, ...errorResponses('standard', 400, 401, 403, 404, 409) },
      detail: {
        operationId: 'agentPaymentsChangeShopperKey',
        summary: 'Change a shopper\'s key with its current key\'s signature',
        description: prose`
          ${J} ${M('shoppers:write')} The shopper's own key change, relayed: \`authorization\` is a compact
          JWS (JWT) signed by the shopper's current key whose claims hold \`shopperId\` and
          \`newKeyThumbprint\` (the RFC 7638 thumbprint of the new \`publicKeyJwk\`), and \`exp\` at most
          15 minutes ahead. 400 \`SHOPPER_JWS_INVALID\` (another key, tampered, malformed, another
          algorithm, no \`exp\` or one further ahead),
          \`SHOPPER_JWS_CONTENT_MISMATCH\` (another shopper or key), \`SHOPPER_JWS_EXPIRED\`,
          \`SHOPPER_JWK_PRIVATE\`, \`SHOPPER_JWK_INVALID\`; 409 \`SHOPPER_KEY_MISSING\` (no current key: a
          tenant admin sets it) or \`SHOPPER_KEY_CHANGED\` (another change came first). The same key answers
          the shopper unchanged. Audited as \`shopper.key_changed\`. ${KEY_RULE}`,
      },
    })
    .delete('/:shopperId', async ({ params, query, caller }) => shoppers.deleteShopper(await scopeOf(caller, query.tenantId), params.shopperId), {
      apAuth: 'operatorOrMerchant:shoppers:write',
      params: ShopperParams,
      query: TenantQuery,
      response: { 200: Shopper, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsDeleteShopper', summary: 'Remove a shopper', description: prose`
        ${J} ${M('shoppers:write')} It answers 404 after; its mandates keep its id, and its JWS can no
        longer authorize them.` },
    })
    .get('/:shopperId/mandates', async ({ params, query, caller }) => shoppers.shopperMandates(await scopeOf(caller, query.tenantId), params.shopperId, query), {
      apAuth: 'operatorOrMerchant:mandates:read',
      params: ShopperParams,
      query: ShopperPageQuery,
      response: { 200: MandateList, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsListShopperMandates', summary: 'A shopper\'s mandates', description: `${J} ${M('mandates:read')} Newest first.` },
    })
    .get('/:shopperId/executions', async ({ params, query, caller }) => shoppers.shopperExecutions(await scopeOf(caller, query.tenantId), params.shopperId, query), {
      apAuth: 'operatorOrMerchant:executions:read',
      params: ShopperParams,
      query: ShopperPageQuery,
      response: { 200: ExecutionList, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsListShopperExecutions', summary: 'A shopper\'s executions', description: `${J} ${M('executions:read')} The executions under its mandates, newest first.` },
    })
}
