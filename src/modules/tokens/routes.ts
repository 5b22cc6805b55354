/**
 * Tokens group: the chains and tokens active for the caller's tenant. Platform admins
 * (no tenant) see the server defaults.
 */
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { ChainParams, Chains, ChainsQuery, ChainTokens, Tokens, TokensQuery } from './model'
import * as tokens from './service'

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  listChains: prose`
    One entry per network (mainnet and testnet) of each chain enabled for the tenant
    (\`chains.enabled\`, \`null\` = every default chain) that has at least one active token
    (\`chains.tokens\`).`,
  listTokens: prose`
    Native coins have \`address: null\`. Decimals convert between the smallest unit and the
    displayed amount.`,
}

export function tokenRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/tokens', detail: { tags: ['Tokens'] } })
    .use(security(deps))
    .get('/meta/chains', ({ ctx, query }) => tokens.listChains(ctx, query), {
      auth: 'any',
      query: ChainsQuery,
      response: { 200: Chains, ...errorResponses('standard', 400, 401) },
      detail: {
        operationId: 'listChains',
        summary: 'Chains available to the tenant',
        description: descriptions.listChains,
      },
    })
    .get('/', ({ ctx, query }) => tokens.listTokens(ctx, query), {
      auth: 'any',
      query: TokensQuery,
      response: { 200: Tokens, ...errorResponses('standard', 400, 401) },
      detail: { operationId: 'listTokens', summary: 'Tokens active for the tenant on every enabled chain', description: descriptions.listTokens },
    })
    .get('/chain/:chain', ({ ctx, params, query }) => tokens.chainTokens(ctx, params.chain, query), {
      auth: 'any',
      params: ChainParams,
      query: TokensQuery,
      response: { 200: ChainTokens, ...errorResponses('standard', 400, 401, 404) },
      detail: { operationId: 'listChainTokens', summary: 'Tokens active for the tenant on one chain', description: 'Unknown chains and chains not enabled for the tenant answer 404.' },
    })
}
