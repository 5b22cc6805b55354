/**
 * The chain adapter's port: what the rest of Slipway may ask of a blockchain network.
 * One `ChainEndpoint` names a network and the RPC address resolved for the tenant.
 * Every failure to reach or read the RPC surfaces as ServiceUnavailableError (503).
 */
/** The chain families Slipway speaks: each has its own key scheme, address format and RPC protocol. */
export type Family = 'evm' | 'solana'

export interface ChainEndpoint {
  /** registry id (`ethereum`, `sepolia`, `solana-devnet`) */
  registryId: string
  family: Family
  rpcUrl: string
  /** the chain id the registry expects (EVM); null for Solana */
  expectedChainId: number | null
  /** Multicall3 is deployed at its canonical address on the expected network */
  multicall3: boolean
}

export interface RawBalances {
  /** native coin in its smallest unit */
  native: bigint
  /** token balances in their smallest unit, in the order of the token addresses asked for */
  tokens: bigint[]
}

export interface ChainReader {
  /** Native and token balances of one address, read in as few RPC round trips as the network allows. */
  balances(endpoint: ChainEndpoint, address: string, tokenAddresses: string[]): Promise<RawBalances>
}
