/**
 * Where Aave v3's Pool is on each network Slipway knows: Aave's address book
 * (bgd-labs/aave-address-book, `src/ts/AaveV3<Network>.ts` `POOL`, read at commit
 * f61c976 of May 2026), overridable per network with `AAVE_POOL_<REGISTRY ID>`
 * (config.aavePools). Networks missing here have no Aave v3 market in the address book
 * (polygon-amoy, bsc-testnet, celo-alfajores, flowevm, gnosis-chiado): configure one to use them.
 */
import type { Config } from '../../config'
import { BadRequestError } from '../../http/errors'

export const AAVE_V3_POOLS: Readonly<Record<string, `0x${string}`>> = {
  ethereum: '0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2',
  sepolia: '0x6Ae43d3271ff6888e7Fc43Fd7321a503ff738951',
  polygon: '0x794a61358D6845594F94dc1DB02A252b5b4814aD',
  arbitrum: '0x794a61358D6845594F94dc1DB02A252b5b4814aD',
  'arbitrum-sepolia': '0xBfC91D59fdAA134A4ED45f7B584cAf96D7792Eff',
  optimism: '0x794a61358D6845594F94dc1DB02A252b5b4814aD',
  'optimism-sepolia': '0xb50201558B00496A145fE76f7424749556E326D8',
  base: '0xA238Dd80C259a72e81d7e4664a9801593F98d1c5',
  'base-sepolia': '0x8bAB6d1b75f19e9eD9fCe8b9BD338844fF79aE27',
  avalanche: '0x794a61358D6845594F94dc1DB02A252b5b4814aD',
  'avalanche-fuji': '0x8B9b2AF4afB389b4a70A474dfD4AdCD4a302bb40',
  gnosis: '0xb50201558B00496A145fE76f7424749556E326D8',
  bsc: '0x6807dc923806fE8Fd134338EABCA509979a7e0cB',
  celo: '0x3E59A31363E2ad014dcbc521c4a0d5757d9f3402',
}

/** The Pool on the network (registry id), or null where neither the address book nor the configuration has one. */
export function poolOf(config: Pick<Config, 'aavePools'>, network: string): `0x${string}` | null {
  return (config.aavePools[network] as `0x${string}` | undefined) ?? AAVE_V3_POOLS[network] ?? null
}

export function requirePool(config: Pick<Config, 'aavePools'>, network: string): `0x${string}` {
  const pool = poolOf(config, network)
  if (!pool) throw new BadRequestError(`Aave v3 has no pool on ${network}; set AAVE_POOL_${network.toUpperCase().replace(/-/g, '_')} to use one`, { code: 'AAVE_NETWORK_UNSUPPORTED' })
  return pool
}
