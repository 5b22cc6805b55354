/**
 * EVM networks through viem. Clients are cached per RPC address. Balance reads are
 * batched: with Multicall3 (one eth_call) when the RPC reports the chain id the
 * registry expects and the contract is deployed there (checked once per network),
 * otherwise as one JSON-RPC batch request (a development node may report its own chain
 * id, or the expected one with no Multicall3 at the canonical address).
 * `rpc(endpoint)` is what sends use (the port's EvmRpc): viem's errors are read here,
 * so callers get a reason, `null` or a SubmitOutcome rather than viem error classes.
 */
import { createPublicClient, defineChain, erc20Abi, http, keccak256, webSocket, type Chain, type PublicClient } from 'viem'
import type { Logger } from '../../lib/logger'
import { neverConnected } from './connect-errors'
import type { ChainEndpoint, EvmRpc, SubmitOutcome } from './port'

export const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11' as const

const multicall3Abi = [{
  type: 'function', name: 'getEthBalance', stateMutability: 'view',
  inputs: [{ name: 'addr', type: 'address' }], outputs: [{ name: 'balance', type: 'uint256' }],
}] as const

export class EvmClients {
  private readonly clients = new Map<string, { chain: Chain; multicall: PublicClient; batched: PublicClient }>()
  private readonly chainIds = new Map<string, number>()
  private readonly multicall3Present = new Map<string, Promise<boolean>>()

  constructor(private readonly timeoutMs: number, private readonly logger?: Logger, private readonly fetchFor: (endpoint: ChainEndpoint) => typeof fetch = () => fetch) {}

  /** A viem public client for the endpoint; `batched` sends concurrent calls as one JSON-RPC batch. */
  client(endpoint: ChainEndpoint, mode: 'multicall' | 'batched' = 'batched'): PublicClient {
    // Keyed by network too: the chain definition (id, Multicall3) belongs to the network, not the address.
    const key = `${endpoint.registryId}|${endpoint.rpcUrl}`
    let entry = this.clients.get(key)
    if (!entry) {
      const chain = defineChain({
        id: endpoint.expectedChainId ?? 0,
        name: endpoint.registryId,
        nativeCurrency: { name: 'native', symbol: 'NATIVE', decimals: 18 },
        rpcUrls: { default: { http: [endpoint.rpcUrl] } },
        contracts: endpoint.multicall3 ? { multicall3: { address: MULTICALL3 } } : undefined,
      })
      // No retries: a down RPC must answer 503 quickly rather than hold the request.
      const transport = (batch: boolean) => /^wss?:/.test(endpoint.rpcUrl)
        ? webSocket(endpoint.rpcUrl, { timeout: this.timeoutMs, retryCount: 0 })
        : http(endpoint.rpcUrl, { timeout: this.timeoutMs, retryCount: 0, batch: batch ? { wait: 0 } : false, fetchFn: this.fetchFor(endpoint) })
      entry = {
        chain,
        multicall: createPublicClient({ chain, transport: transport(false) }) as PublicClient,
        batched: createPublicClient({ chain, transport: transport(true) }) as PublicClient,
      }
      this.clients.set(key, entry)
    }
    return mode === 'multicall' ? entry.multicall : entry.batched
  }

  /** The port's EvmRpc for the endpoint: reads on the batched client, submissions unbatched. */
  rpc(endpoint: ChainEndpoint): EvmRpc {
    const client = this.client(endpoint, 'batched')
    // unbatched: a submission is its own JSON-RPC request, whatever else is in flight
    const sender = this.client(endpoint, 'multicall')
    return {
      chainId: () => this.chainId(endpoint),
      code: (address) => client.getCode({ address }),
      latestBaseFee: async () => (await client.getBlock({ blockTag: 'latest' })).baseFeePerGas ?? null,
      maxPriorityFeePerGas: () => client.estimateMaxPriorityFeePerGas(),
      balance: (address) => client.getBalance({ address }),
      balancesAtLatest: async (address, token) => {
        // viem keeps block numbers for 4 s by default (shared with blockNumber() below): ask the node
        const block = await client.getBlockNumber({ cacheTime: 0 })
        const [native, tokenBalance] = await Promise.all([
          client.getBalance({ address, blockNumber: block }),
          token ? readTokenBalance(client, token, address, block) : Promise.resolve(0n),
        ])
        return { block, native, token: tokenBalance }
      },
      estimateGas: (call) => client.estimateGas({ account: call.from, to: call.to, value: call.value, data: call.data }).catch((err: unknown) => {
        if (isExecutionRevert(err)) return { revert: shortReason(err) }
        throw err
      }),
      simulate: (call) => client.call({ account: call.from, to: call.to, value: call.value, data: call.data, gas: call.gas }).then(
        () => ({ ok: true as const }),
        (err: unknown) => {
          if (isExecutionRevert(err)) return { revert: shortReason(err) }
          throw err
        },
      ),
      allowance: (token, owner, spender) => client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, spender] }),
      permitNonce: (token, owner) => client.readContract({ address: token, abi: PERMIT_NONCES_ABI, functionName: 'nonces', args: [owner] }),
      authorizationState: (token, authorizer, nonce) => client.readContract({ address: token, abi: EIP3009_ABI, functionName: 'authorizationState', args: [authorizer, nonce] }),
      authorizationUsedBy: async (token, authorizer, nonce, fromBlock, toBlock) => {
        const logs = await client.getLogs({ address: token, event: EIP3009_ABI[1], args: { authorizer, nonce }, fromBlock, toBlock: toBlock ?? 'latest' })
        return logs[0]?.transactionHash ?? null
      },
      transactionCount: (address, blockTag) => client.getTransactionCount({ address, blockTag }),
      receipt: (hash) => client.getTransactionReceipt({ hash }).catch((err: unknown) => {
        if ((err as Error).name === 'TransactionReceiptNotFoundError') return null
        throw err
      }),
      // never viem's cached number: confirmations are counted from it
      blockNumber: () => client.getBlockNumber({ cacheTime: 0 }),
      blockTimestamp: async (blockNumber) => (await client.getBlock({ blockNumber })).timestamp,
      knowsTransaction: (hash) => client.getTransaction({ hash }).then(() => true, (err: unknown) => {
        if ((err as Error).name === 'TransactionNotFoundError') return false
        throw err
      }),
      sendRaw: async (raw) => {
        let outcome: SubmitOutcome
        try {
          await sender.sendRawTransaction({ serializedTransaction: raw })
          return { kind: 'accepted' }
        } catch (err) {
          outcome = classifySubmitError(err)
        }
        if (outcome.kind !== 'rejected' && outcome.kind !== 'nonce') return outcome
        // A node may hold or have mined the transaction and still answer an error (a proxy's
        // time limit, a gateway, "already known", a nonce now too low because it was mined):
        // only one that does not know its hash has refused it. Unreadable: it may be anywhere.
        try {
          return (await client.getTransaction({ hash: keccak256(raw) }).then(() => true, (e: unknown) => {
            if ((e as Error).name === 'TransactionNotFoundError') return false
            throw e
          })) ? { kind: 'accepted' } : outcome
        } catch {
          return { kind: 'unknown' }
        }
      },
    }
  }

  /** The chain id the RPC reports, asked once per address. */
  async chainId(endpoint: ChainEndpoint): Promise<number> {
    const known = this.chainIds.get(endpoint.rpcUrl)
    if (known !== undefined) return known
    const id = await this.client(endpoint).getChainId()
    this.chainIds.set(endpoint.rpcUrl, id)
    if (endpoint.expectedChainId !== null && id !== endpoint.expectedChainId) {
      // Configuration is trusted (dev nodes and forks report their own ids), but say so once.
      this.logger?.warn('chain rpc reports another chain id than the registry; using it as configured', { chain: endpoint.registryId, expectedChainId: endpoint.expectedChainId, reportedChainId: id })
    }
    return id
  }

  /**
   * Whether Multicall3 has code at its canonical address on this network, asked once per
   * network and RPC address: a dev node or a new network may not have it, and a multicall
   * there fails on every read. A failed check (the RPC is down) is asked again next time.
   */
  private hasMulticall3(endpoint: ChainEndpoint): Promise<boolean> {
    const key = `${endpoint.registryId}|${endpoint.rpcUrl}`
    let known = this.multicall3Present.get(key)
    if (!known) {
      known = this.client(endpoint).getCode({ address: MULTICALL3 }).then((code) => {
        const present = !!code && code !== '0x'
        if (!present) this.logger?.warn('no Multicall3 on this network; reading balances with plain calls', { chain: endpoint.registryId })
        return present
      })
      known.catch(() => this.multicall3Present.delete(key))
      this.multicall3Present.set(key, known)
    }
    return known
  }

  async balances(endpoint: ChainEndpoint, address: string, tokens: string[]) {
    const owner = address as `0x${string}`
    const useMulticall = endpoint.multicall3 && (await this.chainId(endpoint)) === endpoint.expectedChainId && (await this.hasMulticall3(endpoint))
    if (useMulticall) {
      const client = this.client(endpoint, 'multicall')
      const contracts = [
        { address: MULTICALL3, abi: multicall3Abi, functionName: 'getEthBalance', args: [owner] },
        ...tokens.map((t) => ({ address: t as `0x${string}`, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })),
      ] as const
      const results = await client.multicall({ allowFailure: true, contracts: contracts as unknown as Parameters<PublicClient['multicall']>[0]['contracts'] })
      const [nativeResult, ...tokenResults] = results
      if (!nativeResult || nativeResult.status !== 'success') throw nativeResult?.error ?? new Error('multicall failed')
      return { native: nativeResult.result as bigint, tokens: tokenResults.map((r) => (r.status === 'success' ? (r.result as bigint) : 0n)) }
    }
    const client = this.client(endpoint, 'batched')
    const [native, ...tokenBalances] = await Promise.all([
      client.getBalance({ address: owner }),
      ...tokens.map((t) => readTokenBalance(client, t as `0x${string}`, owner)),
    ])
    return { native: native!, tokens: tokenBalances }
  }
}

/** balanceOf; a token with no contract at that address on this network reads as zero. */
async function readTokenBalance(client: PublicClient, token: `0x${string}`, owner: `0x${string}`, blockNumber?: bigint): Promise<bigint> {
  try {
    return await client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner], blockNumber })
  } catch (err) {
    if (isZeroData(err)) return 0n
    throw err
  }
}

function isZeroData(err: unknown): boolean {
  for (let e = err as { name?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.name === 'ContractFunctionZeroDataError') return true
  }
  return false
}

function chainOf(err: unknown): Array<{ name?: string; message?: string; details?: string; status?: number }> {
  const out: Array<{ name?: string; message?: string; details?: string; status?: number }> = []
  for (let e = err as { cause?: unknown } | undefined, i = 0; e && i < 10; e = e.cause as typeof e, i++) out.push(e as never)
  return out
}

/** What a node's answer to a submission means, from viem's error chain and the node's message. */
export function classifySubmitError(err: unknown): SubmitOutcome {
  const links = chainOf(err)
  const text = links.map((l) => `${l.details ?? ''} ${l.message ?? ''}`).join(' ').toLowerCase()
  if (/already known|known transaction|already imported/.test(text)) return { kind: 'accepted' }
  const nonceTooLow = /nonce too low|nonce is too low|correct nonce|nonce has already been used|replacement transaction underpriced/
  if (links.some((l) => l.name === 'NonceTooLowError') || nonceTooLow.test(text)) return { kind: 'nonce', which: 'low' }
  if (links.some((l) => l.name === 'NonceTooHighError') || /nonce too high|nonce is too high/.test(text)) return { kind: 'nonce', which: 'high' }
  if (links.some((l) => l.name === 'TimeoutError')) return { kind: 'unknown' }
  const http = links.find((l) => l.name === 'HttpRequestError')
  if (http && !links.some((l) => l.name === 'RpcRequestError' || l.name === 'InternalRpcError')) {
    if (http.status) return { kind: 'unknown' }
    // Only a connection that was never made means nothing was submitted. A connection closed
    // after the request was written (a reset, a proxy that hung up) may have reached the node:
    // that is not known, so the send stays pending for the status job to follow.
    return neverConnected(err) ? { kind: 'unreachable' } : { kind: 'unknown' }
  }
  if (links.some((l) => l.name === 'WebSocketRequestError' || l.name === 'SocketClosedError')) return { kind: 'unknown' }
  return { kind: 'rejected', reason: shortReason(err) }
}

function isExecutionRevert(err: unknown) {
  return chainOf(err).some((l) => l.name === 'ExecutionRevertedError' || l.name === 'ContractFunctionRevertedError' || /revert|insufficient funds/i.test(l.details ?? ''))
}

/** A short, RPC-address-free reason for records and answers. */
function shortReason(err: unknown): string {
  const links = chainOf(err)
  const detail = links.map((l) => l.details).find((d) => d && d.length < 300) ?? links.at(-1)?.message ?? 'unknown error'
  return detail.replace(/https?:\/\/\S+/g, '<rpc>').slice(0, 300)
}

/** EIP-2612's nonce read */
/** EIP-3009's state read and event (USDC's FiatTokenV2) */
const EIP3009_ABI = [
  {
    type: 'function',
    name: 'authorizationState',
    stateMutability: 'view',
    inputs: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }],
    outputs: [{ name: '', type: 'bool' }],
  },
  { type: 'event', name: 'AuthorizationUsed', inputs: [{ name: 'authorizer', type: 'address', indexed: true }, { name: 'nonce', type: 'bytes32', indexed: true }] },
] as const

const PERMIT_NONCES_ABI = [{ type: 'function', name: 'nonces', stateMutability: 'view', inputs: [{ name: 'owner', type: 'address' }], outputs: [{ name: '', type: 'uint256' }] }] as const
