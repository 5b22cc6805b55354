/** Routes 17-24: merchants and their API keys. */
import { Elysia } from 'elysia'
import type { Deps } from '../../../deps'
import { errorResponses } from '../../../http/schemas'
import { J } from '../agents/agent-routes'
import { apSecurity, scopeOf } from '../agents/credentials'
import {
  ApiKey, ApiKeyList, ApiKeyWithSecret, CreateMerchant, CreateMerchantKey, Merchant, MerchantKeyParams, MerchantList,
  MerchantListQuery, MerchantParams, PageQuery, TenantQuery, UpdateMerchant,
} from '../model'
import { lazyService } from '../../../lib/lazy'
import { prose } from '../../../http/prose'
/** loaded with the first request that needs it (it brings the chain libraries) */
const keys = lazyService(() => import('../agents/keys'))
/** loaded with the first request that needs it (it brings the chain libraries) */
const merchants = lazyService(() => import('./merchants'))

const PAY_TO = prose`
  \`payTo.network\`: a registry id (\`base\`, \`sepolia\`); \`payTo.address\` an address of its family
  (EVM stored EIP-55; Solana base58); anything else answers 400 \`MERCHANT_PAY_TO_INVALID\`. A testnet
  makes \`environment\` \`sandbox\`.`

export function merchantRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/agent-payments/merchants', detail: { tags: ['Agent payments'] } })
    .use(apSecurity(deps))
    .post('', async ({ body, caller, set }) => {
      const out = await merchants.createMerchant(await scopeOf(caller, body.tenantId), body)
      set.status = 201
      return out
    }, {
      apAuth: 'operator',
      body: CreateMerchant,
      response: { 201: Merchant, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsCreateMerchant', summary: 'Create a merchant', description: `${J} ${PAY_TO}` },
    })
    .get('', async ({ query, caller }) => merchants.listMerchants(await scopeOf(caller, query.tenantId), query), {
      apAuth: 'operator',
      query: MerchantListQuery,
      response: { 200: MerchantList, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsListMerchants', summary: 'List merchants', description: `${J} Newest first; \`?status\` filters.` },
    })
    .get('/:merchantId', async ({ params, query, caller }) => merchants.getMerchant(await scopeOf(caller, query.tenantId), params.merchantId), {
      apAuth: 'operator',
      params: MerchantParams,
      query: TenantQuery,
      response: { 200: Merchant, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsGetMerchant', summary: 'One merchant', description: J },
    })
    .patch('/:merchantId', async ({ params, query, body, caller }) => merchants.updateMerchant(await scopeOf(caller, query.tenantId), params.merchantId, body), {
      apAuth: 'operator',
      params: MerchantParams,
      query: TenantQuery,
      body: UpdateMerchant,
      response: { 200: Merchant, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsUpdateMerchant', summary: 'Change a merchant', description: `${J} name, website, category (null clears them), payTo. ${PAY_TO}` },
    })
    .delete('/:merchantId', async ({ params, query, caller }) => merchants.disableMerchant(await scopeOf(caller, query.tenantId), params.merchantId), {
      apAuth: 'operator',
      params: MerchantParams,
      query: TenantQuery,
      response: { 200: Merchant, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsDisableMerchant', summary: 'Disable a merchant', description: prose`
        ${J} Final: executions to it will be refused and its API keys are revoked in the same step. A
        disabled merchant answers as it is.` },
    })
    .post('/:merchantId/api-keys', async ({ params, body, caller, set }) => {
      const out = await keys.createKey(await scopeOf(caller, body.tenantId), 'merchant', params.merchantId, body)
      set.status = 201
      return out
    }, {
      apAuth: 'operator',
      params: MerchantParams,
      body: CreateMerchantKey,
      response: { 201: ApiKeyWithSecret, ...errorResponses('standard', 401, 403, 404, 409) },
      detail: { operationId: 'agentPaymentsCreateMerchantKey', summary: 'Create a merchant API key', description: prose`
        ${J} Answers the key (\`sk_merch_…\`) once: only its SHA-256 is kept. \`scopes\`: \`shoppers:read\`,
        \`shoppers:write\`, \`mandates:read\`, \`executions:read\` (they open the shopper routes 25-31:
        \`GET /shoppers…\` with \`shoppers:read\`, \`POST\`/\`PATCH\`/\`DELETE\` with \`shoppers:write\`, a
        shopper's mandates with \`mandates:read\`, its executions with \`executions:read\`, for this
        merchant's shoppers only). A disabled merchant answers 409 \`MERCHANT_DISABLED\`.` },
    })
    .get('/:merchantId/api-keys', async ({ params, query, caller }) => keys.listKeys(await scopeOf(caller, query.tenantId), 'merchant', params.merchantId, query), {
      apAuth: 'operator',
      params: MerchantParams,
      query: PageQuery,
      response: { 200: ApiKeyList, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsListMerchantKeys', summary: 'List a merchant\'s API keys', description: `${J} Revoked keys included; never the key itself.` },
    })
    .delete('/:merchantId/api-keys/:keyId', async ({ params, query, caller }) => keys.revokeKey(await scopeOf(caller, query.tenantId), 'merchant', params.merchantId, params.keyId), {
      apAuth: 'operator',
      params: MerchantKeyParams,
      query: TenantQuery,
      response: { 200: ApiKey, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'agentPaymentsRevokeMerchantKey', summary: 'Revoke a merchant API key', description: `${J} At once: its next request answers 401. A revoked key answers as it is.` },
    })
}
