/**
 * Write scaling benchmark (issue 40): Slipway's write rate in each topology, in one run, against
 * topology (a) and against raw sqld doing the same statements the same way.
 *
 * - (a) one process on a local file;
 * - (b) one process on a remote primary (sqld over HTTP on 127.0.0.1);
 * - (c) 1 and 3 API processes on embedded replicas of one sqld (the 3 edges loaded at once);
 * - raw sqld: scripts/bench/servers/raw-sqld.ts replays, per request, what a topology (b) process
 *   sent to sqld for one request of the scenario (recorded through a proxy), same round trips.
 *
 * Two scenarios: wallet creation (`POST /v1/wallets/`, bearer: a key generated, sealed and stored)
 * and an agent-payment execution (`POST /v1/agent-payments/executions` judged `requires_approval`,
 * as scripts/bench/agent-payments.ts). wrk, 1 thread and BENCH_CONNECTIONS (32) connections per
 * process, BENCH_SECONDS (5) each, BENCH_ROUNDS (2) rounds with the topologies alternating; each
 * figure is the median of its rounds. Targets: (b) and (c) >= 50% of (a); >= 80% of raw sqld.
 * Then the 3-edge check: 3 edges x 32 connections, the write rate against the 1-edge rate, 503s
 * (with retry-after) counted and the slowest answer against DATABASE_TIMEOUT_MS.
 *
 *   bun scripts/bench/scale.ts
 *
 * The machine is shared: figures move between runs; the ratios, taken within one run, are what to read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSqld, type Sqld } from '../../tests/helpers/sqld'
import { benchPayer, cpuMs, freePort, load, median, requireWrk, spawnServer, sqldPid, type Result, type Server } from './lib'
import type { Item, RecordedStmt, Recording, Round } from './servers/raw-sqld'

requireWrk()
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2))
/** BENCH_SCALE_SCENARIOS=execution (or wallet) measures one scenario only (both are still recorded for the raw replay) */
const SCENARIO_NAMES = (process.env.BENCH_SCALE_SCENARIOS ?? 'wallet,execution').split(',').map((x) => x.trim()).filter(Boolean)
const MEASURED = SCENARIO_NAMES.filter((x): x is 'wallet' | 'execution' => x === 'wallet' || x === 'execution')
// a name it does not know would measure nothing and still print its targets as met
if (!MEASURED.length || MEASURED.length !== SCENARIO_NAMES.length) {
  throw new Error(`BENCH_SCALE_SCENARIOS: 'wallet', 'execution' or both, comma-separated (got '${process.env.BENCH_SCALE_SCENARIOS}')`)
}
const CONNS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const TIMEOUT_MS = Number(process.env.DATABASE_TIMEOUT_MS ?? 5000)
const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-scale-'))
const ADMIN = { BOOTSTRAP_ADMIN_USERNAME: 'bench', BOOTSTRAP_ADMIN_PASSWORD: 'Bench-passw0rd' }
const SHARED = {
  JWT_SECRET: 'bench-scale-jwt-secret-0123456789abcdef', MASTER_KEY: Buffer.alloc(32, 17).toString('base64'),
  LOG_LEVEL: 'warn', DATABASE_TIMEOUT_MS: String(TIMEOUT_MS), ...ADMIN,
}
const procs: Server[] = []
const sqlds: Sqld[] = []
const spawn = async (env: Record<string, string>) => {
  const s = await spawnServer(['src/index.ts'], { ...SHARED, ...env })
  procs.push(s)
  return s
}

interface Target { url: string; path: string; body: string; headers: Record<string, string> }
type Scenario = 'wallet' | 'execution'

/** A tenant, a user with a token (wallets), and a tenant admin with an agent allowed to pay (executions), made through `url`. */
async function setup(url: string, name: string): Promise<Record<Scenario, Omit<Target, 'url'>>> {
  const { call, U, J, wallet, user } = await benchPayer(url, name)
  const base = '/v1/agent-payments'
  const policy = await call(`${base}/policies`, { name: 'bench', currency: 'USDC', limits: [{ interval: 'daily', amount: '1000000000000' }], approvalMode: 'always' }, J)
  const merchant = await call(`${base}/merchants`, { name: 'shop', category: 'travel', payTo: { network: 'sepolia', address: '0x' + '5a'.repeat(20) } }, J)
  const agent = await call(`${base}/agents`, { name: 'booker', walletId: wallet.id, policyId: policy.id }, J)
  await call(`${base}/agents/${agent.id}/wallet-consent`, {}, U)
  const json = { 'content-type': 'application/json' }
  return {
    wallet: { path: '/v1/wallets/', body: JSON.stringify({ chain: 'ethereum', isTestnet: true }), headers: { ...json, ...U } },
    execution: {
      path: `${base}/executions`,
      body: JSON.stringify({ agentId: agent.id, merchantId: merchant.id, amount: '1.5', currency: 'USDC', rail: 'onchain', description: 'bench' }),
      headers: { ...json, ...J },
    },
  }
}

/** wrk against every target at once (one wrk each); the rates summed, the worst p99 and max, the non-2xx summed. */
async function loadAll(name: string, targets: Target[], connections = CONNS): Promise<Result> {
  const rs = await Promise.all(targets.map((t) => load(name, t.url + t.path, { method: 'POST', body: t.body, headers: t.headers, connections, seconds: SECONDS })))
  return {
    name, rps: rs.reduce((n, r) => n + r.rps, 0), p50: Math.max(...rs.map((r) => r.p50)), p99: Math.max(...rs.map((r) => r.p99)),
    max: Math.max(...rs.map((r) => r.max ?? 0)), errors: rs.reduce((n, r) => n + r.errors, 0), non2xx: rs.reduce((n, r) => n + r.non2xx, 0),
  }
}

/** CPU time (ms, all threads) of the processes, summed. */
const cpuOf = async (pids: number[]) => (await Promise.all(pids.map((p) => cpuMs(p)))).reduce<number>((n, c) => n + (c ?? 0), 0)

/** A proxy in front of sqld that makes the client speak JSON Hrana and records what it sends while `on`. */
function recorder(upstream: string) {
  const seen = new Set<string>()
  const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|0x[0-9a-fA-F]{40}/g
  const note = (text: string) => { for (const m of text.matchAll(ID)) seen.add(m[0].toLowerCase()) }
  let log: Array<{ path: string; body: any; baton: string | null }> | null = null
  // requests on held WebSocket streams (src/db/held-streams.ts), relayed as JSON (hrana3): each replayed on a held stream too
  let wsLog: Array<{ type: string; stmt?: any; batch?: any }> | null = null
  const port = freePort()
  type Link = { upstream: WebSocket; queued: string[] }
  const server = Bun.serve<Link, never>({
    hostname: '127.0.0.1', port,
    async fetch(req, srv) {
      if (req.headers.get('upgrade')?.toLowerCase() === 'websocket') {
        const upstreamWs = new WebSocket(upstream.replace(/^http/, 'ws'), ['hrana3'])
        if (srv.upgrade(req, { data: { upstream: upstreamWs, queued: [] }, headers: { 'Sec-WebSocket-Protocol': 'hrana3' } })) return undefined
        return new Response('upgrade failed', { status: 400 })
      }
      const path = new URL(req.url).pathname
      if (path.startsWith('/v3-protobuf')) return new Response('not here', { status: 404 })
      const body = req.method === 'POST' ? await req.text() : undefined
      const res = await fetch(upstream + path, { method: req.method, headers: { 'content-type': 'application/json' }, body })
      const text = await res.text()
      if (log && body) log.push({ path, body: JSON.parse(body), baton: (JSON.parse(text.split('\n')[0]!) as { baton: string | null }).baton })
      else {
        if (body) note(body)
        note(text)
      }
      return new Response(text, { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } })
    },
    websocket: {
      open(ws) {
        const up = ws.data.upstream
        up.onopen = () => { for (const m of ws.data.queued.splice(0)) up.send(m) }
        up.onmessage = (e) => {
          if (!wsLog) note(String(e.data))
          ws.send(String(e.data))
        }
        up.onclose = () => ws.close()
      },
      message(ws, message) {
        const text = String(message)
        const msg = JSON.parse(text) as { type?: string; request?: { type: string; stmt?: any; batch?: any } }
        if (wsLog && msg.type === 'request' && (msg.request?.type === 'execute' || msg.request?.type === 'batch')) wsLog.push(msg.request)
        else note(text)
        if (ws.data.upstream.readyState === WebSocket.OPEN) ws.data.upstream.send(text)
        else ws.data.queued.push(text)
      },
      close(ws) {
        ws.data.upstream.close()
      },
    },
  })
  return {
    url: `http://127.0.0.1:${port}`,
    start: () => {
      log = []
      wsLog = []
    },
    /** The recorded round trips as streams (a baton chains a stream's requests); ids seen before the recording are kept. */
    stop(): { streams: Round[][]; known: string[] } {
      const streams: Array<{ rounds: Round[]; baton: string | null; sqls: Map<number, string>; held?: boolean }> = []
      type Wire = { sql?: string; sql_id?: number; args?: any[] }
      const stmt0 = (x: Wire): RecordedStmt => ({ sql: x.sql!, args: (x.args ?? []).map((a) => ({ type: a.type, value: a.value, base64: a.base64 })) })
      const steps0 = (batch: { steps: Array<{ stmt: Wire }> }) => batch.steps.map((x) => stmt0(x.stmt)).filter((x) => !/^\s*ROLLBACK\b/i.test(x.sql))
      for (const r of log ?? []) {
        let stream = r.body.baton ? streams.find((s) => s.baton === r.body.baton) : undefined
        // a baton from before the recording: a stream held open across requests (src/db/held-streams.ts)
        if (!stream) streams.push(stream = { rounds: [], baton: null, sqls: new Map(), held: !!r.body.baton })
        stream.baton = r.baton
        const sqls = stream.sqls
        const stmt = (s: Wire): RecordedStmt => ({ sql: s.sql ?? sqls.get(s.sql_id!)!, args: (s.args ?? []).map((a) => ({ type: a.type, value: a.value, base64: a.base64 })) })
        // a batch's steps but its ROLLBACK (run only when a step failed)
        const steps = (batch: { steps: Array<{ stmt: Wire }> }) => batch.steps.map((x) => stmt(x.stmt)).filter((x) => !/^\s*ROLLBACK\b/i.test(x.sql))
        const cursor = r.path.endsWith('/cursor')
        const reqs = (cursor ? [{ type: 'batch', batch: r.body.batch }] : r.body.requests) as Array<{ type: string; stmt?: Wire; batch?: any; sql_id?: number; sql?: string }>
        const items: Item[] = []
        for (const q of reqs) {
          if (q.type === 'store_sql') sqls.set(q.sql_id!, q.sql!)
          else if (q.type === 'execute') items.push({ type: 'execute', stmt: stmt(q.stmt!) })
          else if (q.type === 'batch') items.push({ type: 'batch', steps: steps(q.batch) })
        }
        if (items.length) stream.rounds.push({ cursor, items, held: stream.held })
      }
      type WsStep = { stmt: Wire }
      for (const q of wsLog ?? []) {
        const items: Item[] = q.type === 'execute' ? [{ type: 'execute', stmt: stmt0(q.stmt) }] : [{ type: 'batch', steps: steps0(q.batch as { steps: WsStep[] }) }]
        streams.push({ rounds: [{ cursor: false, held: true, items }], baton: null, sqls: new Map() })
      }
      log = null
      wsLog = null
      return { streams: streams.map((s) => s.rounds).filter((r) => r.length), known: [...seen] }
    },
    close: () => server.stop(true),
  }
}

try {
  // Raw sqld: record what a topology (b) process sends for one request of each scenario
  const recSqld = await startSqld()
  sqlds.push(recSqld)
  const proxy = recorder(recSqld.url)
  const recorded = await spawn({ DATABASE_URL: proxy.url, DATA_DIR: join(dir, 'rec'), SLIPWAY_ROLE: 'api' })
  const recTargets = await setup(recorded.url, 'rec')
  const recording: Recording = {}
  const known: string[] = []
  for (const s of ['wallet', 'execution'] as const) {
    await Bun.sleep(200)
    proxy.start()
    const res = await fetch(recorded.url + recTargets[s].path, { method: 'POST', body: recTargets[s].body, headers: recTargets[s].headers })
    await res.arrayBuffer()
    const r = proxy.stop()
    recording[s] = r.streams
    known.push(...r.known)
    const n = r.streams.flat().flatMap((x) => x.items).reduce((k, x) => k + (x.type === 'execute' ? 1 : x.steps.length), 0)
    console.log(`recorded ${s} (${res.status}): ${r.streams.length} streams, ${r.streams.flat().length} round trips, ${n} statements (BEGIN and COMMIT included)`)
  }
  recorded.proc.kill()
  // the recording proxy's server would keep this script running after its report
  proxy.close()
  const recFile = join(dir, 'recording.json')
  writeFileSync(recFile, JSON.stringify(recording))
  const raw = await spawnServer(['scripts/bench/servers/raw-sqld.ts'], { RAW_SQLD_URL: recSqld.url, RAW_RECORDING: recFile, RAW_KNOWN: JSON.stringify([...new Set(known)]) })
  procs.push(raw)
  for (const s of ['wallet', 'execution']) {
    const res = await fetch(`${raw.url}/${s}`, { method: 'POST', body: '{}' })
    if (res.status !== 201) throw new Error(`the raw replay of ${s} answered ${res.status}: ${await res.text()}`)
  }
  if (process.env.BENCH_SCALE_RECORD_ONLY) throw new Error(`recorded: ${JSON.stringify(recording).slice(0, 4000)}`)

  // The topologies, each on a fresh database
  const a = await spawn({ DATABASE_URL: `file:${join(dir, 'a', 'slipway.db')}` })
  const sqldB = await startSqld()
  const sqldC = await startSqld()
  sqlds.push(sqldB, sqldC)
  const b = await spawn({ DATABASE_URL: sqldB.url, DATA_DIR: join(dir, 'b'), SLIPWAY_ROLE: 'api' })
  const edges: Server[] = []
  for (let i = 0; i < 3; i++) {
    const edgeDir = join(dir, `edge${i}`)
    edges.push(await spawn({ DATABASE_URL: `file:${join(edgeDir, 'replica.db')}`, DATABASE_SYNC_URL: sqldC.url, DATA_DIR: edgeDir, SLIPWAY_ROLE: 'api' }))
  }
  const ta = await setup(a.url, 'top_a')
  const tb = await setup(b.url, 'top_b')
  const tc = await setup(edges[0]!.url, 'top_c')

  // CPU time per answered request: the API processes (or the raw replayer) and the sqld they write to
  const pidsOf = (servers: Server[], sqld: Sqld | undefined) => ({ app: servers.map((x) => x.proc.pid), db: sqld ? [sqldPid(sqld.port)].filter((x): x is number => !!x) : [] })
  const topologies: Array<[string, (s: Scenario) => Target[], { app: number[]; db: number[] }]> = [
    ['raw sqld (same statements)', (s) => [{ url: raw.url, path: `/${s}`, body: '{}', headers: { 'content-type': 'application/json' } }], pidsOf([raw], recSqld)],
    ['(a) one process, file', (s) => [{ url: a.url, ...ta[s] }], pidsOf([a], undefined)],
    ['(b) remote primary', (s) => [{ url: b.url, ...tb[s] }], pidsOf([b], sqldB)],
    ['(c) 1 edge', (s) => [{ url: edges[0]!.url, ...tc[s] }], pidsOf([edges[0]!], sqldC)],
    ['(c) 3 edges', (s) => edges.map((e) => ({ url: e.url, ...tc[s] })), pidsOf(edges, sqldC)],
  ]
  const results = new Map<string, Result[]>()
  const cpu = new Map<string, { app: number; db: number; n: number }>()
  for (const s of MEASURED) {
    for (const [, targets] of topologies) await loadAll('warm-up', targets(s)).catch(() => undefined)
    for (let k = 0; k < ROUNDS; k++) {
      for (const [name, targets, pids] of topologies) {
        const key = `${s}|${name}`
        const [app0, db0] = [await cpuOf(pids.app), await cpuOf(pids.db)]
        const r = await loadAll(name, targets(s))
        const [app1, db1] = [await cpuOf(pids.app), await cpuOf(pids.db)]
        const c = cpu.get(key) ?? { app: 0, db: 0, n: 0 }
        cpu.set(key, { app: c.app + app1 - app0, db: c.db + db1 - db0, n: c.n + r.rps * SECONDS })
        results.set(key, [...(results.get(key) ?? []), r])
      }
    }
  }

  const med = (key: string) => {
    const rs = results.get(key)!
    return { rps: median(rs.map((r) => r.rps)), p99: median(rs.map((r) => r.p99)), max: Math.max(...rs.map((r) => r.max ?? 0)), non2xx: rs.reduce((n, r) => n + r.non2xx + r.errors, 0) }
  }
  let met = true
  const verdict = (ratio: number, target: number) => {
    const ok = ratio >= target
    if (!ok) met = false
    return `${(ratio * 100).toFixed(0)}% (target >= ${target * 100}%: ${ok ? 'met' : 'NOT met'})`
  }
  for (const s of MEASURED) {
    const title = s === 'wallet' ? 'wallet creation, POST /v1/wallets/' : 'agent-payment execution, POST /v1/agent-payments/executions'
    console.log(`\n${title} (${CONNS} connections per process, median of ${ROUNDS} rounds)`)
    console.log(`${'topology'.padEnd(30)}${'req/s'.padEnd(9)}${'p99 ms'.padEnd(9)}${'non-2xx'.padEnd(9)}${'CPU ms/req app+sqld'.padEnd(21)}${'of (a)'.padEnd(34)}of raw sqld`)
    const A = med(`${s}|(a) one process, file`).rps
    const R = med(`${s}|raw sqld (same statements)`).rps
    for (const [name] of topologies) {
      const m = med(`${s}|${name}`)
      const remote = name.startsWith('(b)') || name.startsWith('(c)')
      const ofA = remote ? verdict(m.rps / A, 0.5) : ''
      const c = cpu.get(`${s}|${name}`)!
      const perReq = c.n ? `${(c.app / c.n).toFixed(2)}+${(c.db / c.n).toFixed(2)}` : '-'
      console.log(`${name.padEnd(30)}${m.rps.toFixed(0).padEnd(9)}${m.p99.toFixed(0).padEnd(9)}${String(m.non2xx).padEnd(9)}${perReq.padEnd(21)}${ofA.padEnd(34)}${remote ? verdict(m.rps / R, 0.8) : ''}`)
    }
  }

  // the 3-edge check: 3 edges x 32 connections, writes, against the 1-edge rate of the same run
  if (MEASURED.includes('wallet')) {
    const one = med('wallet|(c) 1 edge')
    const three = med('wallet|(c) 3 edges')
    const holds = three.rps >= one.rps
    const inTime = three.max <= TIMEOUT_MS
    if (!holds || !inTime) met = false
    console.log(`\n3-edge check (wallet creation, 3 edges x ${CONNS} connections): ${three.rps.toFixed(0)} req/s against ${one.rps.toFixed(0)} on 1 edge (${holds ? 'held' : 'NOT held'}); ` +
      `${three.non2xx} non-2xx answers (503 with retry-after when past the bound); slowest answer ${three.max.toFixed(0)} ms against DATABASE_TIMEOUT_MS ${TIMEOUT_MS} (${inTime ? 'within' : 'PAST'})`)
  } else console.log('\n3-edge check: not run (BENCH_SCALE_SCENARIOS left out wallet creation)')
  console.log(`\nThe machine is shared: absolute figures are noisy; the ratios within this run are the result. Targets ${met ? 'all met' : 'NOT all met'}.`)
  if (!met) process.exitCode = 1
} finally {
  for (const p of procs) p.proc.kill()
  for (const s of sqlds) await s.stop().catch(() => undefined)
  rmSync(dir, { recursive: true, force: true })
}
