/** A tenant's webhook receiver on 127.0.0.1: records what it gets and answers the statuses it is told. */
export interface Received {
  path: string
  headers: Record<string, string>
  body: string
  at: number
}

function headersOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {}
  req.headers.forEach((value, key) => { out[key] = value })
  return out
}

export class WebhookReceiver {
  readonly received: Received[] = []
  /** statuses for the next requests, in order; 200 once empty */
  plan: number[] = []
  /** when set, each request waits this long before answering */
  delayMs = 0
  private server?: ReturnType<typeof Bun.serve>
  private waiters: Array<{ n: number; resolve: () => void }> = []

  start(port = 0) {
    this.server = Bun.serve({
      hostname: '127.0.0.1',
      port,
      fetch: async (req) => {
        const url = new URL(req.url)
        const body = await req.text()
        this.received.push({ path: url.pathname + url.search, headers: headersOf(req), body, at: Date.now() })
        this.waiters = this.waiters.filter((w) => (this.received.length >= w.n ? (w.resolve(), false) : true))
        if (this.delayMs) await Bun.sleep(this.delayMs)
        const status = this.plan.shift() ?? 200
        return new Response(status === 302 ? null : 'ok', { status, headers: status === 302 ? { location: 'http://127.0.0.1:1/' } : {} })
      },
    })
    return this
  }

  get origin() {
    return `http://127.0.0.1:${this.server!.port}`
  }

  /** Resolves once `n` requests in total have arrived. */
  waitFor(n: number, timeoutMs = 5000): Promise<void> {
    if (this.received.length >= n) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receiver got ${this.received.length} of ${n} requests`)), timeoutMs)
      this.waiters.push({ n, resolve: () => { clearTimeout(timer); resolve() } })
    })
  }

  stop() {
    this.server?.stop(true)
  }
}
