/** The chain a wallet request names, resolved against the registry and the tenant's settings. Loads no chain library. */
import { BadRequestError } from '../../lib/errors'
import type { StoredSettings } from '../tenants'
import { chainEnabled, lookupChain, type ResolvedNetwork } from '../tokens'

/**
 * The chain a request names: a family id (network from `isTestnet`) or a registry id
 * (a testnet id implies `isTestnet: true`). Unknown or disabled chains are refused.
 */
export function resolveChain(settings: StoredSettings | null, chain: string, isTestnet = false): ResolvedNetwork {
  const found = lookupChain(chain)
  if (!found || !chainEnabled(settings, found.chain.id)) throw new BadRequestError(`Unsupported chain: ${chain}`)
  const testnet = found.network.isTestnet || isTestnet
  return { chain: found.chain, network: testnet ? found.chain.testnet : found.chain.mainnet }
}
