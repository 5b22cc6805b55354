/**
 * Tokens group: the chains and tokens active for the caller's tenant. Platform admins
 * (no tenant) see the server defaults.
 */
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { NotFoundError } from '../../http/errors'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { findTenant, settingsOf } from '../tenants/service'
import type { StoredSettings } from '../tenants/settings'
import { activeTokens, CHAINS, chainEnabled, lookupChain, type ChainDef, type NetworkDef } from './registry'

export const ChainEntry = t.Object({
  id: t.String({ description: 'registry id: the family chain id for mainnet (`ethereum`), the testnet id otherwise (`sepolia`)' }),
  name: t.String(),
  chainId: t.Union([t.Integer(), t.Null()], { description: 'EIP-155 chain id; null for Solana' }),
  family: t.String({ description: 'family chain id used in wallet, balance and transaction requests' }),
  isTestnet: t.Boolean(),
  nativeToken: t.Object({ symbol: t.String(), name: t.String(), decimals: t.Integer() }),
}, { title: 'ChainEntry' })

export const Token = t.Object({
  chain: t.String({ description: 'family chain id' }),
  network: t.String({ description: 'registry id of the network' }),
  isTestnet: t.Boolean(),
  symbol: t.String(),
  name: t.String(),
  decimals: t.Integer(),
  address: t.Union([t.String(), t.Null()], { description: 'contract (EVM) or mint (Solana); null for the native coin' }),
  isNative: t.Boolean(),
}, { title: 'Token' })

const tokenView = (c: ChainDef, n: NetworkDef) => (tk: NetworkDef['tokens'][number]) => ({
  chain: c.id, network: n.id, isTestnet: n.isTestnet, symbol: tk.symbol, name: tk.name, decimals: tk.decimals, address: tk.address, isNative: tk.address === null,
})

export function tokenRoutes(deps: Deps) {
  const settingsFor = async (tenantId: string | null): Promise<StoredSettings | null> => {
    if (!tenantId) return null
    const row = await findTenant(deps.database.db, tenantId)
    return row ? settingsOf({ deps }, row) : null
  }
  const networks = (settings: StoredSettings | null, isTestnet?: boolean) =>
    CHAINS.filter((c) => chainEnabled(settings, c.id)).flatMap((c) => [c.mainnet, c.testnet].filter((n) => isTestnet === undefined || n.isTestnet === isTestnet).map((n) => ({ c, n })))

  return new Elysia({ prefix: '/v1/tokens', detail: { tags: ['Tokens'] } })
    .use(security(deps))
    .get('/meta/chains', async ({ actor, query }) => {
      const settings = await settingsFor(actor.tenantId)
      const chains = networks(settings, query.isTestnet)
        .filter(({ c, n }) => activeTokens(settings, c, n).length > 0)
        .map(({ c, n }) => ({ id: n.id, name: n.name, chainId: n.chainId, family: c.id, isTestnet: n.isTestnet, nativeToken: c.nativeToken }))
      return { chains }
    }, {
      auth: 'any',
      query: t.Object({ isTestnet: t.Optional(t.Boolean({ description: 'only mainnets (`false`) or only testnets (`true`)' })) }),
      response: { 200: t.Object({ chains: t.Array(ChainEntry) }), ...errorResponses('standard', 400, 401) },
      detail: {
        operationId: 'listChains',
        summary: 'Chains available to the tenant',
        description: 'One entry per network (mainnet and testnet) of each chain enabled for the tenant (`chains.enabled`, `null` = every default chain) that has at least one active token (`chains.tokens`).',
      },
    })
    .get('/', async ({ actor, query }) => {
      const settings = await settingsFor(actor.tenantId)
      return { tokens: networks(settings, query.isTestnet).flatMap(({ c, n }) => activeTokens(settings, c, n).map(tokenView(c, n))) }
    }, {
      auth: 'any',
      query: t.Object({ isTestnet: t.Optional(t.Boolean()) }),
      response: { 200: t.Object({ tokens: t.Array(Token) }), ...errorResponses('standard', 400, 401) },
      detail: { operationId: 'listTokens', summary: 'Tokens active for the tenant on every enabled chain', description: 'Native coins have `address: null`. Decimals convert between the smallest unit and the displayed amount.' },
    })
    .get('/chain/:chain', async ({ actor, params, query }) => {
      const settings = await settingsFor(actor.tenantId)
      const found = lookupChain(params.chain)
      if (!found || !chainEnabled(settings, found.chain.id)) throw new NotFoundError(`Unknown chain: ${params.chain}`)
      const c = found.chain
      // A registry id names one network; a family id names mainnet unless isTestnet says otherwise.
      const n = found.network.isTestnet || query.isTestnet ? c.testnet : c.mainnet
      return { chain: c.id, network: n.id, isTestnet: n.isTestnet, tokens: activeTokens(settings, c, n).map(tokenView(c, n)) }
    }, {
      auth: 'any',
      params: t.Object({ chain: t.String({ maxLength: 64, description: 'family chain id or registry id' }) }),
      query: t.Object({ isTestnet: t.Optional(t.Boolean()) }),
      response: { 200: t.Object({ chain: t.String(), network: t.String(), isTestnet: t.Boolean(), tokens: t.Array(Token) }), ...errorResponses('standard', 400, 401, 404) },
      detail: { operationId: 'listChainTokens', summary: 'Tokens active for the tenant on one chain', description: 'Unknown chains and chains not enabled for the tenant answer 404.' },
    })
}
