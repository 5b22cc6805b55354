/**
 * LI.FI's quote API (`GET {baseUrl}/quote`), or the embedded sandbox aggregator that speaks it
 * (src/sandbox/swap-aggregator). Every call has a time limit, and every failure is a
 * `SwapAggregatorError` (port.ts), so a route never sees a raw network error or an answer it
 * cannot use:
 * - code 1002 (LI.FI's "no quote", HTTP 404): `no_route`;
 * - any other 4xx: `refused`, with the aggregator's own message;
 * - no answer in time, no connection, a 5xx or 429, unreadable JSON, or a step missing a field
 *   the swaps module reads: `unavailable`.
 * The API key is sent as `x-lifi-api-key` and never logged nor put in an error.
 */
import type { LiFiStep } from '@lifi/types'
import { timedGetJson } from '../timed-get'
import { LIFI_SOLANA_CHAIN_ID, SwapAggregatorError, type AggregatorEndpoint, type AggregatorQuoteRequest, type SwapAggregator } from './port'

/** LI.FI's public API, used when LIFI_BASE_URL is set to it or the sandbox aggregator does not run */
export const LIFI_DEFAULT_BASE_URL = 'https://li.quest/v1'

/** LI.FI's error code for "no quote for this request" */
export const LIFI_NO_QUOTE = 1002

export class LifiAggregator implements SwapAggregator {
  constructor(private readonly timeoutMs: number, private readonly fetchFn: typeof fetch = fetch) {}

  async quote(endpoint: AggregatorEndpoint, request: AggregatorQuoteRequest): Promise<LiFiStep> {
    const query = new URLSearchParams({
      fromChain: String(request.fromChain),
      toChain: String(request.toChain),
      fromToken: request.fromToken,
      toToken: request.toToken,
      fromAmount: request.fromAmount,
      fromAddress: request.fromAddress,
      toAddress: request.toAddress,
      slippage: String(request.slippage),
    })
    const body = await this.get(endpoint, `/quote?${query}`)
    const missing = missingFields(body)
    if (missing.length) throw unavailable(`The swap aggregator sent an incomplete quote (missing ${missing.join(', ')})`)
    return body as LiFiStep
  }

  /** One GET (timed-get.ts), its answer mapped to the aggregator's errors. */
  private async get(endpoint: AggregatorEndpoint, path: string): Promise<unknown> {
    const answer = await timedGetJson(endpoint.fetch ?? this.fetchFn, endpoint.baseUrl.replace(/\/+$/, '') + path, endpoint.apiKey ? { 'x-lifi-api-key': endpoint.apiKey } : {}, this.timeoutMs, {
      timeout: () => unavailable('The swap aggregator did not answer in time'),
      unreachable: () => unavailable('The swap aggregator cannot be reached'),
      unreadable: () => unavailable('The swap aggregator\'s answer could not be read'),
    })
    const { res, parsed } = answer
    const err = (parsed && typeof parsed === 'object' ? parsed : {}) as { message?: unknown; code?: unknown }
    const code = typeof err.code === 'number' ? err.code : null
    const message = typeof err.message === 'string' && err.message ? err.message : null
    if (res.status >= 200 && res.status < 300) {
      if (parsed === undefined || typeof parsed !== 'object' || parsed === null) throw unavailable('The swap aggregator sent an unreadable answer', res.status)
      return parsed
    }
    if (code === LIFI_NO_QUOTE && (res.status === 404 || (res.status >= 400 && res.status < 500))) {
      throw new SwapAggregatorError('no_route', message ?? 'No route for this swap', res.status, code)
    }
    if (res.status === 429) throw unavailable('The swap aggregator is rate limiting requests', res.status, code)
    if (res.status >= 400 && res.status < 500 && parsed !== undefined) {
      throw new SwapAggregatorError('refused', message ?? `The swap aggregator refused the request (HTTP ${res.status})`, res.status, code)
    }
    // 5xx, a redirect, or a 4xx whose body is not the aggregator's JSON (a proxy's page)
    throw unavailable(`The swap aggregator is unavailable (HTTP ${res.status}${message ? `: ${message}` : ''})`, res.status, code)
  }
}

const unavailable = (message: string, status: number | null = null, code: number | null = null) => new SwapAggregatorError('unavailable', message, status, code)


const isText = (v: unknown) => typeof v === 'string' && v.length > 0
const isAmount = (v: unknown) => typeof v === 'string' && /^[0-9]+$/.test(v)
const isHexOrAmount = (v: unknown) => typeof v === 'string' && /^(0x[0-9a-fA-F]*|[0-9]+)$/.test(v)
const isToken = (v: unknown) => !!v && typeof v === 'object' && isText((v as { address?: unknown }).address) && typeof (v as { decimals?: unknown }).decimals === 'number'

/**
 * The fields the swaps module reads from a quote, by path, that are absent or malformed in `step`.
 * A quote from Solana carries its transaction as serialized `data` only (no `to`, `value`, `gasLimit`);
 * a route of typed data to sign (`typedData`, no `transactionRequest`) carries none.
 */
export function missingFields(step: unknown): string[] {
  const s = (step && typeof step === 'object' ? step : {}) as Record<string, any>
  const action = (s.action && typeof s.action === 'object' ? s.action : {}) as Record<string, unknown>
  const estimate = (s.estimate && typeof s.estimate === 'object' ? s.estimate : {}) as Record<string, unknown>
  const tx = (s.transactionRequest && typeof s.transactionRequest === 'object' ? s.transactionRequest : {}) as Record<string, unknown>
  const checks: Array<[string, boolean]> = [
    ['id', isText(s.id)],
    ['tool', isText(s.tool)],
    ['action', !!s.action && typeof s.action === 'object'],
    ['action.fromChainId', typeof action.fromChainId === 'number'],
    ['action.toChainId', typeof action.toChainId === 'number'],
    ['action.fromToken', isToken(action.fromToken)],
    ['action.toToken', isToken(action.toToken)],
    ['estimate.fromAmount', isAmount(estimate.fromAmount)],
    ['estimate.toAmount', isAmount(estimate.toAmount)],
    ['estimate.toAmountMin', isAmount(estimate.toAmountMin)],
    ['estimate.approvalAddress', isText(estimate.approvalAddress)],
    ['estimate.gasCosts', Array.isArray(estimate.gasCosts)],
    ['estimate.executionDuration', typeof estimate.executionDuration === 'number'],
  ]
  // a route that is typed data to sign instead of a transaction (LI.FI's executionType `message`) is
  // complete as it is: the module refuses it as the spec's no single-transaction route, not as an outage
  const messageOnly = !s.transactionRequest && Array.isArray(s.typedData) && s.typedData.length > 0
  if (messageOnly) { /* nothing of transactionRequest is read */ }
  else if (action.fromChainId === LIFI_SOLANA_CHAIN_ID) checks.push(['transactionRequest.data', isText(tx.data)])
  else {
    checks.push(
      ['transactionRequest.to', isText(tx.to)],
      ['transactionRequest.data', typeof tx.data === 'string' && /^0x[0-9a-fA-F]*$/.test(tx.data)],
      ['transactionRequest.value', isHexOrAmount(tx.value)],
      ['transactionRequest.gasLimit', isHexOrAmount(tx.gasLimit)],
    )
  }
  return checks.filter(([, ok]) => !ok).map(([name]) => name)
}
