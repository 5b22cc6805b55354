/**
 * Where Aave v3's Pool is on each network Slipway knows: the `POOL` of the network's market
 * in Aave's address book (@bgd-labs/aave-address-book, MIT, the version in package.json),
 * overridable per network with `AAVE_POOL_<REGISTRY ID>` (config.aavePools). Networks missing
 * here have no Aave v3 market in the address book (polygon-amoy, bsc-testnet,
 * celo-alfajores, flowevm, gnosis-chiado): configure one to use them. The book (every
 * market of every Aave deployment) loads with the first lending call, not at boot.
 */
import type { Config } from '../../config'
import { BadRequestError } from '../../lib/errors'

/** each registry network (src/adapters/chain/registry.ts) and its Aave v3 market's name in the address book */
export const AAVE_V3_MARKETS = {
  ethereum: 'AaveV3Ethereum',
  sepolia: 'AaveV3Sepolia',
  polygon: 'AaveV3Polygon',
  arbitrum: 'AaveV3Arbitrum',
  'arbitrum-sepolia': 'AaveV3ArbitrumSepolia',
  optimism: 'AaveV3Optimism',
  'optimism-sepolia': 'AaveV3OptimismSepolia',
  base: 'AaveV3Base',
  'base-sepolia': 'AaveV3BaseSepolia',
  avalanche: 'AaveV3Avalanche',
  'avalanche-fuji': 'AaveV3Fuji',
  gnosis: 'AaveV3Gnosis',
  bsc: 'AaveV3BNB',
  celo: 'AaveV3Celo',
} as const

type Address = `0x${string}`
type Market = { POOL: string; CHAIN_ID: number }

let book: Promise<Readonly<Record<string, Market>>> | undefined
/** the address book's market on each network of AAVE_V3_MARKETS, loaded once */
export function aaveV3Markets(): Promise<Readonly<Record<string, Market>>> {
  book ??= import('@bgd-labs/aave-address-book').then((m) =>
    Object.fromEntries(Object.entries(AAVE_V3_MARKETS).map(([network, name]) => [network, m[name] as Market])))
  return book
}

/** The Pool on the network (registry id), or null where neither the address book nor the configuration has one. */
export async function poolOf(config: Pick<Config, 'aavePools'>, network: string): Promise<Address | null> {
  const configured = config.aavePools[network] as Address | undefined
  if (configured) return configured
  return ((await aaveV3Markets())[network]?.POOL as Address | undefined) ?? null
}

export async function requirePool(config: Pick<Config, 'aavePools'>, network: string): Promise<Address> {
  const pool = await poolOf(config, network)
  if (!pool) throw new BadRequestError(`Aave v3 has no pool on ${network}; set AAVE_POOL_${network.toUpperCase().replace(/-/g, '_')} to use one`, { code: 'AAVE_NETWORK_UNSUPPORTED' })
  return pool
}
