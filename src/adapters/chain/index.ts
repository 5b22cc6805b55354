/**
 * The chain gateway: one per process (deps.chain), holding a client factory per chain
 * family. Every call goes through `guard`, which tells a node that could not be reached
 * from a node that answered and refused:
 * - unreachable, timing out, an HTTP error or a malformed answer: 503 (temporarily
 *   unavailable: retrying can help);
 * - no contract at the address on this network: 501 `CONTRACT_NOT_AVAILABLE` (the spec's
 *   "a required contract is not available on the network"), naming the address;
 * - a call that reverted: 422 `CONTRACT_CALL_REVERTED`, naming the contract;
 * - any other JSON-RPC error from the node: 502 `CHAIN_RPC_ERROR`.
 * Never 500. The RPC address is left out of errors and logs because operators often put
 * API keys in it.
 */
import { AppError, ServiceUnavailableError } from '../../lib/errors'
import type { Logger } from '../../lib/logger'
import { lazy } from '../../lib/lazy'
import type { EvmClients } from './evm'
import type { SolanaClients } from './solana'
import type { AavePoolRpc, ChainEndpoint, ChainReader, EvmRpc, RawBalances, SolanaRpc } from './port'

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
      if (err instanceof AppError) throw err
      this.logger.warn('chain rpc failed', { chain: endpoint.registryId, what, errorName: err instanceof Error ? err.name : typeof err })
      throw chainError(endpoint, err)
    }
  }

  /** The port's EvmRpc for the network (viem loads with the first call). */
  async evmRpc(endpoint: ChainEndpoint): Promise<EvmRpc> {
    return (await this.evm()).rpc(endpoint)
  }

  /** Reads of an Aave v3 Pool on the EVM network (Aave's IPool ABI loads with the first call); run them inside `guard`. */
  async aavePool(endpoint: ChainEndpoint): Promise<AavePoolRpc> {
    const [{ aavePoolRpc }, evm] = await Promise.all([import('./aave'), this.evm()])
    return aavePoolRpc(evm.client(endpoint, 'batched'))
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

type Link = { name?: string; details?: string; contractAddress?: string; cause?: unknown }

/** What the answer to a failed chain call is: see the header. */
export function chainError(endpoint: ChainEndpoint, err: unknown): AppError {
  const links: Link[] = []
  for (let e = err as Link | undefined, i = 0; e && i < 10; e = e.cause as Link | undefined, i++) links.push(e)
  const named = (...names: string[]) => links.some((l) => l.name !== undefined && names.includes(l.name))
  const contract = links.find((l) => typeof l.contractAddress === 'string')?.contractAddress
  const at = contract ? ` at ${contract}` : ''
  if (named('ContractFunctionZeroDataError')) {
    return new AppError(501, 'NotImplemented', `No contract${at} is deployed on ${endpoint.registryId}`, { code: 'CONTRACT_NOT_AVAILABLE' })
  }
  // (nodes word a revert differently: viem names some, others say it only in the details)
  if (named('ContractFunctionRevertedError', 'ExecutionRevertedError') || links.some((l) => /\brevert/i.test(l.details ?? ''))) {
    return new AppError(422, 'Validation Error', `The contract${at} on ${endpoint.registryId} refused the call (reverted)`, { code: 'CONTRACT_CALL_REVERTED' })
  }
  // The node answered with a JSON-RPC error: it is reachable, so "temporarily unavailable" would mislead.
  // (viem names those RpcRequestError or <Kind>RpcError; a rate limit is still "try later")
  const answered = links.some((l) => l.name === 'RpcRequestError' || (l.name?.endsWith('RpcError') ?? false))
  if (answered && !named('LimitExceededRpcError', 'TimeoutError')) {
    return new AppError(502, 'Bad Gateway', `The ${endpoint.registryId} node refused the call`, { code: 'CHAIN_RPC_ERROR' })
  }
  return new ServiceUnavailableError(`The ${endpoint.registryId} network is temporarily unavailable`)
}

export type { AavePoolRpc, ChainEndpoint, ChainReader, EvmRpc, RawBalances, SolanaRpc, SubmitOutcome } from './port'
