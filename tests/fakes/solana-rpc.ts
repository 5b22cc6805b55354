/**
 * A fake Solana JSON-RPC node speaking the methods the chain adapter uses
 * (`getBalance`, `getTokenAccountsByOwner` with jsonParsed encoding), with balances the
 * test sets. It answers in the shapes of the real RPC, so @solana/web3.js validates them.
 */
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'

export interface FakeSolana {
  url: string
  /** lamports per address */
  lamports: Map<string, bigint>
  /** token accounts: owner → list of { mint, amount, decimals } */
  tokenAccounts: Map<string, Array<{ mint: string; amount: bigint; decimals: number }>>
  /** JSON-RPC methods received, in order */
  calls: string[]
  /** `error`: answer HTTP 500; `hang`: never answer; `ok`: normal */
  mode: 'ok' | 'error' | 'hang'
  stop(): void
}

export function startFakeSolana(): FakeSolana {
  const lamports = new Map<string, bigint>()
  const tokenAccounts = new Map<string, Array<{ mint: string; amount: bigint; decimals: number }>>()
  const calls: string[] = []
  const context = { apiVersion: '2.2.0', slot: 1234 }
  const answer = (method: string, params: unknown[]): unknown => {
    switch (method) {
      case 'getBalance':
        return { context, value: Number(lamports.get(params[0] as string) ?? 0n) }
      case 'getTokenAccountsByOwner': {
        const owner = params[0] as string
        const filter = params[1] as { programId?: string; mint?: string }
        const list = (tokenAccounts.get(owner) ?? []).filter((a) => !filter.mint || a.mint === filter.mint)
        return {
          context,
          value: filter.programId && filter.programId !== TOKEN_PROGRAM ? [] : list.map((a, i) => ({
            pubkey: fakeAccountAddress(i),
            account: {
              executable: false, lamports: 2039280, owner: TOKEN_PROGRAM, rentEpoch: 0, space: 165,
              data: {
                program: 'spl-token', space: 165,
                parsed: { type: 'account', info: { isNative: false, mint: a.mint, owner, state: 'initialized', tokenAmount: { amount: a.amount.toString(), decimals: a.decimals, uiAmount: Number(a.amount) / 10 ** a.decimals, uiAmountString: String(Number(a.amount) / 10 ** a.decimals) } } },
              },
            },
          })),
        }
      }
      default:
        return undefined
    }
  }
  const state = { mode: 'ok' as FakeSolana['mode'] }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      if (state.mode === 'error') return new Response('upstream failure', { status: 500 })
      if (state.mode === 'hang') return new Promise<Response>(() => {})
      const body = (await req.json()) as { id: unknown; method: string; params?: unknown[] } | Array<{ id: unknown; method: string; params?: unknown[] }>
      const one = (r: { id: unknown; method: string; params?: unknown[] }) => {
        calls.push(r.method)
        const result = answer(r.method, r.params ?? [])
        return result === undefined ? { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: 'Method not found' } } : { jsonrpc: '2.0', id: r.id, result }
      }
      return Response.json(Array.isArray(body) ? body.map(one) : one(body))
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`, lamports, tokenAccounts, calls,
    get mode() { return state.mode },
    set mode(m) { state.mode = m },
    stop: () => server.stop(true),
  }
}

// Valid base58 public keys for the token accounts the fake lists.
const ACCOUNTS = ['7YttLkHDoNj9wyDur5pM1ejNaAvT9X4eqaYcHQqtj2G5', '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', 'SysvarRent111111111111111111111111111111111']
const fakeAccountAddress = (i: number) => ACCOUNTS[i % ACCOUNTS.length]!
