/**
 * A preload for scripts/bench/health-tail.ts (`bun --preload scripts/bench/servers/answer-gaps.ts …`):
 * what the JavaScript thread did between two `/health` answers, measured in the server itself.
 *
 * Under load a server always has a request waiting, so the time between two answers is the
 * next request's own work (a few µs) unless something else ran on the thread first: a
 * collection's pause, the engine's sweeper, a timer. Wall time between answers would also count
 * the moments the thread was not running at all (another process on a shared machine), so each
 * gap is measured in the thread's own CPU time (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`): a gap
 * of 1 ms of CPU is 1 ms of this process's own work, however busy the machine is.
 *
 * It wraps `Bun.serve` (and `server.reload`): the `/health` route of `routes`, or with
 * ANSWER_GAPS_FETCH=1 the whole `fetch` (the bare servers). On SIGUSR2 it writes what it counted
 * since the last signal to ANSWER_GAPS_OUT as JSON and starts again.
 */
import { dlopen, FFIType, ptr } from 'bun:ffi'
import { writeFileSync } from 'node:fs'

const libc = dlopen('libc.so.6', { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } })
const CLOCK_THREAD_CPUTIME_ID = 3
const timespec = new BigInt64Array(2)
const at = ptr(timespec)
const threadMicros = () => {
  libc.symbols.clock_gettime(CLOCK_THREAD_CPUTIME_ID, at)
  return Number(timespec[0]) * 1e6 + Number(timespec[1]) / 1000
}

/** Gaps by their CPU time, in powers of two of µs (bucket b: [2^b, 2^(b+1)) µs): count, CPU and wall time. */
const BUCKETS = 24
let count = new Float64Array(BUCKETS)
let cpu = new Float64Array(BUCKETS)
let wall = new Float64Array(BUCKETS)
let answers = 0
let lastWall = 0
let lastCpu = 0

function answered() {
  const w = performance.now() * 1000
  const c = threadMicros()
  if (lastWall) {
    const dc = c - lastCpu
    const b = Math.min(BUCKETS - 1, Math.max(0, Math.floor(Math.log2(Math.max(1, dc)))))
    count[b]!++
    cpu[b]! += dc
    wall[b]! += w - lastWall
  }
  answers++
  lastWall = w
  lastCpu = c
}

process.on('SIGUSR2', () => {
  writeFileSync(process.env.ANSWER_GAPS_OUT!, JSON.stringify({ answers, count: [...count], cpu: [...cpu], wall: [...wall] }))
  count = new Float64Array(BUCKETS)
  cpu = new Float64Array(BUCKETS)
  wall = new Float64Array(BUCKETS)
  answers = 0
  lastWall = 0
})

type Handler = (request: Request, server: unknown) => unknown
const probed = (handler: Handler): Handler => (request, server) => {
  answered()
  return handler(request, server)
}
const withProbe = <T extends { routes?: Record<string, any>; fetch?: Handler }>(options: T): T => {
  const out = { ...options }
  const health = options.routes?.['/health']
  if (health?.GET) out.routes = { ...options.routes, '/health': { ...health, GET: probed(health.GET) } }
  if (process.env.ANSWER_GAPS_FETCH === '1' && options.fetch) out.fetch = probed(options.fetch)
  return out
}

const serve = Bun.serve
;(Bun as { serve: unknown }).serve = (options: Parameters<typeof serve>[0]) => {
  const server = serve(withProbe(options as never))
  const reload = server.reload.bind(server)
  ;(server as { reload: unknown }).reload = (next: Parameters<typeof reload>[0]) => reload(withProbe(next as never))
  return server
}
