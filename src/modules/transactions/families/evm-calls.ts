/**
 * EVM pieces of a send: the call (native value or ERC-20 `transfer`), gas and fee
 * estimates from the chain, local signing (EIP-1559). Everything that talks to the RPC
 * goes through the chain adapter (`deps.chain`), inside its `guard`, so failures become 503.
 */
import { bytesToHex, encodeFunctionData, erc20Abi, keccak256, serializeTransaction, type Hex, type TransactionSerializableEIP1559 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { ChainEndpoint, EvmRpc } from '../../../adapters/chain/port'
import type { Deps } from '../../../deps'

/** What a transaction calls: a send's transfer, or any call another module asks for (a swap, an approval). */
export interface EvmCall {
  to: Hex
  value: bigint
  data?: Hex
  /** a gas limit proposed with the call (an aggregator's): the limit used is at least this and the node's estimate + 20% */
  gasLimit?: bigint
  /**
   * a gas limit used as is, without asking the node: for a call that only succeeds once an
   * earlier call of the same wallet is mined (a lending supply sent right after its approval,
   * in the same nonce lane), which no node can estimate yet
   */
  fixedGasLimit?: bigint
}

export interface EvmFees {
  gas: bigint
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
}

export function transferCall(tokenAddress: string | null, to: string, amount: bigint): EvmCall {
  if (!tokenAddress) return { to: to as Hex, value: amount }
  return { to: tokenAddress as Hex, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to as Hex, amount] }) }
}

export interface EvmNet {
  endpoint: ChainEndpoint
  rpc: EvmRpc
  /** the chain id the RPC reports: what signatures commit to */
  chainId: number
}

export async function evmNet(deps: Deps, endpoint: ChainEndpoint): Promise<EvmNet> {
  const rpc = await deps.chain.evmRpc(endpoint)
  const chainId = await deps.chain.guard(endpoint, 'chainId', () => rpc.chainId())
  return { endpoint, rpc, chainId }
}

/** The wallet's transaction count including its transactions in the node's mempool. */
export const pendingCount = (deps: Deps, net: EvmNet, address: string) =>
  deps.chain.guard(net.endpoint, 'nonce', () => net.rpc.transactionCount(address as Hex, 'pending'))

/**
 * Gas for the call from `from` and EIP-1559 fees: the priority fee the node suggests and
 * a max fee of twice the latest base fee plus it (room for six full blocks of base fee rises).
 * A call the node says would revert (a token transfer above the balance), or a balance
 * short of value + gas × max fee, answers `{ revert }` with the reason.
 */
export async function estimateEvm(deps: Deps, net: EvmNet, from: string, call: EvmCall): Promise<EvmFees | { revert: string }> {
  // Asked together: the adapter sends them as one JSON-RPC batch.
  const [code, baseFee, tip, balance] = await deps.chain.guard(net.endpoint, 'estimate', async () => Promise.all([
    call.data ? Promise.resolve(undefined) : net.rpc.code(call.to),
    net.rpc.latestBaseFee(),
    net.rpc.maxPriorityFeePerGas().catch(() => 1_000_000_000n),
    net.rpc.balance(from as Hex),
  ]))
  let gas = 21_000n
  // A plain transfer to an address without code costs exactly 21000 gas: no estimate needed.
  if (call.fixedGasLimit) {
    gas = call.fixedGasLimit
  } else if (call.data || (code && code !== '0x')) {
    const estimated = await deps.chain.guard(net.endpoint, 'estimate', () => net.rpc.estimateGas({ from: from as Hex, to: call.to, value: call.value, data: call.data }))
    if (typeof estimated !== 'bigint') return estimated
    // Contract calls get a margin: state can change between the estimate and inclusion.
    gas = (estimated * 12n) / 10n
    if (call.gasLimit && call.gasLimit > gas) gas = call.gasLimit
  }
  const fees = { gas, maxPriorityFeePerGas: tip, maxFeePerGas: (baseFee ?? 0n) * 2n + tip }
  // Nodes refuse a transaction whose worst-case cost exceeds the balance: say so before a nonce is taken.
  if (balance < call.value + gas * fees.maxFeePerGas) return { revert: 'insufficient funds for gas * price + value' }
  return fees
}

export function unsignedEip1559(chainId: number, nonce: number, call: EvmCall, fees: EvmFees): TransactionSerializableEIP1559 {
  return { type: 'eip1559', chainId, nonce, to: call.to, value: call.value, data: call.data, gas: fees.gas, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
}

/** Signs locally with the wallet key (CPU only: safe inside a write transaction). */
export async function signEvm(secret: Uint8Array, tx: TransactionSerializableEIP1559): Promise<{ raw: Hex; hash: Hex }> {
  const raw = await privateKeyToAccount(bytesToHex(secret)).signTransaction(tx)
  return { raw, hash: keccak256(raw) }
}

export function signingHashOf(tx: TransactionSerializableEIP1559): { unsigned: Hex; hash: Hex } {
  const unsigned = serializeTransaction(tx)
  return { unsigned, hash: keccak256(unsigned) }
}
