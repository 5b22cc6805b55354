/**
 * EVM networks through viem. Clients are cached per RPC address. Balance reads are
 * batched: with Multicall3 (one eth_call) when the RPC reports the chain id the
 * registry expects and the contract is deployed there (checked once per network),
 * otherwise as one JSON-RPC batch request (a development node such as ganache reports
 * its own chain id, or the expected one with no Multicall3 at the canonical address).
 */
import { createPublicClient, createWalletClient, defineChain, erc20Abi, http, webSocket, type Account, type Chain, type PublicClient, type WalletClient } from 'viem'
import type { Logger } from '../../lib/logger'
import type { ChainEndpoint } from './port'

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

  /**
   * A viem wallet client signing with `account` on the endpoint's RPC, for sends. Pass the
   * chain id the RPC reports (see `chainId`), which is what a signature must commit to.
   */
  walletClient(endpoint: ChainEndpoint, account: Account, chainId: number): WalletClient {
    this.client(endpoint)
    const base = this.clients.get(`${endpoint.registryId}|${endpoint.rpcUrl}`)!.chain
    return createWalletClient({ account, chain: { ...base, id: chainId }, transport: /^wss?:/.test(endpoint.rpcUrl) ? webSocket(endpoint.rpcUrl, { timeout: this.timeoutMs, retryCount: 0 }) : http(endpoint.rpcUrl, { timeout: this.timeoutMs, retryCount: 0, fetchFn: this.fetchFor(endpoint) }) })
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
async function readTokenBalance(client: PublicClient, token: `0x${string}`, owner: `0x${string}`): Promise<bigint> {
  try {
    return await client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
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
