/**
 * CPU per agent-payment execution (issue 40), topology (a) (a file), (b) (a remote sqld) and with
 * EXEC_COST_EDGE=1 (c) (one edge on an embedded replica): the
 * API process's and sqld's CPU time (/proc/<pid>/stat, all threads) per answered request under
 * wrk, rounds alternating between the trees compared. Also prints what one execution sends sqld
 * (requests, statements, SQL text length), recorded through a proxy. On a shared machine req/s
 * moves with the load; CPU per request is the figure to compare.
 *
 *   bun scripts/bench/execution-cost.ts                      # this tree
 *   EXEC_COST_TREES=/tmp/base,. bun scripts/bench/execution-cost.ts   # a baseline copy against this tree
 *
 * EXEC_COST_SCENARIO=approval (default: the scale bench's, judged requires_approval), allow, deny
 * (judged a refusal: over the per-transaction limit) or replay (one idempotency key, answered as seen).
 * BENCH_SECONDS (5), BENCH_ROUNDS (2), BENCH_CONNECTIONS (16).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startSqld, type Sqld } from '../../tests/helpers/sqld'
import { benchPayer, cpuMs, freePort, load, spawnServer, sqldPid, type Server } from './lib'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const CONNS = Number(process.env.BENCH_CONNECTIONS ?? 16)
const SCENARIO = process.env.EXEC_COST_SCENARIO ?? 'approval'
/** EXEC_COST_EDGE=1: topology (c) too, one API process on an embedded replica of its own sqld */
const EDGE = !!process.env.EXEC_COST_EDGE
const TREES = (process.env.EXEC_COST_TREES ?? '.').split(',').map((t) => resolve(t))
const dir = mkdtempSync(join(tmpdir(), 'slipway-exec-cost-'))
const ENV = {
  JWT_SECRET: 'bench-scale-jwt-secret-0123456789abcdef', MASTER_KEY: Buffer.alloc(32, 17).toString('base64'),
  LOG_LEVEL: 'warn', BOOTSTRAP_ADMIN_USERNAME: 'bench', BOOTSTRAP_ADMIN_PASSWORD: 'Bench-passw0rd',
}
const procs: Server[] = []
const sqlds: Sqld[] = []

async function setup(url: string, name: string) {
  const { call, U, J, wallet, user } = await benchPayer(url, name)
  const base = '/v1/agent-payments'
  const limits = [{ interval: 'daily', amount: '1000000000000' }, ...(SCENARIO === 'deny' ? [{ interval: 'per_transaction', amount: '1' }] : [])]
  const policy = await call(`${base}/policies`, { name: 'bench', currency: 'USDC', limits, approvalMode: SCENARIO === 'approval' ? 'always' : 'auto' }, J)
  const merchant = await call(`${base}/merchants`, { name: 'shop', category: 'travel', payTo: { network: 'sepolia', address: '0x' + '5a'.repeat(20) } }, J)
  const agent = await call(`${base}/agents`, { name: 'booker', walletId: wallet.id, policyId: policy.id }, J)
  await call(`${base}/agents/${agent.id}/wallet-consent`, {}, U)
  const body = {
    agentId: agent.id, merchantId: merchant.id, amount: '1.5', currency: 'USDC', rail: 'onchain', description: 'bench',
    ...(SCENARIO === 'replay' ? { idempotencyKey: 'bench-replay' } : {}),
  }
  if (SCENARIO === 'replay') await call(`${base}/executions`, body, J)
  return { path: `${base}/executions`, body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...J } }
}

/** A proxy in front of sqld that counts what passes while on: requests, statements, SQL characters. */
function recorder(upstream: string) {
  let log: Array<{ path: string; body: any }> | null = null
  const server = Bun.serve({
    hostname: '127.0.0.1', port: freePort(),
    async fetch(req) {
      const path = new URL(req.url).pathname
      if (path.startsWith('/v3-protobuf')) return new Response('not here', { status: 404 })
      const body = req.method === 'POST' ? await req.text() : undefined
      const res = await fetch(upstream + path, { method: req.method, headers: { 'content-type': 'application/json' }, body })
      const text = await res.text()
      if (log && body) log.push({ path, body: JSON.parse(body) })
      return new Response(text, { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    start: () => { log = [] },
    stop() {
      const out = log ?? []
      log = null
      return out
    },
    close: () => server.stop(true),
  }
}

function describe(log: Array<{ path: string; body: any }>) {
  const lines: string[] = []
  let stmts = 0
  let chars = 0
  for (const r of log) {
    const reqs = r.path.endsWith('/cursor') ? [{ type: 'batch', batch: r.body.batch }] : r.body.requests as any[]
    const texts: string[] = []
    for (const q of reqs) {
      if (q.type === 'execute') texts.push(q.stmt.sql ?? `#${q.stmt.sql_id}`)
      else if (q.type === 'batch') for (const s of q.batch.steps) texts.push(s.stmt.sql ?? `#${s.stmt.sql_id}`)
      else if (q.type === 'store_sql') texts.push(`store_sql: ${q.sql}`)
    }
    stmts += texts.length
    chars += texts.reduce((n, t) => n + t.length, 0)
    lines.push(`  request ${r.path} (${texts.length} statements)`)
    for (const t of texts) lines.push(`    [${t.length}] ${t.replace(/\s+/g, ' ').slice(0, 230)}`)
  }
  return { text: lines.join('\n'), requests: log.length, stmts, chars }
}

try {
  const cpu = new Map<string, { app: number; db: number; n: number; non2xx: number }>()
  const tops: Array<{ key: string; app: Server; sqld?: Sqld; target: Awaited<ReturnType<typeof setup>> }> = []
  for (const [i, tree] of TREES.entries()) {
    // what one execution sends sqld, through the proxy
    const rec = await startSqld()
    sqlds.push(rec)
    const proxy = recorder(rec.url)
    const r = await spawnServer([process.execPath, join(tree, "src/index.ts")], { ...ENV, DATABASE_URL: proxy.url, DATA_DIR: join(dir, `rec${i}`), SLIPWAY_ROLE: 'api' })
    procs.push(r)
    const t = await setup(r.url, `rec${i}`)
    for (let k = 0; k < 2; k++) {
      await Bun.sleep(200)
      proxy.start()
      const res = await fetch(r.url + t.path, { method: 'POST', body: t.body, headers: t.headers })
      const answer = await res.text()
      const d = describe(proxy.stop())
      if (k === 1) console.log(`${tree} ${SCENARIO}: ${res.status} ${answer.slice(0, 80)}\n ${d.requests} requests, ${d.stmts} statements, ${d.chars} characters of SQL\n${d.text}\n`)
    }
    // a burst of concurrent executions: what each costs in requests and statements once grouped
    proxy.start()
    const one = async () => {
      const x = await fetch(r.url + t.path, { method: 'POST', body: t.body, headers: t.headers })
      await x.arrayBuffer()
      return x.status
    }
    const burst = await Promise.all(Array.from({ length: 32 }, one))
    const g = describe(proxy.stop())
    console.log(`${tree} ${SCENARIO}: 32 at once (${[...new Set(burst)].join(', ')}): ${g.requests} requests, ${g.stmts} statements, ${g.chars} characters of SQL\n`)
    if (process.env.EXEC_COST_SHOW) console.log(g.text)
    if (process.env.EXEC_COST_PROXY_LOAD) {
      // under wrk through the proxy: requests sqld gets per execution, by their first statement
      proxy.start()
      const sq = sqldPid(rec.port)!
      const c0 = (await cpuMs(sq))!
      const w = await load('proxied', r.url + t.path, { method: 'POST', body: t.body, headers: t.headers, connections: CONNS, seconds: SECONDS })
      const c1 = (await cpuMs(sq))!
      const log = proxy.stop()
      const kinds = new Map<string, number>()
      for (const x of log) {
        const d = describe([x])
        const first = d.text.split('\n')[1]?.replace(/^\s*\[\d+\] (store_sql: )?/, '').slice(0, 40) ?? ''
        const k = `${first} (${d.stmts > 20 ? '>20' : d.stmts} statements)`
        kinds.set(k, (kinds.get(k) ?? 0) + 1)
      }
      const n = w.rps * SECONDS
      console.log(`proxied load: ${n.toFixed(0)} executions, ${log.length} requests to sqld, sqld ${((c1 - c0) / n).toFixed(2)} ms each`)
      for (const [k, c] of [...kinds].sort((a, b) => b[1] - a[1])) console.log(`  ${String(c).padStart(6)} ${k}`)
    }
    r.proc.kill()
    proxy.close()

    const a = await spawnServer([process.execPath, join(tree, "src/index.ts")], { ...ENV, DATABASE_URL: `file:${join(dir, `a${i}`, 'slipway.db')}`, DATA_DIR: join(dir, `a${i}`) })
    procs.push(a)
    const sqldB = await startSqld()
    sqlds.push(sqldB)
    const b = await spawnServer([process.execPath, join(tree, "src/index.ts")], { ...ENV, DATABASE_URL: sqldB.url, DATA_DIR: join(dir, `b${i}`), SLIPWAY_ROLE: 'api' })
    procs.push(b)
    tops.push({ key: `${i} (a) ${tree}`, app: a, target: await setup(a.url, `a${i}`) })
    tops.push({ key: `${i} (b) ${tree}`, app: b, sqld: sqldB, target: await setup(b.url, `b${i}`) })
    if (EDGE) {
      const sqldC = await startSqld()
      sqlds.push(sqldC)
      const edgeDir = join(dir, `c${i}`)
      const c = await spawnServer([process.execPath, join(tree, 'src/index.ts')], {
        ...ENV, DATABASE_URL: `file:${join(edgeDir, 'replica.db')}`, DATABASE_SYNC_URL: sqldC.url, DATA_DIR: edgeDir, SLIPWAY_ROLE: 'api',
      })
      procs.push(c)
      tops.push({ key: `${i} (c) ${tree}`, app: c, sqld: sqldC, target: await setup(c.url, `c${i}`) })
    }
  }
  for (const t of tops) await load('warm-up', t.app.url + t.target.path, { method: 'POST', body: t.target.body, headers: t.target.headers, connections: CONNS, seconds: 2 })
  const order = ['(a)', '(b)', '(c)'].flatMap((top) => tops.filter((t) => t.key.includes(top)))
  for (let k = 0; k < ROUNDS; k++) {
    for (const t of (k % 2 ? [...order].reverse() : order)) {
      const pids = [t.app.proc.pid]
      const dbPid = t.sqld ? sqldPid(t.sqld.port) : undefined
      const [app0, db0] = [await cpuMs(pids[0]!), dbPid ? await cpuMs(dbPid) : 0]
      const r = await load(t.key, t.app.url + t.target.path, { method: 'POST', body: t.target.body, headers: t.target.headers, connections: CONNS, seconds: SECONDS })
      const [app1, db1] = [await cpuMs(pids[0]!), dbPid ? await cpuMs(dbPid) : 0]
      const c = cpu.get(t.key) ?? { app: 0, db: 0, n: 0, non2xx: 0 }
      cpu.set(t.key, { app: c.app + app1! - app0!, db: c.db + db1! - db0!, n: c.n + r.rps * SECONDS, non2xx: c.non2xx + r.non2xx + r.errors })
      const per = (ms: number) => (ms / (r.rps * SECONDS)).toFixed(2)
      console.log(`round ${k + 1} ${t.key}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99.toFixed(0)} ms, non-2xx ${r.non2xx + r.errors}, CPU ms/req app ${per(app1! - app0!)} sqld ${per(db1! - db0!)}`)
    }
  }
  const loadAvg = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
  console.log(`\n${SCENARIO}: CPU ms per execution, ${ROUNDS} rounds of ${SECONDS} s, ${CONNS} connections (load average ${loadAvg})`)
  for (const [key, c] of cpu) {
    const per = (ms: number) => (ms / c.n).toFixed(2)
    console.log(`${key.padEnd(50)} app ${per(c.app)} + sqld ${per(c.db)} = ${per(c.app + c.db)} (${c.n.toFixed(0)} requests, ${c.non2xx} non-2xx)`)
  }
} finally {
  for (const p of procs) p.proc.kill()
  for (const s of sqlds) await s.stop().catch(() => undefined)
  rmSync(dir, { recursive: true, force: true })
}
