/**
 * The swap aggregator as the module reaches it: the port (src/adapters/swap-aggregator/port.ts)
 * and the endpoint wired on deps, and the spec's answers for its failures: no route (code
 * 1002) and any other refusal are 400s with the spec's messages; an aggregator that is slow
 * (past the adapter's time limit), down or unreadable is 503 SWAP_AGGREGATOR_UNAVAILABLE,
 * never a hang or a 500. Every answer is our own fixed text: what the aggregator said (its
 * message, status, code) goes to the log, never into an answer (a partner's words are not ours
 * to show, and may name its internals).
 */
import { SwapAggregatorError, type AggregatorEndpoint, type AggregatorQuoteRequest, type LiFiStep, type SwapAggregator } from '../../adapters/swap-aggregator/port'
import type { Deps } from '../../deps'
import { BadRequestError, ServiceUnavailableError } from '../../lib/errors'

/** What deps carries for swaps (src/deps.ts wires both; a deployment without them answers 503). */
interface SwapDeps {
  swapAggregator?: SwapAggregator
  swapAggregatorEndpoint?: AggregatorEndpoint | (() => AggregatorEndpoint)
}

export const NO_ROUTE = 'No swap route found for this token pair and amount (the aggregator has no quote for it)'
export const UNABLE_TO_QUOTE = 'Unable to get a swap quote from the aggregator; check the tokens and the amount, then try again'

export const AGGREGATOR_UNAVAILABLE = 'Unable to get a swap quote: the swap aggregator is unavailable right now; try again shortly'

const unavailable = () => new ServiceUnavailableError(AGGREGATOR_UNAVAILABLE, { code: 'SWAP_AGGREGATOR_UNAVAILABLE' })

/**
 * The testnet chain ids the configured aggregator quotes: the spec's list of supported testnet
 * chains, which is empty for LI.FI (a deployment without the sandbox aggregator, or with
 * LIFI_BASE_URL set) and the devnet's testnets for the sandbox aggregator.
 */
export function aggregatorTestnets(deps: Deps): readonly number[] {
  const d = deps as unknown as SwapDeps
  const endpoint = typeof d.swapAggregatorEndpoint === 'function' ? d.swapAggregatorEndpoint() : d.swapAggregatorEndpoint
  return d.swapAggregator && endpoint?.testnetChainIds ? endpoint.testnetChainIds : []
}

export async function aggregatorQuote(deps: Deps, request: AggregatorQuoteRequest): Promise<LiFiStep> {
  const d = deps as unknown as SwapDeps
  const endpoint = typeof d.swapAggregatorEndpoint === 'function' ? d.swapAggregatorEndpoint() : d.swapAggregatorEndpoint
  if (!d.swapAggregator || !endpoint) {
    deps.logger.warn('swap quote refused: no swap aggregator is configured')
    throw unavailable()
  }
  try {
    return await d.swapAggregator.quote(endpoint, request)
  } catch (err) {
    if (err instanceof SwapAggregatorError) {
      // the adapter's messages never carry the API key; the aggregator's own words stay here
      deps.logger.warn('swap aggregator did not quote', { kind: err.kind, status: err.status, code: err.code, error: err.message.slice(0, 500) })
      if (err.kind === 'no_route') throw new BadRequestError(NO_ROUTE, { code: 'SWAP_NO_ROUTE' })
      if (err.kind === 'refused') throw new BadRequestError(UNABLE_TO_QUOTE, { code: 'SWAP_QUOTE_REFUSED' })
      throw unavailable()
    }
    // the port promises SwapAggregatorErrors only; anything else is treated as an outage, not a 500
    deps.logger.warn('swap aggregator failed outside its port', { error: (err as Error).message })
    throw unavailable()
  }
}
