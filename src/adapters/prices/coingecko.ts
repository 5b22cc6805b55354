/**
 * CoinGecko's `GET {baseUrl}/simple/price?ids=<ids>&vs_currencies=eur,usd&include_last_updated_at=true`,
 * or any provider (the embedded sandbox, src/sandbox/prices) that speaks it. The answer is
 * `{ "<id>": { "eur": 3012.55, "usd": 3250.1, "last_updated_at": 1795600000 } }`.
 *
 * - Every call has a time limit over the answer and its body. It is a race as well as the
 *   fetch's signal: the sandbox provider is reached in process, where an aborted signal stops
 *   nothing by itself.
 * - The API key goes in its header (`x-cg-demo-api-key` by default) and never into a log line
 *   or an error message.
 * - Prices arrive as JSON numbers; each is turned into exact decimal text of the number as
 *   written (at most 18 decimals), so nothing downstream computes money in floating point.
 *   A negative, missing or non-numeric price leaves that coin out, as an unknown id does.
 */
import { PriceProviderError, type CoinPrice, type PriceEndpoint, type PriceProvider } from './port'
import { timedGetJson } from '../timed-get'

/** CoinGecko's public API, used when PRICES_BASE_URL is unset and the sandbox provider does not run */
export const PRICES_DEFAULT_BASE_URL = 'https://api.coingecko.com/api/v3'

/** ids per request: CoinGecko's URL stays well under every proxy's limit */
const MAX_IDS = 100

export class CoinGeckoPrices implements PriceProvider {
  constructor(private readonly timeoutMs: number, private readonly fetchFn: typeof fetch = fetch) {}

  async simplePrice(endpoint: PriceEndpoint, ids: string[], now: number): Promise<Map<string, CoinPrice>> {
    const out = new Map<string, CoinPrice>()
    const wanted = [...new Set(ids)].sort()
    for (let i = 0; i < wanted.length; i += MAX_IDS) {
      const chunk = wanted.slice(i, i + MAX_IDS)
      const query = new URLSearchParams({ ids: chunk.join(','), vs_currencies: 'eur,usd', include_last_updated_at: 'true' })
      const body = await this.get(endpoint, `/simple/price?${query}`)
      for (const id of chunk) {
        const entry = (body as Record<string, unknown>)[id]
        if (!entry || typeof entry !== 'object') continue
        const e = entry as Record<string, unknown>
        const eur = decimalText(e.eur)
        const usd = decimalText(e.usd)
        if (eur === null || usd === null) continue
        const updated = typeof e.last_updated_at === 'number' && Number.isSafeInteger(e.last_updated_at) && e.last_updated_at > 0 ? e.last_updated_at * 1000 : now
        out.set(id, { eur, usd, asOf: Math.min(updated, now) })
      }
    }
    return out
  }

  /** One GET (timed-get.ts), its answer mapped to the provider's errors. */
  private async get(endpoint: PriceEndpoint, path: string): Promise<unknown> {
    const url = endpoint.baseUrl.replace(/\/+$/, '') + path
    const headers = endpoint.apiKey ? { [endpoint.apiKeyHeader ?? 'x-cg-demo-api-key']: endpoint.apiKey } : {}
    const { res, parsed } = await timedGetJson(endpoint.fetch ?? this.fetchFn, url, headers, this.timeoutMs, {
      timeout: () => new PriceProviderError('The price provider did not answer in time'),
      unreachable: () => new PriceProviderError('The price provider cannot be reached'),
      unreadable: (status) => new PriceProviderError('The price provider\'s answer could not be read', status),
    })
    if (res.status < 200 || res.status >= 300) {
      // CoinGecko writes `{ error }` or `{ status: { error_message } }`
      const p = (parsed && typeof parsed === 'object' ? parsed : {}) as { error?: unknown; status?: { error_message?: unknown } }
      const said = typeof p.error === 'string' ? p.error : typeof p.status?.error_message === 'string' ? p.status.error_message : null
      throw new PriceProviderError(`The price provider answered HTTP ${res.status}${said ? `: ${said.slice(0, 200)}` : ''}`, res.status)
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new PriceProviderError('The price provider sent an unreadable answer', res.status)
    return parsed
  }
}

/**
 * Exact decimal text of a non-negative JSON number as JavaScript writes it (`3012.55`,
 * `1.23e-7` → `0.000000123`), at most 18 decimals (cut, not rounded); null for anything else.
 */
export function decimalText(n: unknown): string | null {
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) return null
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(n))
  if (!m) return null
  let digits = m[1]! + (m[2] ?? '')
  let point = m[1]!.length + Number(m[3] ?? 0)
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits
    point = 1
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length)
  const whole = digits.slice(0, point).replace(/^0+(?=\d)/, '')
  const frac = digits.slice(point, point + 18).replace(/0+$/, '')
  return frac ? `${whole}.${frac}` : whole
}
