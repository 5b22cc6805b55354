/**
 * The sandbox price provider (PRICES_SANDBOX=embedded): CoinGecko's `simple/price` protocol
 * served by Slipway itself under `/sandbox/prices/api/v3`, so portfolio values work offline
 * with the same adapter that talks to CoinGecko (src/adapters/prices/coingecko.ts). The
 * adapter reaches it in process (no network hop), through `PriceEndpoint.fetch`.
 *
 * Its prices are fixed reference values (SANDBOX_PRICES), the same every day: a sandbox
 * portfolio changes with its balances only. It holds no key and checks none; an id it does not
 * know is left out of the answer, as CoinGecko does.
 */

export const SANDBOX_PRICES_PATH = '/sandbox/prices'

/** EUR and USD per whole coin, by CoinGecko id: round reference values, not market data. */
export const SANDBOX_PRICES: Readonly<Record<string, { eur: number; usd: number }>> = {
  'ethereum': { eur: 3000, usd: 3240 },
  'polygon-ecosystem-token': { eur: 0.5, usd: 0.54 },
  'binancecoin': { eur: 600, usd: 648 },
  'avalanche-2': { eur: 30, usd: 32.4 },
  'celo': { eur: 0.5, usd: 0.54 },
  'flow': { eur: 0.6, usd: 0.648 },
  'xdai': { eur: 0.93, usd: 1 },
  'solana': { eur: 150, usd: 162 },
  'usd-coin': { eur: 0.93, usd: 1 },
  'tether': { eur: 0.93, usd: 1 },
  'celo-dollar': { eur: 0.93, usd: 1 },
  'euro-coin': { eur: 1, usd: 1.08 },
  'celo-euro': { eur: 1, usd: 1.08 },
  'monerium-eur-money': { eur: 1, usd: 1.08 },
}

export interface SandboxPricesOptions {
  publicBaseUrl: string
  /** the app clock: `last_updated_at` is its now */
  now: () => number
}

export type SandboxPrices = ReturnType<typeof createSandboxPrices>

export function createSandboxPrices(opts: SandboxPricesOptions) {
  return {
    /** the CoinGecko base URL the adapter is pointed at (reached in process through `fetch`) */
    baseUrl: `${opts.publicBaseUrl}${SANDBOX_PRICES_PATH}/api/v3`,
    /** serves requests whose path starts with SANDBOX_PRICES_PATH */
    fetch: async (request: Request): Promise<Response> => {
      const url = new URL(request.url)
      const path = url.pathname.slice(url.pathname.indexOf(SANDBOX_PRICES_PATH) + SANDBOX_PRICES_PATH.length).replace(/\/+$/, '')
      if (request.method !== 'GET' || path !== '/api/v3/simple/price') return Response.json({ error: `Not found: ${request.method} ${SANDBOX_PRICES_PATH}${path}` }, { status: 404 })
      const ids = (url.searchParams.get('ids') ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)
      const currencies = (url.searchParams.get('vs_currencies') ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)
      if (!ids.length) return Response.json({ error: 'Missing parameter ids' }, { status: 400 })
      if (!currencies.length) return Response.json({ error: 'Missing parameter vs_currencies' }, { status: 400 })
      const withTime = url.searchParams.get('include_last_updated_at') === 'true'
      const at = Math.floor(opts.now() / 1000)
      const out: Record<string, Record<string, number>> = {}
      for (const id of ids) {
        const p = SANDBOX_PRICES[id]
        if (!p) continue
        const entry: Record<string, number> = {}
        for (const c of currencies) if (c === 'eur' || c === 'usd') entry[c] = p[c]
        if (withTime) entry.last_updated_at = at
        out[id] = entry
      }
      return Response.json(out)
    },
  }
}
