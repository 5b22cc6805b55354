/**
 * A local server speaking Have I Been Pwned's Pwned Passwords range API:
 * `GET /range/{5 hex}` answers `SUFFIX:COUNT` lines; with `Add-Padding: true` it adds
 * zero-count lines, as the real service does.
 */
import { createHash } from 'node:crypto'

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex').toUpperCase()

export class FakeHibp {
  private readonly breached = new Map<string, number>()
  /** zero-count padding lines that collide with these passwords' suffixes (to prove padding is ignored) */
  private readonly paddedOnly = new Set<string>()
  readonly requests: Array<{ path: string; addPadding: string | null }> = []
  mode: 'ok' | 'error' | 'slow' = 'ok'
  /** how long `slow` waits before answering: far past any time limit a test sets, so a busy machine cannot blur the two */
  slowMs = 10_000
  private server?: ReturnType<typeof Bun.serve>

  addBreached(password: string, count = 42) {
    this.breached.set(sha1(password), count)
    return this
  }

  /** The password's suffix appears in the padded answer with a count of 0. */
  addPaddingFor(password: string) {
    this.paddedOnly.add(sha1(password))
    return this
  }

  start() {
    this.server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async (req) => {
        const url = new URL(req.url)
        this.requests.push({ path: url.pathname, addPadding: req.headers.get('add-padding') })
        if (this.mode === 'error') return new Response('Service Unavailable', { status: 503 })
        if (this.mode === 'slow') await Bun.sleep(this.slowMs)
        const m = /^\/range\/([0-9A-Fa-f]{5})$/.exec(url.pathname)
        if (!m) return new Response('The hash prefix was not in a valid format', { status: 400 })
        const prefix = m[1]!.toUpperCase()
        const lines: string[] = []
        for (const [hash, count] of this.breached) if (hash.startsWith(prefix)) lines.push(`${hash.slice(5)}:${count}`)
        // Unrelated suffixes, as in any real answer.
        for (let i = 0; i < 5; i++) lines.push(`${sha1(`${prefix}-${i}`).slice(5)}:${i + 1}`)
        if (req.headers.get('add-padding') === 'true') {
          for (const hash of this.paddedOnly) if (hash.startsWith(prefix)) lines.push(`${hash.slice(5)}:0`)
          for (let i = 0; i < 20; i++) lines.push(`${sha1(`pad-${prefix}-${i}`).slice(5)}:0`)
        }
        return new Response(lines.join('\r\n'), { headers: { 'content-type': 'text/plain' } })
      },
    })
    return this
  }

  get url() {
    return `http://127.0.0.1:${this.server!.port}`
  }

  stop() {
    this.server?.stop(true)
  }
}
