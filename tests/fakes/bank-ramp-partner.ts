/**
 * Servers speaking the bank ramp partner's protocol on 127.0.0.1:
 * - `startSimulator()`: the real sandbox simulator (src/sandbox/bank-ramp) as its own HTTP server;
 * - `MisbehavingPartner`: answers every call in the way it is told (slow, down, rate limiting,
 *   refusing the key, refusing the request, unreadable), and counts the calls.
 */
import { createBankRampSimulator, type SimulatorAccount, type SimulatorOptions } from '@/sandbox/bank-ramp/app'

export interface RunningSimulator {
  url: string
  /** API base the adapter is pointed at */
  apiUrl: string
  accounts: Map<string, SimulatorAccount>
  settle(): Promise<void>
  stop(): void
}

export function startSimulator(opts: Partial<SimulatorOptions> = {}): RunningSimulator {
  const accounts = new Map<string, SimulatorAccount>()
  let url = ''
  const sim = createBankRampSimulator({ accounts: (k) => accounts.get(k) ?? null, publicUrl: () => url, ...opts })
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: sim.fetch })
  url = `http://127.0.0.1:${server.port}`
  return { url, apiUrl: `${url}/v1`, accounts, settle: () => sim.settle(), stop: () => server.stop(true) }
}

export type PartnerMode = 'ok' | 'slow-ok' | 'slow' | 'down' | 'rate-limited' | 'bad-key' | 'refuse' | 'not-found' | 'garbage' | 'closed'

export class MisbehavingPartner {
  mode: PartnerMode = 'ok'
  calls = 0
  /** while set, every `ok` answer waits for it: a test holds a call open for as long as it needs, whatever the machine's load */
  held?: Promise<void>
  readonly keys: string[] = []
  private server?: ReturnType<typeof Bun.serve>

  start() {
    this.server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async (req) => {
        this.calls++
        this.keys.push(req.headers.get('x-api-key') ?? '')
        const json = (body: unknown, status: number, headers: Record<string, string> = {}) =>
          new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
        switch (this.mode) {
          case 'slow':
            await Bun.sleep(10_000)
            return json({ HostedURL: 'https://late.example/' }, 200)
          case 'down':
            return json({ Type: 'Unexpected', Detail: 'maintenance' }, 503)
          case 'rate-limited':
            return json({ Type: 'Unexpected', Detail: 'slow down' }, 429, { 'retry-after': '7' })
          case 'bad-key':
            return json({ Type: 'Unauthorized', Detail: 'bad key' }, 401)
          case 'refuse':
            return json({ Type: 'InvalidMessage', Detail: 'FiatCurrency is not supported', Extensions: { Request: { FiatCurrency: 'unsupported' } } }, 422)
          case 'not-found':
            return json({ Type: 'ResourceNotFound', Detail: 'Customer not found' }, 404)
          case 'garbage':
            return new Response('<html>proxy error</html>', { status: 200, headers: { 'content-type': 'text/html' } })
          case 'closed':
            return new Response(null, { status: 204 })
          default: {
            if (this.mode === 'slow-ok') await Bun.sleep(300)
            if (this.held) await this.held
            const path = new URL(req.url).pathname
            if (path.startsWith('/onboarding/')) return json({ HostedURL: `https://partner.example/onboarding/${this.calls}` }, 200)
            if (path === '/workflows/bank-deposit-to-onchain-address') {
              return json({ PaymentMethodID: `Bank/Sepa/${this.calls}`, PaymentMethodType: 'BankSepa', AccountNumber: 'DE89370400440532013000', BankCode: 'COBADEFFXXX' }, 200)
            }
            return json({ Type: 'ResourceNotFound', Detail: 'no such thing' }, 404)
          }
        }
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
