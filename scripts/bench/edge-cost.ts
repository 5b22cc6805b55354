/**
 * What an edge pays for its replica (issue 40): wallet creation on (a) one process on a file, (b) one
 * process on a sqld primary and (c) one edge on an embedded replica of another sqld, in alternating
 * rounds (wrk, BENCH_CONNECTIONS 32, BENCH_SECONDS 5, BENCH_ROUNDS 3). Per topology: the rate, the ratio
 * (b)/(a) and (c)/(a) of each round, CPU ms per wallet of the API process and of its sqld (all threads,
 * from /proc), and for the edge its pulls (count, frames, ms on the event loop, from /metrics).
 *
 * EDGE_VARIANTS (a JSON list of environments) runs one edge per entry, each on a sqld of its own: by default
 * the synchronous pull (DATABASE_SYNC_MAX_BEHIND=0, the default) beside a pull off the event loop bounded at 256.
 *
 *   bun scripts/bench/edge-cost.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSqld, type Sqld } from '../../tests/helpers/sqld'
import { benchUser, cpuMs, load, median, requireWrk, spawnServer, sqldPid, type Server } from './lib'

requireWrk()
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CONNS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const VARIANTS = JSON.parse(process.env.EDGE_VARIANTS ?? '[{"DATABASE_SYNC_MAX_BEHIND":"0"},{"DATABASE_SYNC_MAX_BEHIND":"256"}]') as Array<Record<string, string>>
const dir = mkdtempSync(join(tmpdir(), 'slipway-edge-cost-'))
const SHARED = {
  JWT_SECRET: 'bench-edge-jwt-secret-0123456789abcdef', MASTER_KEY: Buffer.alloc(32, 17).toString('base64'),
  LOG_LEVEL: 'warn', METRICS_TOKEN: 'bench-metrics-token-0123', BOOTSTRAP_ADMIN_USERNAME: 'bench', BOOTSTRAP_ADMIN_PASSWORD: 'Bench-passw0rd',
}
const procs: Server[] = []
const sqlds: Sqld[] = []

async function setup(url: string, name: string) {
  const { U } = await benchUser(url, name)
  return { 'content-type': 'application/json', ...U }
}

/** The edge's pull counters from /metrics (absent on a process that is not an edge, or before they existed). */
async function pulls(url: string) {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer bench-metrics-token-0123' } })).text()
  const v = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN)
  return { pulls: v('slipway_replica_pulls_total'), frames: v('slipway_replica_frames_pulled_total'), ms: v('slipway_replica_pull_seconds_total') * 1000 }
}

try {
  const sqldB = await startSqld()
  sqlds.push(sqldB)
  const a = await spawnServer(['src/index.ts'], { ...SHARED, DATABASE_URL: `file:${join(dir, 'a', 'slipway.db')}` })
  procs.push(a)
  const b = await spawnServer(['src/index.ts'], { ...SHARED, DATABASE_URL: sqldB.url, DATA_DIR: join(dir, 'b'), SLIPWAY_ROLE: 'api' })
  procs.push(b)
  const tops = [
    { name: '(a) file', s: a, h: await setup(a.url, 'ta'), db: undefined as number | undefined },
    { name: '(b) remote', s: b, h: await setup(b.url, 'tb'), db: sqldPid(sqldB.port) },
  ]
  for (const [i, env] of VARIANTS.entries()) {
    const sqldC = await startSqld()
    sqlds.push(sqldC)
    // REPLICA_DIR (not passed on): where the replica's file goes, e.g. /dev/shm (a file system in memory: no fsync reaches a disk)
    const { REPLICA_DIR, ...rest } = env
    const edgeDir = REPLICA_DIR ? mkdtempSync(join(REPLICA_DIR, 'slipway-edge-cost-')) : join(dir, `edge${i}`)
    if (REPLICA_DIR) process.on('exit', () => rmSync(edgeDir, { recursive: true, force: true }))
    const c = await spawnServer(['src/index.ts'], { ...SHARED, DATABASE_URL: `file:${join(edgeDir, 'replica.db')}`, DATABASE_SYNC_URL: sqldC.url, DATA_DIR: edgeDir, SLIPWAY_ROLE: 'api', ...rest })
    procs.push(c)
    const label = Object.entries(env).map(([k, v]) => `${k.replace(/^DATABASE_(SYNC_)?/, '')}=${v}`).join(' ') || 'default'
    tops.push({ name: `(c) ${label}`, s: c, h: await setup(c.url, `tc${i}`), db: sqldPid(sqldC.port) })
  }
  const body = JSON.stringify({ chain: 'ethereum', isTestnet: true })
  for (const t of tops) await load('warm', t.s.url + '/v1/wallets/', { method: 'POST', body, headers: t.h, connections: CONNS, seconds: 2 })
  const rows = new Map<string, Array<{ rps: number; app: number; db: number; p99: number; non2xx: number; pull?: Awaited<ReturnType<typeof pulls>> }>>()
  for (let k = 0; k < ROUNDS; k++) {
    for (const t of tops) {
      const app0 = (await cpuMs(t.s.proc.pid)) ?? 0
      const db0 = t.db ? (await cpuMs(t.db)) ?? 0 : 0
      const p0 = t.db && t.name.startsWith('(c)') ? await pulls(t.s.url) : undefined
      const r = await load(t.name, t.s.url + '/v1/wallets/', { method: 'POST', body, headers: t.h, connections: CONNS, seconds: SECONDS })
      const app1 = (await cpuMs(t.s.proc.pid)) ?? 0
      const db1 = t.db ? (await cpuMs(t.db)) ?? 0 : 0
      const p1 = p0 ? await pulls(t.s.url) : undefined
      const n = r.rps * SECONDS
      const pull = p0 && p1 ? { pulls: p1.pulls - p0.pulls, frames: p1.frames - p0.frames, ms: p1.ms - p0.ms } : undefined
      rows.set(t.name, [...(rows.get(t.name) ?? []), { rps: r.rps, app: (app1 - app0) / n, db: (db1 - db0) / n, p99: r.p99, non2xx: r.non2xx + r.errors, pull }])
      console.log(`round ${k + 1} ${t.name.padEnd(18)} ${r.rps.toFixed(0).padStart(6)}/s  app ${((app1 - app0) / n).toFixed(3)} + sqld ${((db1 - db0) / n).toFixed(3)} ms/wallet  p99 ${r.p99.toFixed(0)}` +
        (pull ? `  pulls ${pull.pulls}, ${(pull.frames / n).toFixed(2)} frames/wallet, ${(n / Math.max(1, pull.pulls)).toFixed(1)} wallets/pull, ${(pull.ms / pull.pulls).toFixed(2)} ms/pull, ${(pull.ms / (SECONDS * 10)).toFixed(1)}% of wall` : ''))
    }
  }
  const A = rows.get('(a) file')!
  for (const [name, rs] of rows) {
    const ratios = rs.map((r, i) => r.rps / A[i]!.rps)
    console.log(`${name.padEnd(18)} median ${median(rs.map((r) => r.rps)).toFixed(0)}/s; of (a) per round ${ratios.map((x) => (x * 100).toFixed(0) + '%').join(' ')}; ` +
      `CPU app ${median(rs.map((r) => r.app)).toFixed(3)} + sqld ${median(rs.map((r) => r.db)).toFixed(3)} ms/wallet; non-2xx ${rs.reduce((n, r) => n + r.non2xx, 0)}`)
  }
} finally {
  for (const p of procs) p.proc.kill()
  for (const s of sqlds) await s.stop().catch(() => undefined)
  rmSync(dir, { recursive: true, force: true })
}
