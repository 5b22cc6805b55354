/**
 * The chain gateway: one per process (deps.chain), holding a client factory per chain
 * family. Every call goes through `guard`, which turns any RPC failure (refused
 * connection, timeout, malformed answer) into ServiceUnavailableError: a chain that is
 * down answers 503, never 500. The RPC address is left out of errors and logs because
 * operators often put API keys in it.
 */
import { ServiceUnavailableError } from '../../http/errors'
import type { Logger } from '../../lib/logger'
import { EvmClients } from './evm'
import { SolanaClients } from './solana'
import type { ChainEndpoint, ChainReader, RawBalances } from './port'

export class ChainGateway implements ChainReader {
  readonly evm: EvmClients
  readonly solana: SolanaClients

  constructor(private readonly logger: Logger, timeoutMs = 8000) {
    this.evm = new EvmClients(timeoutMs, logger)
    this.solana = new SolanaClients(timeoutMs)
  }

  async guard<T>(endpoint: ChainEndpoint, what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (err) {
      this.logger.warn('chain rpc failed', { chain: endpoint.registryId, what, errorName: err instanceof Error ? err.name : typeof err })
      throw new ServiceUnavailableError(`The ${endpoint.registryId} network is temporarily unavailable`)
    }
  }

  balances(endpoint: ChainEndpoint, address: string, tokenAddresses: string[]): Promise<RawBalances> {
    return this.guard(endpoint, 'balances', () =>
      endpoint.family === 'evm' ? this.evm.balances(endpoint, address, tokenAddresses) : this.solana.balances(endpoint, address, tokenAddresses))
  }
}

export type { ChainEndpoint, ChainReader, RawBalances }
