/**
 * Signed registration against the raw argon2id rate, with where the CPU goes: the core bench's
 * registration group (core.ts) alone, each side's CPU per hash or registration split by thread
 * (/proc/<pid>/task/<tid>/stat: the JavaScript thread, Bun's pool threads that hash, and the rest:
 * the engine's collector and JIT threads), wrk's own CPU per registration (it runs on the same
 * cores), and the hash pipeline's occupancy (the pool threads' CPU over the run's wall time).
 * Not part of `npm run bench` (docs/benchmarks.md, "Signed registration").
 *
 *   bun scripts/bench/register.ts                 (BENCH_ROUNDS=3, BENCH_SECONDS=5, BENCH_WARM=2000)
 *   bun scripts/bench/register.ts DIR_A DIR_B     (A/B: Slipway from each source tree, alternating within each round)
 *   bun scripts/bench/register.ts . .::MIMALLOC_PURGE_DELAY=1000   (a tree with settings of its own: `::NAME=VALUE,NAME=VALUE`)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createHash, createHmac } from 'node:crypto'
import { load, median, requireWrk, SECONDS, spawnServer, type Result } from './lib'

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const WARM = Number(process.env.BENCH_WARM ?? 2000)
const trees = (process.argv.length > 2 ? process.argv.slice(2) : ['.']).map((arg) => {
  const [dir, settings] = arg.split('::')
  return { dir: resolve(dir!), label: arg, env: Object.fromEntries((settings ?? '').split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string])) }
})
requireWrk()

type Split = { js: number; pool: number; jit: number; gc: number; other: number; names?: Record<string, number> }
/** CPU time so far of each thread of `pid` grouped: the JS thread (the process's own id), Bun's pool, the rest (ms). */
function threadsMs(pid: number): Split {
  const split: Split = { js: 0, pool: 0, jit: 0, gc: 0, other: 0 }
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
    } catch {
      continue // ended meanwhile
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ms = (Number(f[11]) + Number(f[12])) * 10
    if (Number(tid) === pid) split.js += ms
    else if (comm.startsWith('Bun Pool')) split.pool += ms
    else if (comm.startsWith('JIT')) split.jit += ms
    else if (comm === 'HeapHelper' || comm.endsWith('ollector Thread')) split.gc += ms
    else {
      split.other += ms
      split.names = { ...split.names, [comm]: (split.names?.[comm] ?? 0) + ms }
    }
  }
  return split
}

type Run = { result: Result; split: Split; occupancy: number; names?: Record<string, unknown> }
/** A load on `pid` with its CPU split per request (µs) and the pool's occupancy (its CPU over two cores' wall time). */
async function measured(pid: number, run: () => Promise<Result>): Promise<Run> {
  const a = threadsMs(pid)
  const t0 = performance.now()
  const result = await run()
  const wall = performance.now() - t0
  const b = threadsMs(pid)
  const n = result.requests ?? (result.rps * wall) / 1000
  const per = (k: Exclude<keyof Split, 'names'>) => ((b[k] - a[k]) * 1000) / n
  const names = Object.fromEntries(Object.entries(b.names ?? {}).map(([k, v]) => [k, Math.round(((v - (a.names?.[k] ?? 0)) * 1000) / n)]).filter(([, v]) => (v as number) > 0))
  return { result, names, split: { js: per('js'), pool: per('pool'), jit: per('jit'), gc: per('gc'), other: per('other') }, occupancy: (b.pool - a.pool) / (2 * wall) }
}

/** The raw baseline (servers/argon2-rate.ts), its CPU split the same way, sampled just before it ends. */
async function raw(): Promise<Run> {
  const proc = Bun.spawn([process.execPath, 'scripts/bench/servers/argon2-rate.ts'], { stdout: 'pipe', stderr: 'inherit', env: { ...process.env, BENCH_SECONDS: String(SECONDS) } })
  await Bun.sleep(150) // started, the addon loaded
  const a = threadsMs(proc.pid)
  const t0 = performance.now()
  let b = a
  let t1 = t0
  const sampler = (async () => {
    for (;;) {
      await Bun.sleep(50)
      try {
        // a process that is ending loses its threads one by one: a sample in which a group's time went down is not one
        const next = threadsMs(proc.pid)
        if (next.pool < b.pool || next.js < b.js || next.other < b.other) return
        b = next
        t1 = performance.now()
      } catch {
        return
      }
    }
  })()
  const { rate, cpuUsPerHash } = JSON.parse(await new Response(proc.stdout).text()) as { rate: number; cpuUsPerHash: number }
  await proc.exited
  await sampler
  const n = rate * (t1 - t0) / 1000
  const per = (k: Exclude<keyof Split, 'names'>) => ((b[k] - a[k]) * 1000) / n
  const result = { name: 'raw argon2id, 16 in flight', rps: rate, p50: NaN, p99: NaN, errors: 0, non2xx: 0, cpuUs: cpuUsPerHash }
  const split = { js: per('js'), pool: per('pool'), jit: per('jit'), gc: per('gc'), other: per('other') }
  return { result, split, occupancy: (b.pool - a.pool) / (2 * (t1 - t0)) }
}

const env = {
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
  MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
  BOOTSTRAP_ADMIN_USERNAME: 'bench',
  BOOTSTRAP_ADMIN_PASSWORD: 'Bench-passw0rd',
  TRUSTED_PROXIES: '127.0.0.1',
}
const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-reg-'))
const servers = await Promise.all(trees.map(async ({ dir: tree, label, env: own }, i) => {
  const server = await spawnServer([process.execPath, join(tree, 'src/index.ts')], { ...env, ...own, DATABASE_URL: `file:${join(dir, `bench${i}.db`)}` })
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
    (await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })).json() as Promise<any>
  const admin = await post('/v1/auth/admin/login', { username: 'bench', password: 'Bench-passw0rd' })
  const tenant = await post('/v1/admin/tenants', { name: 'bench' }, { authorization: `Bearer ${admin.accessToken}` })
  // Every signed request needs its own signature; each run poses as clients of its own block of addresses
  const registrationsOf = (prefix: string, block: number, n: number) => Array.from({ length: n }, (_, k) => {
    const body = JSON.stringify({ username: `bench_${prefix}${k}`, email: `${prefix}${k}@example.com`, password: 'Bench-passw0rd' })
    const ts = String(Math.floor(Date.now() / 1000))
    const hash = createHash('sha256').update(body).digest('hex')
    const signature = createHmac('sha256', tenant.apiSecret).update(`POST\n/v1/auth/register\n${ts}\n${hash}`).digest('hex')
    const client = `10.${block}.${(k >> 8) & 255}.${k & 255}`
    const headers = { 'content-type': 'application/json', 'x-forwarded-for': client, 'x-tenant-api-key': tenant.apiKey, 'x-timestamp': ts, 'x-signature': signature }
    return { method: 'POST', path: '/v1/auth/register', body, headers }
  })
  return { tree: label, server, registrationsOf }
}))

try {
  for (const s of servers) await load(`warm-up ${s.tree}`, s.server.url, { connections: 16, seconds: 60, requests: s.registrationsOf('w', 128, WARM) })
  const raws: Run[] = []
  const regs: Run[][] = servers.map(() => [])
  for (let k = 0; k < ROUNDS; k++) {
    raws.push(await raw())
    for (const [i, s] of servers.entries()) {
      // signatures are made just before each run: they are refused once older than the window
      const requests = s.registrationsOf(`r${k}_`, k, 400 * SECONDS)
      regs[i]!.push(await measured(s.server.proc.pid, () => load('register', s.server.url, { connections: 16, requests, pid: s.server.proc.pid })))
    }
  }
  const us = (v: number) => v.toFixed(0).padStart(6)
  const line = (name: string, runs: Run[], base?: Run[]) => {
    const m = (f: (r: Run) => number) => median(runs.map(f))
    const ratios = base ? runs.map((r, k) => r.result.rps / base[k]!.result.rps) : []
    const ratio = base ? ` ${(median(ratios) * 100).toFixed(1)}% of raw (rounds ${ratios.map((v) => (v * 100).toFixed(0)).join(', ')})` : ''
    const errs = runs.reduce((n, r) => n + r.result.errors + r.result.non2xx, 0)
    const cpu = [
      `all ${us(m((r) => r.result.cpuUs ?? NaN))}`, `JS ${us(m((r) => r.split.js))}`, `pool ${us(m((r) => r.split.pool))}`, `JIT ${us(m((r) => r.split.jit))}`,
      `GC ${us(m((r) => r.split.gc))}`, `other ${us(m((r) => r.split.other))}`, `wrk ${us(m((r) => r.result.generatorCpuUs ?? 0))}`,
    ].join(', ')
    const rate = m((r) => r.result.rps).toFixed(1).padStart(6)
    console.log(`${name.padEnd(44)} ${rate}/s  CPU µs per op: ${cpu}; pool occupancy ${(m((r) => r.occupancy) * 100).toFixed(0)}%${ratio}${errs ? `; ${errs} errors or non-2xx` : ''}`)
  }
  console.log(`\n${ROUNDS} rounds of ${SECONDS} s, medians (load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`)
  line('raw argon2id (19 MiB, t=2), 16 in flight', raws)
  for (const [i, s] of servers.entries()) {
    line(`registration ${s.tree}`, regs[i]!, raws)
    console.log(`  the other threads, µs per registration, round by round: ${regs[i]!.map((r) => JSON.stringify(r.names)).join('; ')}`)
  }
  if (servers.length === 2) {
    const ab = regs[1]!.map((r, k) => r.result.rps / regs[0]![k]!.result.rps)
    console.log(`B/A rate, round by round: ${ab.map((v) => v.toFixed(3)).join(', ')}`)
  }
} finally {
  for (const s of servers) s.server.proc.kill()
  rmSync(dir, { recursive: true, force: true })
}
