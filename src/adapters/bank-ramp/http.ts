/**
 * The partner's REST client. Every call carries `X-Api-Key` and a time limit, and every
 * failure becomes a `RampApiError` with the spec's code, so a route never sees a raw
 * network error or the partner's body unshaped:
 * - no answer in time: 503 `RAMP_TIMEOUT`; no connection: 503 `RAMP_UNREACHABLE`
 * - 401, or 403 `Unauthorized`: 502 `RAMP_AUTHENTICATION_FAILED` (the tenant's key, not the user's session)
 * - 429: 503 `RAMP_RATE_LIMITED`; 5xx or an unreadable answer: 503 `RAMP_UNAVAILABLE`
 * - 404 `ResourceNotFound`: 404 `RAMP_RESOURCE_NOT_FOUND`
 * - any other 4xx: the partner's refusal with its status, `details.code` `RAMP_REQUEST_REFUSED`
 *   and the partner's `Type`, `Detail` and invalid fields.
 * The API key is never logged nor put in an error.
 */
import { RampApiError } from '../../lib/errors'
import { parseJson } from '../timed-get'
import type {
  BankDepositToOnchainAddressRequest, BankDepositToOnchainAddressResponse, BankRampClient, BankRampPort, FiatDepositSimulateRequest,
  ChannelsQuery, GetFormResponse, HostedOnboardingRequest, HostedSessionResponse, PartnerChannel, PartnerConnection, PartnerCustomer, PartnerPaymentMethod,
  PartnerProvenAddress, PrepareSellRequest, PrepareSellResponse, ProvenAddressRequest, SellRequest, SellResponse,
} from './port'

/** Query parameters without the absent ones. */
const defined = (q: object): Record<string, string> =>
  Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, String(v)]))

interface PartnerError {
  Type?: string
  Detail?: string
  Extensions?: { Request?: Record<string, unknown> }
}

export class HttpBankRamp implements BankRampPort {
  constructor(private readonly timeoutMs: number, private readonly fetchFn: typeof fetch = fetch) {}

  connect(conn: PartnerConnection): BankRampClient {
    const call = <T>(method: string, path: string, body?: unknown) => this.call<T>(conn, method, path, body)
    const enc = encodeURIComponent
    return {
      getCustomer: (id) => call<PartnerCustomer>('GET', `/customers/${enc(id)}`),
      createOnboardingSession: (id, req: HostedOnboardingRequest) => call<HostedSessionResponse>('POST', `/onboarding/${enc(id)}`, req),
      createBankDepositWorkflow: (req: BankDepositToOnchainAddressRequest) =>
        call<BankDepositToOnchainAddressResponse>('POST', '/workflows/bank-deposit-to-onchain-address', req),
      listPaymentMethods: async (customerId) => {
        const items: PartnerPaymentMethod[] = []
        let token: string | undefined
        // The partner pages with an opaque PageToken; 20 pages of 100 is far beyond one user's methods.
        for (let i = 0; i < 20; i++) {
          const q = new URLSearchParams({ CustomerID: customerId, PageSize: '100', ...(token ? { PageToken: token } : {}) })
          const page = await call<{ Items: PartnerPaymentMethod[]; PageToken?: string }>('GET', `/payment-methods?${q}`)
          items.push(...(page.Items ?? []))
          token = page.PageToken
          if (!token) break
        }
        return items
      },
      simulateFiatDeposit: (req: FiatDepositSimulateRequest) => call<{ FiatDepositID: string }>('POST', '/sandbox/fiat-deposit/simulate', req),
      sellCountries: (customerId) => call<Record<string, string[]>>('GET', `/channels/sell/countries${customerId ? `?${new URLSearchParams({ CustomerID: customerId })}` : ''}`),
      sellChannels: async (q: ChannelsQuery) => {
        const items: PartnerChannel[] = []
        let token: string | undefined
        // PageToken pages; 10 pages of 100 channels is far beyond one country's
        for (let i = 0; i < 10; i++) {
          const params = new URLSearchParams({ PageSize: '100', ...defined(q), ...(token ? { PageToken: token } : {}) })
          const page = await call<{ Items: PartnerChannel[]; PageToken?: string }>('GET', `/channels/sell?${params}`)
          items.push(...(Array.isArray(page.Items) ? page.Items : []))
          token = page.PageToken
          if (!token) break
        }
        return items
      },
      channelForm: (id, q) => {
        const params = new URLSearchParams(defined(q))
        return call<GetFormResponse>('GET', `/channels/${enc(id)}/form${params.size ? `?${params}` : ''}`)
      },
      prepareSell: (req: PrepareSellRequest) => call<PrepareSellResponse>('POST', '/transactions/sell/prepare', req),
      sell: (req: SellRequest) => call<SellResponse>('POST', '/transactions/sell', req),
      registerAddress: (id, req: ProvenAddressRequest) => call<PartnerProvenAddress>('POST', `/customers/${enc(id)}/addresses`, req),
      removeAddress: async (id, addressId) => {
        await call<unknown>('DELETE', `/customers/${enc(id)}/addresses/${enc(addressId)}`)
      },
    }
  }

  private async call<T>(conn: PartnerConnection, method: string, path: string, body?: unknown): Promise<T> {
    const fetchFn = conn.fetch ?? this.fetchFn
    let res: Response
    try {
      res = await fetchFn(conn.baseUrl.replace(/\/+$/, '') + path, {
        method,
        headers: {
          'X-Api-Key': conn.apiKey,
          Accept: 'application/json',
          'User-Agent': 'Slipway',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      })
    } catch (err) {
      const name = (err as Error)?.name
      if (name === 'TimeoutError' || name === 'AbortError') throw new RampApiError(503, 'RAMP_TIMEOUT', 'The bank ramp did not answer in time')
      throw new RampApiError(503, 'RAMP_UNREACHABLE', 'The bank ramp cannot be reached')
    }
    let text: string
    try {
      text = await res.text()
    } catch (err) {
      const name = (err as Error)?.name
      if (name === 'TimeoutError' || name === 'AbortError') throw new RampApiError(503, 'RAMP_TIMEOUT', 'The bank ramp did not answer in time')
      throw new RampApiError(503, 'RAMP_UNAVAILABLE', 'The bank ramp answer could not be read')
    }
    const parsed = parseJson(text)
    if (res.status >= 200 && res.status < 300) {
      if (parsed === undefined && text.length) throw new RampApiError(503, 'RAMP_UNAVAILABLE', 'The bank ramp sent an unreadable answer')
      return (parsed ?? {}) as T
    }
    const perr = (parsed && typeof parsed === 'object' ? parsed : {}) as PartnerError
    if (res.status === 401 || (res.status === 403 && perr.Type === 'Unauthorized')) {
      throw new RampApiError(502, 'RAMP_AUTHENTICATION_FAILED', 'The bank ramp refused the tenant\'s credentials')
    }
    if (res.status === 429) {
      const retry = Number(res.headers.get('retry-after'))
      throw new RampApiError(503, 'RAMP_RATE_LIMITED', 'The bank ramp is rate limiting requests', Number.isFinite(retry) && retry > 0 ? { retryAfterSeconds: retry } : {})
    }
    if (res.status >= 500 || res.status < 400) throw new RampApiError(503, 'RAMP_UNAVAILABLE', 'The bank ramp is unavailable')
    if (res.status === 404 && (perr.Type === 'ResourceNotFound' || perr.Type === undefined)) {
      throw new RampApiError(404, 'RAMP_RESOURCE_NOT_FOUND', perr.Detail || 'The bank ramp has no such resource')
    }
    throw new RampApiError(res.status, 'RAMP_REQUEST_REFUSED', perr.Detail || 'The bank ramp refused the request', {
      type: perr.Type ?? null,
      detail: perr.Detail ?? null,
      ...(perr.Extensions?.Request ? { fields: perr.Extensions.Request } : {}),
    })
  }
}
