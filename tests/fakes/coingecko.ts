/**
 * A local server speaking CoinGecko's `GET /api/v3/simple/price?ids=&vs_currencies=&include_last_updated_at=`:
 * it answers the prices set in `prices` (JSON numbers, as CoinGecko writes them, with
 * `last_updated_at` from `updatedAt` in Unix seconds), or, by `mode`, fails as the real service or
 * the network can: a 500, a 429 with CoinGecko's `{ status: { error_code, error_message } }`,
 * too slow for a time limit, or not JSON. `stop()` closes the port (connection refused). It
 * records each request's path, query and key headers.
 */
export type FakeCoinGeckoMode = 'ok' | 'server-error' | 'rate-limited' | 'slow' | 'garbage'

export class FakeCoinGecko {
  mode: FakeCoinGeckoMode = 'ok'
  slowMs = 10_000
  /** per coin id: EUR and USD per whole coin */
  prices: Record<string, { eur: number; usd: number }> = {}
  /** `last_updated_at`, Unix seconds; unset: the fake's own clock */
  updatedAt?: number
  readonly requests: Array<{ path: string; query: Record<string, string>; demoKey: string | null; proKey: string | null }> = []
  private server?: ReturnType<typeof Bun.serve>

  get url() {
    return `http://127.0.0.1:${this.server!.port}/api/v3`
  }

  start(port = 0) {
    this.server = Bun.serve({
      hostname: '127.0.0.1',
      port,
      fetch: async (req) => {
        const url = new URL(req.url)
        this.requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams), demoKey: req.headers.get('x-cg-demo-api-key'), proKey: req.headers.get('x-cg-pro-api-key') })
        if (url.pathname !== '/api/v3/simple/price') return Response.json({ error: 'Not found' }, { status: 404 })
        switch (this.mode) {
          case 'server-error':
            return Response.json({ error: 'Internal Server Error' }, { status: 500 })
          case 'rate-limited':
            return Response.json({ status: { error_code: 429, error_message: 'You\'ve exceeded the Rate Limit.' } }, { status: 429 })
          case 'garbage':
            return new Response('<html>upstream hiccup</html>{', { status: 200, headers: { 'content-type': 'application/json' } })
          case 'slow':
            await Bun.sleep(this.slowMs)
        }
        const ids = (url.searchParams.get('ids') ?? '').split(',').filter(Boolean)
        const vs = (url.searchParams.get('vs_currencies') ?? '').split(',').filter(Boolean)
        if (!ids.length || !vs.length) return Response.json({ error: 'Missing parameter' }, { status: 400 })
        const out: Record<string, Record<string, number>> = {}
        for (const id of ids) {
          const p = this.prices[id]
          if (!p) continue
          out[id] = Object.fromEntries(vs.filter((c) => c === 'eur' || c === 'usd').map((c) => [c, p[c as 'eur' | 'usd']]))
          if (url.searchParams.get('include_last_updated_at') === 'true') out[id]!.last_updated_at = this.updatedAt ?? Math.floor(Date.now() / 1000)
        }
        return Response.json(out)
      },
    })
    return this
  }

  async stop() {
    await this.server?.stop(true)
  }
}
