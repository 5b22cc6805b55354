/**
 * A proxy in front of a real sqld for tests: Hrana over HTTP (each POST passed on) and over WebSocket (each message
 * passed on, the socket speaking JSON, `hrana3`, so the proxy can read it). It counts the requests that run SQL
 * (`pipeline`/`cursor` POSTs, and WebSocket `execute`/`batch` requests), and can stop answering (`hang`): a primary
 * behind a broken network, its sockets open and silent.
 */
import type { ServerWebSocket } from 'bun'

export interface SqldProxy {
  url: string
  port: number
  /** requests that ran SQL, since start (both protocols) */
  requests: number
  /** of them, those over HTTP */
  httpRequests: number
  /** streams opened, since start: HTTP requests without a baton (JSON), and `open_stream` requests on WebSockets */
  streams: number
  /** while true nothing is answered: HTTP requests hang, WebSocket messages are dropped */
  hang: boolean
  /** while true requests reach sqld but its answers are lost (an answer the network dropped): HTTP ones hang after */
  lose: boolean
  stop(): void
}

interface Link { upstream: WebSocket; queued: string[] }

export function sqldProxy(target: string): SqldProxy {
  const wsTarget = target.replace(/^http/, 'ws')
  const state: SqldProxy = {
    url: '', port: 0, requests: 0, httpRequests: 0, streams: 0, hang: false, lose: false,
    stop: () => server.stop(true),
  }
  const server = Bun.serve<Link, never>({
    hostname: '127.0.0.1', port: 0,
    async fetch(req, srv) {
      if (req.headers.get('upgrade')?.toLowerCase() === 'websocket') {
        const offered = (req.headers.get('sec-websocket-protocol') ?? '').split(',').map((s) => s.trim())
        if (!offered.includes('hrana3')) return new Response('hrana3 only', { status: 400 })
        const upstream = new WebSocket(wsTarget, ['hrana3'])
        const link: Link = { upstream, queued: [] }
        if (srv.upgrade(req, { data: link, headers: { 'Sec-WebSocket-Protocol': 'hrana3' } })) return undefined
        upstream.close()
        return new Response('upgrade failed', { status: 400 })
      }
      if (state.hang) return new Promise<Response>(() => {})
      const url = new URL(req.url)
      const body = req.method === 'POST' ? await req.arrayBuffer() : undefined
      if (req.method === 'POST' && /pipeline|cursor/.test(url.pathname)) {
        state.requests++
        state.httpRequests++
        if (!url.pathname.includes('protobuf') && (JSON.parse(new TextDecoder().decode(body)) as { baton?: string | null }).baton == null) state.streams++
      }
      const lost = state.lose
      const res = await fetch(`${target}${url.pathname}${url.search}`, {
        method: req.method, headers: { 'content-type': req.headers.get('content-type') ?? 'application/json' }, body,
      })
      if (lost) return new Promise<Response>(() => {})
      return new Response(await res.arrayBuffer(), { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } })
    },
    websocket: {
      open(ws: ServerWebSocket<Link>) {
        const { upstream } = ws.data
        upstream.onopen = () => {
          for (const m of ws.data.queued.splice(0)) upstream.send(m)
        }
        upstream.onmessage = (e) => {
          if (!state.hang && !state.lose) ws.send(String(e.data))
        }
        upstream.onclose = () => ws.close()
        upstream.onerror = () => ws.close()
      },
      message(ws: ServerWebSocket<Link>, message: string | Buffer) {
        if (state.hang) return
        const text = String(message)
        const req = (JSON.parse(text) as { type?: string; request?: { type?: string } })
        if (req.type === 'request' && (req.request?.type === 'execute' || req.request?.type === 'batch')) state.requests++
        if (req.type === 'request' && req.request?.type === 'open_stream') state.streams++
        if (ws.data.upstream.readyState === WebSocket.OPEN) ws.data.upstream.send(text)
        else ws.data.queued.push(text)
      },
      close(ws: ServerWebSocket<Link>) {
        ws.data.upstream.close()
      },
    },
  })
  state.port = server.port!
  state.url = `http://127.0.0.1:${server.port}`
  return state
}
