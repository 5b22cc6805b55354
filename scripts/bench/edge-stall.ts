/**
 * Diagnosis (issue 40, the edges' stall): 3 edges on embedded replicas of one sqld, wallet creation in
 * phases of STALL_SECONDS, and after each phase what sqld spent: its CPU per answered request, per thread,
 * the files of its data folder, and the edges' replicas; then, each second for STALL_WATCH seconds, sqld's
 * CPU with no load. sqld runs with Slipway's flags (SQLD_FLAGS, tests/helpers/sqld.ts) unless STALL_UNFIXED
 * is set, plus STALL_SQLD_ARGS (default `--max-log-size 20`: its replication log compacted every 20 MB, so
 * a burst of a few minutes does what a long one does at the default 200 MB). Its log goes to sqld.log in
 * the folder printed first (kept; STALL_RUST_LOG sets RUST_LOG, e.g.
 * `info,libsql_server::connection::connection_manager=debug` for the write lock's queue).
 *
 *   STALL_UNFIXED=1 STALL_PHASES=8 bun scripts/bench/edge-stall.ts   # the stall (docs/benchmarks.md)
 *   STALL_PHASES=8 bun scripts/bench/edge-stall.ts                   # with --checkpoint-interval-s
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, openSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQLD_FLAGS, sqldBinary } from '../../tests/helpers/sqld'
import { cpuMs, freePort, load, spawnServer, type Server } from './lib'

const PHASES = Number(process.env.STALL_PHASES ?? 8)
const SECONDS = Number(process.env.STALL_SECONDS ?? 5)
const CONNS = Number(process.env.STALL_CONNECTIONS ?? 32)
const EDGES = Number(process.env.STALL_EDGES ?? 3)
const SQLD_ARGS = [...(process.env.STALL_UNFIXED ? [] : SQLD_FLAGS), ...(process.env.STALL_SQLD_ARGS ?? '--max-log-size 20').split(' ').filter(Boolean)]
const dir = mkdtempSync(join(tmpdir(), 'slipway-stall-'))
console.log(`folder ${dir}; sqld ${SQLD_ARGS.join(' ') || '(defaults)'}`)
const port = freePort()
const sqldUrl = `http://127.0.0.1:${port}`
const log = openSync(join(dir, 'sqld.log'), 'w')
const sqld = Bun.spawn([sqldBinary(), '--db-path', join(dir, 'primary.sqld'), '--http-listen-addr', `127.0.0.1:${port}`, '--no-welcome', '--disable-metrics', ...SQLD_ARGS], {
  cwd: dir, stdout: log, stderr: log, env: { ...process.env, RUST_LOG: process.env.STALL_RUST_LOG ?? 'info' },
})
for (let i = 0; i < 200; i++) {
  try { if ((await fetch(`${sqldUrl}/health`)).ok) break } catch { /* starting */ }
  await Bun.sleep(25)
}
const SHARED = {
  JWT_SECRET: 'bench-scale-jwt-secret-0123456789abcdef', MASTER_KEY: Buffer.alloc(32, 17).toString('base64'),
  LOG_LEVEL: 'warn', BOOTSTRAP_ADMIN_USERNAME: 'bench', BOOTSTRAP_ADMIN_PASSWORD: 'Bench-passw0rd', ...JSON.parse(process.env.STALL_ENV ?? '{}'),
}
const edges: Server[] = []
try {
  for (let i = 0; i < EDGES; i++) {
    const edgeDir = join(dir, `edge${i}`)
    edges.push(await spawnServer(['src/index.ts'], { ...SHARED, DATABASE_URL: `file:${join(edgeDir, 'replica.db')}`, DATABASE_SYNC_URL: sqldUrl, DATA_DIR: edgeDir, SLIPWAY_ROLE: 'api' }))
  }
  const url = edges[0]!.url
  const call = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
    const out = await res.json() as any
    if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(out).slice(0, 300)}`)
    return out
  }
  const admin = await call('/v1/auth/admin/login', { username: 'bench', password: 'Bench-passw0rd' })
  const tenant = await call('/v1/admin/tenants', { name: 'stall' }, { authorization: `Bearer ${admin.accessToken}` })
  const { createHash, createHmac } = await import('node:crypto')
  const text = JSON.stringify({ username: 'stall_user', email: 'stall@example.com', password: 'Bench-passw0rd' })
  const ts = String(Math.floor(Date.now() / 1000))
  const sig = createHmac('sha256', tenant.apiSecret).update(`POST\n/v1/auth/register\n${ts}\n${createHash('sha256').update(text).digest('hex')}`).digest('hex')
  const signedHeaders = { 'content-type': 'application/json', 'x-tenant-api-key': tenant.apiKey, 'x-timestamp': ts, 'x-signature': sig }
  const reg = await (await fetch(url + '/v1/auth/register', { method: 'POST', headers: signedHeaders, body: text })).json() as any
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${reg.accessToken}` }
  const body = JSON.stringify({ chain: 'ethereum', isTestnet: true })

  const threads = () => {
    const out = new Map<string, number>()
    for (const t of readdirSync(`/proc/${sqld.pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${sqld.pid}/task/${t}/stat`, 'utf8')
        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        const ms = (Number(f[11]) + Number(f[12])) * 10
        out.set(comm, (out.get(comm) ?? 0) + ms)
      } catch { /* gone */ }
    }
    return out
  }
  const files = () => {
    const out: string[] = []
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name)
        if (e.isDirectory()) walk(p)
        else out.push(`${p.slice(dir.length + 1)} ${(statSync(p).size / 1048576).toFixed(1)}M`)
      }
    }
    walk(join(dir, 'primary.sqld'))
    return out
  }
  const phases: Array<{ rps: number; max: number }> = []
  for (let k = 0; k < PHASES; k++) {
    const c0 = await cpuMs(sqld.pid)
    const t0 = threads()
    const e0 = await Promise.all(edges.map((e) => cpuMs(e.proc.pid)))
    const rs = await Promise.all(edges.map((e) => load('w', e.url + '/v1/wallets/', { method: 'POST', body, headers, connections: CONNS, seconds: SECONDS })))
    const c1 = await cpuMs(sqld.pid)
    const t1 = threads()
    const e1 = await Promise.all(edges.map((e) => cpuMs(e.proc.pid)))
    const n = rs.reduce((s, r) => s + r.rps * SECONDS, 0)
    phases.push({ rps: n / SECONDS, max: Math.max(...rs.map((r) => r.max ?? 0)) })
    const per = [...t1].map(([k2, v]) => [k2, v - (t0.get(k2) ?? 0)] as const).filter(([, v]) => v > 0).sort((x, y) => y[1] - x[1]).slice(0, 6)
    console.log(`phase ${k}: ${rs.map((r) => r.rps.toFixed(0)).join('+')} req/s, p99 ${Math.max(...rs.map((r) => r.p99)).toFixed(0)} max ${Math.max(...rs.map((r) => r.max ?? 0)).toFixed(0)} ms, ` +
      `non2xx ${rs.reduce((s, r) => s + r.non2xx, 0)}, sqld ${((c1! - c0!) / 1000).toFixed(1)} s CPU (${n ? ((c1! - c0!) / n).toFixed(2) : '-'} ms/req), ` +
      `edges ${e1.map((x, i) => ((x! - e0[i]!) / 1000).toFixed(1)).join('/')} s`)
    console.log(`  threads: ${per.map(([k2, v]) => `${k2} ${(v / 1000).toFixed(1)}s`).join(', ')}`)
    console.log(`  files: ${files().join(', ')}`)
    for (const e of edges) {
      const st = await (await fetch(e.url + '/health/ready')).json().catch(() => ({})) as any
      console.log(`  edge ${e.url}: ${JSON.stringify(st?.replica ?? st).slice(0, 200)}`)
    }
    // idle: what sqld does with no load
    const i0 = await cpuMs(sqld.pid)
    await Bun.sleep(2000)
    const i1 = await cpuMs(sqld.pid)
    console.log(`  idle 2 s after: sqld ${(i1! - i0!).toFixed(0)} ms CPU`)
  }
  const best = Math.max(...phases.map((p) => p.rps))
  const stalled = phases.filter((p) => p.rps < best / 5).length
  const timeout = Number(SHARED.DATABASE_TIMEOUT_MS ?? 5000)
  console.log(`phases under a fifth of the best phase's rate (${best.toFixed(0)} req/s): ${stalled} of ${phases.length}; ` +
    `slowest answer ${Math.max(...phases.map((p) => p.max)).toFixed(0)} ms (DATABASE_TIMEOUT_MS ${timeout})`)
  // after the load: each second, sqld's CPU and the edges' state
  for (let s = 0; s < Number(process.env.STALL_WATCH ?? 20); s++) {
    const c0 = await cpuMs(sqld.pid)
    const t0 = performance.now()
    const health = await Promise.all(edges.map(async (e) => {
      const h0 = performance.now()
      const st = await (await fetch(e.url + '/health/ready', { signal: AbortSignal.timeout(3000) })).json().catch(() => ({})) as any
      return `${st?.replica?.state ?? '?'} lag ${st?.replica?.lagMs ?? '?'} frame ${st?.replica?.frameNo ?? '?'} (${(performance.now() - h0).toFixed(0)} ms)`
    }))
    await Bun.sleep(Math.max(0, 1000 - (performance.now() - t0)))
    const c1 = await cpuMs(sqld.pid)
    console.log(`watch ${s}: sqld ${(((c1! - c0!) / (performance.now() - t0)) * 100).toFixed(0)}% CPU; ${health.join('; ')}`)
  }
} finally {
  for (const e of edges) e.proc.kill()
  sqld.kill()
}
