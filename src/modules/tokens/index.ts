/** The tokens module's face: the chain and token registry, and its routes. */
export { CHAINS, activeTokens, chainByFamily, chainEnabled, endpointFor, lookupChain, namedChain, namesWalletNetwork } from './registry'
export type { ChainDef, ResolvedNetwork, TokenDef } from './registry'
export { tokenRoutes } from './routes'
