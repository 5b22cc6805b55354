/**
 * The price provider's port: what the portfolio module asks of a market-data API speaking
 * CoinGecko's `simple/price` protocol (CoinGecko itself, or the embedded sandbox provider,
 * src/sandbox/prices). Types only, so modules may name them without loading the adapter.
 *
 * Every call has a time limit. A failure is a `PriceProviderError`, never a raw fetch error:
 * no answer in time, no connection, a non-2xx answer (the provider's own message kept, never
 * the API key), or an answer that is not the protocol's JSON object.
 */

export interface PriceEndpoint {
  /** e.g. https://api.coingecko.com/api/v3 (PRICES_BASE_URL), or the sandbox provider's */
  baseUrl: string
  /** sent in `apiKeyHeader` when set (PRICES_API_KEY) */
  apiKey?: string
  /** PRICES_API_KEY_HEADER: `x-cg-demo-api-key` (CoinGecko's demo plan) or `x-cg-pro-api-key` */
  apiKeyHeader?: string
  /** the sandbox provider is reached in process (no network hop), like the sandbox swap aggregator */
  fetch?: typeof fetch
}

/** One coin's price, per whole coin. */
export interface CoinPrice {
  /** exact decimal text of the provider's number (`3012.55`, `0.000012`) */
  eur: string
  usd: string
  /** when the provider last updated it (its `last_updated_at`), else when it answered; Unix ms */
  asOf: number
}

export class PriceProviderError extends Error {
  constructor(message: string, readonly status: number | null = null) {
    super(message)
    this.name = 'PriceProviderError'
  }
}

export interface PriceProvider {
  /**
   * EUR and USD prices of the coins named by the provider's ids. A coin the provider does not
   * know, or answers without both currencies, is absent from the map (CoinGecko leaves unknown
   * ids out of its answer). `now` stamps prices that carry no time of their own.
   */
  simplePrice(endpoint: PriceEndpoint, ids: string[], now: number): Promise<Map<string, CoinPrice>>
}
