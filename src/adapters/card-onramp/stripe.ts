/**
 * The card onramp provider: Stripe's crypto onramp API (`/v1/crypto/onramp_sessions`) through
 * the `stripe` package (its request signing, form encoding, timeouts and webhook signature
 * check; the onramp is a preview API its types do not cover, so the session's shape is
 * declared here from Stripe's reference). Pointing `baseUrl` and the keys at Stripe is all a
 * deployment changes; the embedded sandbox provider (src/sandbox/card-onramp) speaks the same.
 */
import { AppError } from '../../lib/errors'
import { lazy } from '../../lib/lazy'

/** The `stripe` package loads with the first card onramp call (not at start). */
const stripeModule = lazy(async () => (await import('stripe')).default)

/** `crypto.onramp_session` as Stripe answers it (the fields Slipway reads). */
export interface OnrampSession {
  id: string
  object: 'crypto.onramp_session'
  client_secret?: string
  created?: number
  livemode?: boolean
  /** initialized, rejected, requires_payment, fulfillment_processing, fulfillment_complete */
  status: string
  redirect_url?: string | null
  transaction_details?: {
    destination_currency?: string | null
    destination_network?: string | null
    destination_amount?: string | null
    source_amount?: string | null
    source_currency?: string | null
    wallet_address?: string | null
    transaction_id?: string | null
    fees?: { network_fee_amount?: string | null; transaction_fee_amount?: string | null } | null
  }
  metadata?: Record<string, string> | null
}

export interface OnrampEndpoint {
  /** e.g. `https://api.stripe.com`, or the sandbox provider's base */
  baseUrl: string
  apiKey: string
  /** in process for the embedded sandbox provider */
  fetch?: typeof fetch
}

export interface CreateParams {
  walletAddress: string
  destinationNetwork: string
  destinationCurrency: string
  sourceCurrency?: string
  sourceAmount?: string
  destinationAmount?: string
  customerIpAddress?: string
  metadata: Record<string, string>
}

/** Answers the provider's failures in Slipway's envelope: never a 500, never the provider's key. */
function providerError(err: unknown): AppError {
  const e = err as { type?: string; statusCode?: number; code?: string; message?: string }
  if (e?.type === 'StripeConnectionError' || e?.type === 'StripeAPIError' || (e?.statusCode ?? 0) >= 500) {
    return new AppError(503, 'ServiceUnavailableError', 'The card onramp provider is unavailable; try again later', { code: 'CARD_ONRAMP_UNAVAILABLE' })
  }
  if (e?.type === 'StripeAuthenticationError' || e?.statusCode === 401 || e?.statusCode === 403) {
    return new AppError(502, 'BadGatewayError', 'The card onramp provider refused Slipway\'s credentials', { code: 'CARD_ONRAMP_AUTHENTICATION_FAILED' })
  }
  if (e?.type === 'StripeRateLimitError' || e?.statusCode === 429) {
    return new AppError(503, 'ServiceUnavailableError', 'The card onramp provider is rate limiting; try again later', { code: 'CARD_ONRAMP_RATE_LIMITED' })
  }
  return new AppError(400, 'BadRequestError', `The card onramp provider refused the session: ${String(e?.message ?? 'refused').slice(0, 300)}`, { code: 'CARD_ONRAMP_REFUSED' })
}

export class StripeOnramp {
  /** `fetchFn`: the deployment's timed fetch (metrics.fetcher), used where an endpoint names none */
  constructor(private readonly timeoutMs: number, private readonly fetchFn: typeof fetch = fetch) {}

  private async client(endpoint: OnrampEndpoint) {
    const Stripe = await stripeModule()
    const url = new URL(endpoint.baseUrl)
    // Stripe's client takes a host, not a base path: a base with a path (the sandbox provider's) is put back on each request
    const base = endpoint.fetch ?? this.fetchFn
    const prefix = url.pathname.replace(/\/+$/, '')
    const viaBase = prefix
      ? ((input: RequestInfo | URL, init?: RequestInit) => {
        const u = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
        u.pathname = prefix + u.pathname
        return base(u.href, init)
      }) as typeof fetch
      : base
    return new Stripe(endpoint.apiKey, {
      host: url.hostname,
      port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
      protocol: url.protocol === 'http:' ? 'http' : 'https',
      timeout: this.timeoutMs,
      maxNetworkRetries: 0,
      telemetry: false,
      httpClient: Stripe.createFetchHttpClient(viaBase),
    })
  }

  async create(endpoint: OnrampEndpoint, p: CreateParams): Promise<OnrampSession> {
    const params: Record<string, unknown> = {
      [`wallet_addresses[${p.destinationNetwork}]`]: p.walletAddress,
      lock_wallet_address: 'true',
      destination_network: p.destinationNetwork,
      destination_currency: p.destinationCurrency,
      'destination_networks[0]': p.destinationNetwork,
      'destination_currencies[0]': p.destinationCurrency,
      ...(p.sourceCurrency ? { source_currency: p.sourceCurrency } : {}),
      ...(p.sourceAmount ? { source_amount: p.sourceAmount } : {}),
      ...(p.destinationAmount ? { destination_amount: p.destinationAmount } : {}),
      ...(p.customerIpAddress ? { customer_ip_address: p.customerIpAddress } : {}),
      ...Object.fromEntries(Object.entries(p.metadata).map(([k, v]) => [`metadata[${k}]`, v])),
    }
    try {
      return await (await this.client(endpoint)).rawRequest('POST', '/v1/crypto/onramp_sessions', params) as OnrampSession
    } catch (err) {
      throw providerError(err)
    }
  }

  async retrieve(endpoint: OnrampEndpoint, id: string): Promise<OnrampSession> {
    try {
      return await (await this.client(endpoint)).rawRequest('GET', `/v1/crypto/onramp_sessions/${encodeURIComponent(id)}`) as OnrampSession
    } catch (err) {
      throw providerError(err)
    }
  }
}

/** The largest provider event Slipway reads (Stripe's events are a few KB). */
export const MAX_EVENT_BYTES = 64 * 1024

/**
 * A provider event, verified with the `stripe` package's check (HMAC-SHA256 over
 * `timestamp.body` with the webhook secret, constant-time, timestamp within `toleranceSeconds`).
 * Throws when the signature, the timestamp or the body is wrong.
 */
export async function verifyEvent(raw: string, header: string | null, secret: string, nowMs: number, toleranceSeconds = 300) {
  const Stripe = await stripeModule()
  // receivedAt is in milliseconds (the package divides it by 1000)
  return await Stripe.webhooks.constructEventAsync(
    raw,
    header ?? '',
    secret,
    toleranceSeconds,
    undefined,
    nowMs,
  ) as unknown as { id: string; type: string; created: number; data: { object: OnrampSession } }
}

/** A `Stripe-Signature` header for `raw`, as Stripe signs (the sandbox provider's events). */
export async function signEvent(raw: string, secret: string, nowMs: number) {
  const Stripe = await stripeModule()
  return Stripe.webhooks.generateTestHeaderStringAsync({ payload: raw, secret, timestamp: Math.floor(nowMs / 1000) })
}
