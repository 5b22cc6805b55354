/**
 * The chain adapter's port: what the rest of Slipway may ask of a blockchain network.
 * One `ChainEndpoint` names a network and the RPC address resolved for the tenant.
 * Every failure to reach or read the RPC surfaces as ServiceUnavailableError (503)
 * when the call runs inside the gateway's `guard`; submissions answer a `SubmitOutcome`
 * instead, because what a refusal means depends on why the node refused.
 *
 * This file imports nothing at run time: modules may name these types without loading
 * viem or @solana/web3.js (see lib/lazy.ts).
 */
import type { Message } from '@solana/web3.js'

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

/** What a node answered to a signed transaction handed to it. */
export type SubmitOutcome =
  | { kind: 'accepted' }
  /** the node refused the nonce */
  | { kind: 'nonce'; which: 'low' | 'high' }
  /** the node refused the transaction for another reason, and does not know its hash (EVM: asked after the refusal) */
  | { kind: 'rejected'; reason: string }
  /** the request never reached a node (connection refused, DNS): nothing was submitted */
  | { kind: 'unreachable' }
  /** no answer in time: it may or may not have been accepted */
  | { kind: 'unknown' }

export type Hex = `0x${string}`

export interface EvmReceipt {
  status: 'success' | 'reverted'
  blockNumber: bigint
  gasUsed: bigint
  effectiveGasPrice: bigint
}

/**
 * JSON-RPC reads and submissions on one EVM network. Concurrent reads go out as one
 * JSON-RPC batch; a submission is always its own request.
 */
export interface EvmRpc {
  /** the chain id the RPC reports (asked once per address): what signatures commit to */
  chainId(): Promise<number>
  code(address: Hex): Promise<Hex | undefined>
  /** the base fee of the latest block (null before London) */
  latestBaseFee(): Promise<bigint | null>
  /** the priority fee the node suggests */
  maxPriorityFeePerGas(): Promise<bigint>
  balance(address: Hex): Promise<bigint>
  /**
   * The latest block's number and, at that block, the native balance and the token's
   * (null: none asked): what holds are counted against (modules/transactions/holds.ts)
   */
  balancesAtLatest(address: Hex, token: Hex | null): Promise<{ block: bigint; native: bigint; token: bigint }>
  /** gas for the call, or `{ revert }` with a short reason when the node says it would revert or funds are short */
  estimateGas(call: { from: Hex; to: Hex; value: bigint; data?: Hex }): Promise<bigint | { revert: string }>
  /** runs the call at the latest block without sending it (eth_call, with `gas` as its limit): `{ revert }` with a short reason when it would revert */
  simulate(call: { from: Hex; to: Hex; value: bigint; data?: Hex; gas?: bigint }): Promise<{ ok: true } | { revert: string }>
  /** ERC-20 `allowance(owner, spender)` at the latest block */
  allowance(token: Hex, owner: Hex, spender: Hex): Promise<bigint>
  /** EIP-2612 `nonces(owner)` of the token at the latest block (what the owner's next permit signs) */
  permitNonce(token: Hex, owner: Hex): Promise<bigint>
  /** EIP-3009 `authorizationState(authorizer, nonce)` of the token at the latest block: whether the authorization was used (or canceled) */
  authorizationState(token: Hex, authorizer: Hex, nonce: Hex): Promise<boolean>
  /** the transaction that used an EIP-3009 authorization (its `AuthorizationUsed` event), searched from `fromBlock` (to `toBlock`, default the latest); null when none */
  authorizationUsedBy(token: Hex, authorizer: Hex, nonce: Hex, fromBlock: bigint, toBlock?: bigint): Promise<Hex | null>
  transactionCount(address: Hex, blockTag: 'pending' | 'latest'): Promise<number>
  /** null while the node has no receipt for the hash */
  receipt(hash: Hex): Promise<EvmReceipt | null>
  blockNumber(): Promise<bigint>
  /** the block's timestamp in Unix seconds */
  blockTimestamp(blockNumber: bigint): Promise<bigint>
  /** whether the node knows the transaction (mined or in its mempool) */
  knowsTransaction(hash: Hex): Promise<boolean>
  sendRaw(raw: Hex): Promise<SubmitOutcome>
}

/** An Aave v3 Pool's `getUserAccountData`: amounts in the pool's base currency (USD, 8 decimals), ratios in basis points, the health factor in wad */
export interface AaveUserAccountData {
  totalCollateralBase: bigint
  totalDebtBase: bigint
  availableBorrowsBase: bigint
  currentLiquidationThreshold: bigint
  ltv: bigint
  healthFactor: bigint
}

/** What Slipway reads of an Aave v3 Pool's `getReserveData` (DataTypes.ReserveData); an unlisted asset has the zero aToken */
export interface AaveReserveData {
  aTokenAddress: Hex
  /** the supply rate, a yearly rate in ray (1e27) */
  currentLiquidityRate: bigint
  liquidityIndex: bigint
  /** Unix seconds */
  lastUpdateTimestamp: number
}

/** Reads of an Aave v3 Pool at the latest block (modules/lending). */
export interface AavePoolRpc {
  userAccountData(pool: Hex, user: Hex): Promise<AaveUserAccountData>
  reserveData(pool: Hex, asset: Hex): Promise<AaveReserveData>
  /** ERC-20 `balanceOf` (an aToken's balance is what is supplied) */
  tokenBalance(token: Hex, owner: Hex): Promise<bigint>
}

export interface SolanaSignatureStatus {
  slot: number
  confirmations: number | null
  err: unknown
  confirmationStatus?: 'processed' | 'confirmed' | 'finalized'
}

/** JSON-RPC reads and submissions on one Solana network, at `confirmed` commitment. */
export interface SolanaRpc {
  latestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }>
  /** the fee for the message in lamports; null when the node no longer knows its blockhash */
  feeForMessage(message: Message): Promise<number | null>
  signatureStatus(signature: string): Promise<SolanaSignatureStatus | null>
  /** Unix seconds; null when the node has no time for the slot */
  blockTime(slot: number): Promise<number | null>
  blockHeight(): Promise<number>
  /**
   * The lamports and the mint's token amount (summed over the owner's token accounts; 0 when no
   * mint is asked) at `confirmed`, with the lower of the two reads' slots as `block`: what holds
   * are counted against (modules/transactions/holds.ts)
   */
  balancesAtLatest(address: string, mint: string | null): Promise<{ block: bigint; native: bigint; token: bigint }>
  sendRaw(raw: Uint8Array): Promise<SubmitOutcome>
}
