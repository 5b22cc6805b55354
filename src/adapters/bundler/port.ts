/**
 * The bundler adapter's port: an ERC-4337 bundler (any that speaks the standard
 * `eth_sendUserOperation`, `eth_estimateUserOperationGas`, `eth_getUserOperationReceipt`,
 * `eth_getUserOperationByHash` and `eth_supportedEntryPoints`), reached at BUNDLER_URL_<NETWORK>,
 * for EntryPoint v0.8 and EIP-7702 accounts delegated to Simple7702Account. Types only: modules
 * name them without loading viem.
 */
export type Hex = `0x${string}`

export interface BundlerEndpoint {
  /** registry id of the network */
  network: string
  bundlerUrl: string
  /** the network's RPC (nonces, code, the EntryPoint's deposits) */
  rpcUrl: string
  chainId: number
  paymaster: Hex
}

export interface UserOpCall {
  to: Hex
  value: bigint
  data: Hex
}

/** A user operation as JSON (the bundler's RPC format: quantities in hex), kept on the record to resubmit it unchanged. */
export type UserOpJson = Record<string, unknown>

/** An operation estimated with a stub paymaster signature: what the policy judges, before anything is signed. */
export interface EstimatedUserOp {
  sender: Hex
  nonce: bigint
  /** the most the operation can cost the paymaster: every gas limit × maxFeePerGas */
  maxCost: bigint
  /** whether the EIP-7702 authorization to Simple7702Account goes with it (the EOA is not delegated yet) */
  delegates: boolean
  /** opaque: handed back to `sign` */
  draft: unknown
}

export interface SignedUserOp {
  hash: Hex
  json: UserOpJson
}

/** An operation the paymaster signed, before its owner signed it: what an MPC wallet's parties sign. */
export interface UnsignedUserOp {
  /** the user operation's hash (EntryPoint v0.8's EIP-712 hash): the owner signs it raw, no message prefix */
  hash: Hex
  /** the first operation's EIP-7702 authorization to Simple7702Account and its hash (keccak256(0x05 ‖ rlp([chainId, address, nonce]))); null when delegated */
  authorization: { address: Hex; chainId: number; nonce: number; hash: Hex } | null
  /** the operation as the bundler takes it, the owner's signatures empty */
  json: UserOpJson
}

export type UserOpReceipt = { success: boolean; txHash: Hex; blockNumber: bigint; actualGasCost: bigint; reason?: string }

export type SendUserOpOutcome = { kind: 'accepted' } | { kind: 'rejected'; reason: string } | { kind: 'unreachable'; reason: string }

export class BundlerError extends Error {
  constructor(message: string, readonly kind: 'rejected' | 'unreachable') {
    super(message)
    this.name = 'BundlerError'
  }
}
