/**
 * The chains and tokens active for the caller's tenant, read from the registry with the
 * tenant's `chains` settings. Platform admins (no tenant) see the server defaults.
 */
import type { Ctx } from '../../context'
import { NotFoundError } from '../../lib/errors'
import { findTenant, settingsOf } from '../tenants'
import type { StoredSettings } from '../tenants'
import type { ChainsQuery, TokensQuery } from './model'
import { activeTokens, CHAINS, chainEnabled, lookupChain, type ChainDef, type NetworkDef } from '../../adapters/chain/registry'

async function settingsFor(ctx: Ctx): Promise<StoredSettings | null> {
  if (!ctx.actor.tenantId) return null
  const row = await findTenant(ctx.deps.database.db, ctx.actor.tenantId)
  return row ? settingsOf(ctx, row) : null
}

const networks = (settings: StoredSettings | null, isTestnet?: boolean) =>
  CHAINS.filter((c) => chainEnabled(settings, c.id)).flatMap((c) => [c.mainnet, c.testnet].filter((n) => isTestnet === undefined || n.isTestnet === isTestnet).map((n) => ({ c, n })))

const tokenView = (c: ChainDef, n: NetworkDef) => (tk: NetworkDef['tokens'][number]) => ({
  chain: c.id, network: n.id, isTestnet: n.isTestnet, symbol: tk.symbol, name: tk.name, decimals: tk.decimals, address: tk.address, isNative: tk.address === null,
})

/** Every enabled network that has at least one active token. */
export async function listChains(ctx: Ctx, query: ChainsQuery) {
  const settings = await settingsFor(ctx)
  const chains = networks(settings, query.isTestnet)
    .filter(({ c, n }) => activeTokens(settings, c, n).length > 0)
    .map(({ c, n }) => ({ id: n.id, name: n.name, chainId: n.chainId, family: c.id, isTestnet: n.isTestnet, nativeToken: c.nativeToken }))
  return { chains }
}

export async function listTokens(ctx: Ctx, query: TokensQuery) {
  const settings = await settingsFor(ctx)
  return { tokens: networks(settings, query.isTestnet).flatMap(({ c, n }) => activeTokens(settings, c, n).map(tokenView(c, n))) }
}

/** The active tokens of one network; unknown chains and chains not enabled for the tenant answer 404. */
export async function chainTokens(ctx: Ctx, chain: string, query: TokensQuery) {
  const settings = await settingsFor(ctx)
  const found = lookupChain(chain)
  if (!found || !chainEnabled(settings, found.chain.id)) throw new NotFoundError(`Unknown chain: ${chain}`)
  const c = found.chain
  // A registry id names one network; a family id names mainnet unless isTestnet says otherwise.
  const n = found.network.isTestnet || query.isTestnet ? c.testnet : c.mainnet
  return { chain: c.id, network: n.id, isTestnet: n.isTestnet, tokens: activeTokens(settings, c, n).map(tokenView(c, n)) }
}
