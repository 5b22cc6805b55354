/**
 * A proxy of our own in front of the bank ramp partner simulator, to inject a fault into sells
 * (`POST /transactions/sell`): `forward` passes everything on; `fail` answers the sell 503
 * without passing it on; `lose` passes it on, then answers 503 (the partner sold, the answer was
 * lost). `sells` counts the sells seen, `passed` those that reached the partner.
 */
type PartnerFault = 'forward' | 'fail' | 'lose'

export interface PartnerProxy {
  mode: PartnerFault
  sells: number
  passed: number
  url: string
  /** runs `fn` with `mode`, then forwards again */
  during<T>(mode: PartnerFault, fn: () => Promise<T>): Promise<T>
  stop(): void
}

export function startPartnerProxy(target: string): PartnerProxy {
  const state: PartnerProxy = {
    mode: 'forward', sells: 0, passed: 0, url: '',
    async during(mode, fn) {
      state.mode = mode
      try {
        return await fn()
      } finally {
        state.mode = 'forward'
      }
    },
    stop: () => server.stop(true),
  }
  const server = Bun.serve({
    hostname: '127.0.0.1', port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const to = new Request(`${target}${url.pathname}${url.search}`, { method: req.method, headers: req.headers, body: req.method === 'GET' ? undefined : await req.arrayBuffer() })
      if (req.method === 'POST' && url.pathname === '/transactions/sell') {
        state.sells++
        if (state.mode === 'fail') return Response.json({ Type: 'ServiceUnavailable', Detail: 'down' }, { status: 503 })
        state.passed++
        const res = await fetch(to)
        if (state.mode === 'lose') return Response.json({ Type: 'ServiceUnavailable', Detail: 'gateway lost the answer' }, { status: 503 })
        return res
      }
      return fetch(to)
    },
  })
  state.url = `http://127.0.0.1:${server.port}`
  return state
}
