/**
 * EVM pieces of a send: the call (native value or ERC-20 `transfer`), gas and fee
 * estimates from the chain, local signing (EIP-1559), and the reading of what an RPC
 * answered to a submission. Everything that talks to the RPC goes through the chain
 * gateway (`deps.chain`), so failures become 503.
 */
import { encodeFunctionData, erc20Abi, keccak256, serializeTransaction, type Hex, type PublicClient, type TransactionSerializableEIP1559 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { bytesToHex } from 'viem'
import type { Deps } from '../../deps'
import type { ChainEndpoint } from '../../adapters/chain/port'

export interface EvmCall {
  to: Hex
  value: bigint
  data?: Hex
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
  client: PublicClient
  /** unbatched: a submission is its own JSON-RPC request, whatever else is in flight */
  sender: PublicClient
  /** the chain id the RPC reports: what signatures commit to */
  chainId: number
}

export async function evmNet(deps: Deps, endpoint: ChainEndpoint): Promise<EvmNet> {
  const evm = await deps.chain.evm()
  const client = evm.client(endpoint, 'batched')
  const chainId = await deps.chain.guard(endpoint, 'chainId', () => evm.chainId(endpoint))
  return { endpoint, client, sender: evm.client(endpoint, 'multicall'), chainId }
}

/**
 * Gas for the call from `from` and EIP-1559 fees: the priority fee the node suggests and
 * a max fee of twice the latest base fee plus it (room for six full blocks of base fee rises).
 * A call the node says would revert (a token transfer above the balance), or a balance
 * short of value + gas × max fee, answers `{ revert }` with the reason.
 */
export async function estimateEvm(deps: Deps, net: EvmNet, from: string, call: EvmCall): Promise<EvmFees | { revert: string }> {
  const [code, block, tip, balance] = await deps.chain.guard(net.endpoint, 'estimate', async () => Promise.all([
    call.data ? Promise.resolve(undefined) : net.client.getCode({ address: call.to }),
    net.client.getBlock({ blockTag: 'latest' }),
    net.client.estimateMaxPriorityFeePerGas().catch(() => 1_000_000_000n),
    net.client.getBalance({ address: from as Hex }),
  ]))
  let gas = 21_000n
  // A plain transfer to an address without code costs exactly 21000 gas: no estimate needed.
  if (call.data || (code && code !== '0x')) {
    const estimated = await deps.chain.guard(net.endpoint, 'estimate', () => net.client.estimateGas({ account: from as Hex, to: call.to, value: call.value, data: call.data }).catch((err: unknown) => {
      if (isExecutionRevert(err)) return { revert: shortReason(err) }
      throw err
    }))
    if (typeof estimated !== 'bigint') return estimated
    // Contract calls get a margin: state can change between the estimate and inclusion.
    gas = (estimated * 12n) / 10n
  }
  const baseFee = block.baseFeePerGas ?? 0n
  const fees = { gas, maxPriorityFeePerGas: tip, maxFeePerGas: baseFee * 2n + tip }
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

export type SubmitOutcome =
  | { kind: 'accepted' }
  /** the node refused the nonce */
  | { kind: 'nonce'; which: 'low' | 'high' }
  /** the node refused the transaction for another reason: it is not in any mempool */
  | { kind: 'rejected'; reason: string }
  /** the request never reached a node (connection refused, DNS): nothing was submitted */
  | { kind: 'unreachable' }
  /** no answer in time: it may or may not have been accepted */
  | { kind: 'unknown' }

export async function submitRaw(net: EvmNet, raw: Hex): Promise<SubmitOutcome> {
  try {
    await net.sender.sendRawTransaction({ serializedTransaction: raw })
    return { kind: 'accepted' }
  } catch (err) {
    return classifySubmitError(err)
  }
}

function chainOf(err: unknown): Array<{ name?: string; message?: string; details?: string; status?: number }> {
  const out: Array<{ name?: string; message?: string; details?: string; status?: number }> = []
  for (let e = err as { cause?: unknown } | undefined, i = 0; e && i < 10; e = e.cause as typeof e, i++) out.push(e as never)
  return out
}

export function classifySubmitError(err: unknown): SubmitOutcome {
  const links = chainOf(err)
  const text = links.map((l) => `${l.details ?? ''} ${l.message ?? ''}`).join(' ').toLowerCase()
  if (/already known|known transaction|already imported/.test(text)) return { kind: 'accepted' }
  if (links.some((l) => l.name === 'NonceTooLowError') || /nonce too low|nonce is too low|correct nonce|nonce has already been used|replacement transaction underpriced/.test(text)) return { kind: 'nonce', which: 'low' }
  if (links.some((l) => l.name === 'NonceTooHighError') || /nonce too high|nonce is too high/.test(text)) return { kind: 'nonce', which: 'high' }
  if (links.some((l) => l.name === 'TimeoutError')) return { kind: 'unknown' }
  const http = links.find((l) => l.name === 'HttpRequestError')
  if (http && !links.some((l) => l.name === 'RpcRequestError' || l.name === 'InternalRpcError')) return http.status ? { kind: 'unknown' } : { kind: 'unreachable' }
  if (links.some((l) => l.name === 'WebSocketRequestError' || l.name === 'SocketClosedError')) return { kind: 'unknown' }
  return { kind: 'rejected', reason: shortReason(err) }
}

function isExecutionRevert(err: unknown) {
  return chainOf(err).some((l) => l.name === 'ExecutionRevertedError' || l.name === 'ContractFunctionRevertedError' || /revert|insufficient funds/i.test(l.details ?? ''))
}

/** A short, RPC-address-free reason for records and answers. */
export function shortReason(err: unknown): string {
  const links = chainOf(err)
  const detail = links.map((l) => l.details).find((d) => d && d.length < 300) ?? links.at(-1)?.message ?? 'unknown error'
  return detail.replace(/https?:\/\/\S+/g, '<rpc>').slice(0, 300)
}
