/**
 * A JSON-RPC proxy of our own in front of a real EVM node or the fake Solana node, to inject a
 * fault into transaction submissions (`eth_sendRawTransaction`, Solana's `sendTransaction`;
 * `down` breaks every call):
 * - `forward`: passes everything on;
 * - `reject`: answers an error without passing the transaction on (the node never sees it);
 * - `lose`: passes it on, then answers an error (the node took it, its answer was lost);
 * - `cut`: passes it on, then closes the connection without an answer (a connection reset
 *   after the node took it);
 * - `stall`: passes it on, then never answers (the client's time limit ends the request);
 * - `late`: answers an error at once and passes the transaction on `lateMs` later (a gateway
 *   that queued it: when the error arrives the node does not have the signature yet);
 * - `drop`: closes the connection without an answer or passing it on (a reset before the
 *   node read it: to the client, the same as `cut`);
 * - `down`: closes every connection (any method) without an answer or passing it on: a node
 *   that cannot be reached, found before anything is submitted (after `skip` submissions:
 *   everything after the `skip`th submission breaks);
 * - `swallow`: answers success with the transaction's hash without passing it on (a node that
 *   takes a transaction and drops it: it is never mined).
 * `skip` submissions pass on untouched before the fault applies (then it applies to every
 * later one until the mode is set back). `submissions` counts every submission seen.
 * (`swallow` answers an EVM hash: EVM only.)
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { keccak256, type Hex } from 'viem'

export type RpcFault = 'forward' | 'reject' | 'lose' | 'late' | 'cut' | 'stall' | 'drop' | 'down' | 'swallow'

const SUBMISSIONS = new Set(['eth_sendRawTransaction', 'sendTransaction'])

export interface RpcFaultProxy {
  url: string
  mode: RpcFault
  skip: number
  submissions: number
  /** how long `late` waits before passing a submission on (ms, default 500) */
  lateMs: number
  /** the raw transactions that reached the node through the proxy (hex on EVM, base64 on Solana) */
  forwarded: string[]
  /** runs `fn` with `mode` after `skip` clean submissions, then forwards again */
  during<T>(mode: RpcFault, fn: () => Promise<T>, skip?: number): Promise<T>
  stop(): void
}

interface Call { id: unknown; method: string; params?: unknown[] }

export async function startRpcFaultProxy(target: string): Promise<RpcFaultProxy> {
  const forward = (body: string) => fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const state = { mode: 'forward' as RpcFault, skip: 0, submissions: 0, lateMs: 500, forwarded: [] as string[] }
  const answer = async (text: string): Promise<Response | 'close'> => {
    if (state.mode === 'down' && state.skip === 0) return 'close'
    const one = JSON.parse(text) as Call | Call[]
    const calls = Array.isArray(one) ? one : [one]
    const sends = calls.filter((c) => SUBMISSIONS.has(c.method))
    if (!sends.length) return forward(text)
    state.submissions += sends.length
    const raws = sends.map((c) => c.params![0] as string)
    if (state.mode === 'forward' || state.skip > 0 || state.mode === 'down') {
      state.skip = Math.max(0, state.skip - 1)
      state.forwarded.push(...raws)
      return forward(text)
    }
    if (state.mode === 'swallow') {
      const ok = (c: Call) => ({ jsonrpc: '2.0', id: c.id, result: keccak256(c.params![0] as Hex) })
      return Response.json(Array.isArray(one) ? calls.map(ok) : ok(one))
    }
    if (state.mode === 'drop') return 'close'
    if (state.mode === 'late') {
      setTimeout(() => {
        state.forwarded.push(...raws)
        void forward(text).catch(() => {})
      }, state.lateMs)
    }
    if (state.mode === 'lose' || state.mode === 'cut' || state.mode === 'stall') {
      state.forwarded.push(...raws)
      await forward(text)
      if (state.mode === 'cut') return 'close'
      if (state.mode === 'stall') return new Promise<never>(() => {})
    }
    const err = (c: Call) => ({ jsonrpc: '2.0', id: c.id, error: { code: -32000, message: 'server overloaded, try later' } })
    return Response.json(Array.isArray(one) ? calls.map(err) : err(one))
  }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const out = await answer(Buffer.concat(chunks).toString('utf8'))
      if (out === 'close') return void req.socket.destroy()
      res.writeHead(out.status, { 'content-type': 'application/json' })
      res.end(Buffer.from(await out.arrayBuffer()))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get mode() { return state.mode },
    set mode(m) { state.mode = m },
    get skip() { return state.skip },
    set skip(n) { state.skip = n },
    get lateMs() { return state.lateMs },
    set lateMs(n) { state.lateMs = n },
    get submissions() { return state.submissions },
    set submissions(n) { state.submissions = n },
    forwarded: state.forwarded,
    async during(mode, fn, skip = 0) {
      state.mode = mode
      state.skip = skip
      try {
        return await fn()
      } finally {
        state.mode = 'forward'
        state.skip = 0
      }
    },
    stop: () => {
      server.closeAllConnections()
      server.close()
    },
  }
}
