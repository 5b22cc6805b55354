/**
 * The swap aggregator's port: what the swaps module may ask of LI.FI's quote API (or the
 * embedded sandbox aggregator that speaks the same protocol, src/sandbox/swap-aggregator).
 * The shapes are LI.FI's own, from `@lifi/types`; this file imports types only, so modules may
 * name them without loading the adapter.
 *
 * Every call has a time limit. Failures are `SwapAggregatorError`s, never a raw fetch error:
 * - `no_route`: the aggregator answered code 1002 (HTTP 404): no quote for the pair;
 * - `refused`: any other answer of the aggregator's that is an error (its own message kept);
 * - `unavailable`: no answer in time, no connection, a 5xx or 429, or an unreadable answer.
 */
import type { LiFiStep } from '@lifi/types'

export type { LiFiStep }

/** `GET /v1/quote`'s parameters, in LI.FI's names; chain ids are the aggregator's (Solana 1151111081099710). */
export interface AggregatorQuoteRequest {
  fromChain: number
  toChain: number
  fromToken: string
  toToken: string
  /** smallest unit, forwarded as given */
  fromAmount: string
  fromAddress: string
  toAddress: string
  /** a fraction: 0.005 is 0.5% */
  slippage: number
}

export interface AggregatorEndpoint {
  /** e.g. https://li.quest/v1 (LIFI_BASE_URL), or the sandbox aggregator's */
  baseUrl: string
  /** sent as `x-lifi-api-key` when set (LIFI_API_KEY) */
  apiKey?: string
  /** the sandbox aggregator is reached in process (no network hop), like the bank ramp simulator */
  fetch?: typeof fetch
  /**
   * The testnet chain ids (EIP-155) this aggregator quotes. LI.FI quotes none, so its endpoint
   * leaves this unset and every `isTestnet: true` quote answers 400; the sandbox aggregator lists
   * the devnet's testnets it serves (SANDBOX_SWAP_CHAINS, `gnosis-chiado`'s 10200).
   */
  testnetChainIds?: readonly number[]
}

export type SwapAggregatorErrorKind = 'no_route' | 'refused' | 'unavailable'

export class SwapAggregatorError extends Error {
  constructor(readonly kind: SwapAggregatorErrorKind, message: string, readonly status: number | null = null, readonly code: number | null = null) {
    super(message)
    this.name = 'SwapAggregatorError'
  }
}

export interface SwapAggregator {
  /** one step with `estimate` and `transactionRequest`; throws SwapAggregatorError */
  quote(endpoint: AggregatorEndpoint, request: AggregatorQuoteRequest): Promise<LiFiStep>
}

/** LI.FI's chain id for Solana mainnet (the API's own ids elsewhere are EVM chain ids). */
export const LIFI_SOLANA_CHAIN_ID = 1151111081099710
