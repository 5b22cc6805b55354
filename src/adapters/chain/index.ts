/**
 * The chain gateway: one per process (deps.chain), holding a client factory per chain
 * family. Every call goes through `guard`, which turns any RPC failure (refused
 * connection, timeout, malformed answer) into ServiceUnavailableError: a chain that is
 * down answers 503, never 500. The RPC address is left out of errors and logs because
 * operators often put API keys in it.
 */
import { ServiceUnavailableError } from '../../http/errors'
import type { Logger } from '../../lib/logger'
import { lazy } from '../../lib/lazy'
import type { EvmClients } from './evm'
import type { SolanaClients } from './solana'
import type { ChainEndpoint, ChainReader, EvmRpc, RawBalances, SolanaRpc } from './port'

export class ChainGateway implements ChainReader {
  /** viem and @solana/web3.js are loaded on the first chain call (see lib/lazy.ts). */
  readonly evm: () => Promise<EvmClients>
  readonly solana: () => Promise<SolanaClients>

  /** `fetchFor(system)` gives the fetch RPC calls go through (deps times them, by chain, in the metrics) */
  constructor(private readonly logger: Logger, timeoutMs = 8000, fetchFor: (system: string) => typeof fetch = () => fetch) {
    const rpcFetch = (endpoint: ChainEndpoint) => fetchFor(`rpc:${endpoint.registryId}`)
    this.evm = lazy(async () => new (await import('./evm')).EvmClients(timeoutMs, logger, rpcFetch))
    this.solana = lazy(async () => new (await import('./solana')).SolanaClients(timeoutMs, rpcFetch))
  }

  async guard<T>(endpoint: ChainEndpoint, what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (err) {
      this.logger.warn('chain rpc failed', { chain: endpoint.registryId, what, errorName: err instanceof Error ? err.name : typeof err })
      throw new ServiceUnavailableError(`The ${endpoint.registryId} network is temporarily unavailable`)
    }
  }

  /** The port's EvmRpc for the network (viem loads with the first call). */
  async evmRpc(endpoint: ChainEndpoint): Promise<EvmRpc> {
    return (await this.evm()).rpc(endpoint)
  }

  /** The port's SolanaRpc for the network (@solana/web3.js loads with the first call). */
  async solanaRpc(endpoint: ChainEndpoint): Promise<SolanaRpc> {
    return (await this.solana()).rpc(endpoint)
  }

  balances(endpoint: ChainEndpoint, address: string, tokenAddresses: string[]): Promise<RawBalances> {
    return this.guard(endpoint, 'balances', async () =>
      endpoint.family === 'evm' ? (await this.evm()).balances(endpoint, address, tokenAddresses) : (await this.solana()).balances(endpoint, address, tokenAddresses))
  }
}

export type { ChainEndpoint, ChainReader, EvmRpc, RawBalances, SolanaRpc, SubmitOutcome } from './port'
