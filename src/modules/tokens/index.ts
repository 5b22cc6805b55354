/** The tokens module's face: the chain and token registry, and its routes. */
export { CHAINS, activeTokens, chainByFamily, chainEnabled, endpointFor, lookupChain, namedChain, namesWalletNetwork } from '../../adapters/chain/registry'
export type { ChainDef, ResolvedNetwork, TokenDef } from '../../adapters/chain/registry'
export { tokenRoutes } from './routes'
