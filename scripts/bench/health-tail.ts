/**
 * What `GET /health`'s tail is made of (issue 42: p99 within 1.5× of bare Bun.serve), with figures
 * that hold on a busy machine. Not part of `npm run bench` (core.ts measures the target itself).
 *
 * Servers, each run in turn within a round (wrk, 1 thread, 64 connections, BENCH_SECONDS each):
 * - `bare`: bare Bun.serve answering `{"status":"ok"}` (servers/bare.ts), the baseline;
 * - `bare+code`: the same handler in a process that has loaded Slipway's code and run none of it
 *   (servers/bare-app-code.ts): what the code alone costs the engine; HEALTH_TAIL_BARE='libs;half;all;app'
 *   runs one such process per amount of code loaded (`bare+libs`, …; BARE_LOAD there says what each loads),
 *   and `name:KEY=VALUE,…` entries one with settings of their own;
 * - `slipway`: `bun src/index.ts` on a file database, with a tenant and 100 users made first (as core.ts);
 *   HEALTH_TAIL_SLIPWAY=0 leaves it out;
 * - HEALTH_TAIL_VARIANTS: more Slipway processes with settings of their own, for A/B runs, e.g.
 *   `api:SLIPWAY_ROLE=api;markers1:BUN_JSC_numberOfGCMarkers=1` (name:KEY=VALUE,KEY=VALUE;…); ROOT=<dir> runs
 *   another checkout's src/index.ts (`before:ROOT=../main-checkout`), for a before/after A/B in one run; SETUP=0 makes
 *   no data first;
 * - HEALTH_TAIL_SERVERS: more bare servers, e.g. `built:scripts/bench/servers/bare-app-built.ts:BUILT=app`
 *   (name:SCRIPT:KEY=VALUE,…;…), started as bare+code is;
 * - HEALTH_TAIL_CHECKOUTS: Slipway from other copies of the code, for A/B runs against another commit,
 *   e.g. `main=/tmp/main` (name=DIR;…, DIR holding src/index.ts: `git archive main | tar -x -C /tmp/main`,
 *   with node_modules linked).
 *
 * For each run, beside wrk's latencies: the server's CPU per answer (its JavaScript thread and the
 * others, from /proc), its collections (`BUN_JSC_logGC=1` on stderr: how many per 100,000 answers,
 * the share the allocation budget started (the rest, the engine's timers), the bytes allocated per
 * answer (the heap's growth between collections), the median eden pause, the pauses' total, those of 1 ms or more),
 * and the gaps between answers in the thread's own CPU
 * time (servers/answer-gaps.ts): how often per 100,000 answers the thread did 0.25–1 ms and ≥ 1 ms
 * of other work between two answers, and how much. Each of those stalls holds up every request in
 * flight (64 here), so their share of answers is what moves p99. Each figure printed is the median
 * of the rounds.
 *
 *   bun scripts/bench/health-tail.ts      (BENCH_SECONDS=4, BENCH_ROUNDS=3 by default)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { benchEnv, benchUser, freePort, median, requireWrk } from './lib'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const PROBE = join(import.meta.dir, 'servers/answer-gaps.ts')
requireWrk()
const dir = mkdtempSync(join(tmpdir(), 'slipway-tail-'))

type Server = { name: string; url: string; proc: ReturnType<typeof Bun.spawn>; gaps: string; stderr: string }

async function start(name: string, script: string, env: Record<string, string>, cwd?: string): Promise<Server> {
  const port = freePort()
  const gaps = join(dir, `${name}.gaps.json`)
  const stderr = join(dir, `${name}.stderr`)
  const proc = Bun.spawn([process.execPath, '--preload', PROBE, script], {
    cwd,
    env: { ...process.env, ...env, ANSWER_GAPS_OUT: gaps, BUN_JSC_logGC: '1', PORT: String(port), HOST: '127.0.0.1' },
    stdout: 'ignore',
    stderr: Bun.file(stderr),
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 400; i++) {
    try {
      if ((await fetch(url + '/health')).status < 500) return { name, url, proc, gaps, stderr }
    } catch { /* starting */ }
    await Bun.sleep(25)
  }
  throw new Error(`${name} did not start (${stderr})`)
}

/** Slipway with the core bench's data: the bench admin, a tenant, 100 users (their password hashes, the routes' code run once). */
async function slipway(name: string, extra: Record<string, string>, script = 'src/index.ts'): Promise<Server> {
  const sub = mkdtempSync(join(dir, `${name}-`))
  // ROOT=<dir> runs that tree's src/index.ts instead (another checkout: before and after a change in one run)
  // SETUP=0 serves /health with no data made first (no tenant, no users)
  const { ROOT: root, SETUP: setup, ...env } = extra
  const cwd = root ? resolve(root) : undefined
  // core.ts's Slipway writes its request lines
  const s = await start(name, cwd ? join(cwd, 'src/index.ts') : script, { ...benchEnv(sub), LOG_LEVEL: 'info', ...env }, cwd)
  if (setup === '0') return s
  const { tenant } = await benchUser(s.url, name)
  const login = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench', password: 'Bench-passw0rd' }) }
  const admin = await (await fetch(s.url + '/v1/auth/admin/login', login)).json() as { accessToken: string }
  for (let i = 0; i < 99; i++) {
    await fetch(s.url + '/v1/users/', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.accessToken}` },
      body: JSON.stringify({ username: `${name}_u${i}`, password: 'Bench-passw0rd', tenantId: tenant.id }),
    })
  }
  return s
}


/** `name:KEY=VALUE,KEY=VALUE;…` as a list of named settings. */
const settingsList = (text: string) => text.split(';').filter(Boolean).map((v) => {
  const [name, settings = ''] = v.split(':')
  return { name: name!, env: Object.fromEntries(settings.split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string])) }
})
const variants = settingsList(process.env.HEALTH_TAIL_VARIANTS ?? '')
/**
 * The bare handler's processes with code loaded (servers/bare-app-code.ts), `;`-separated: each a BARE_LOAD (`libs`, `half`, `all`,
 * `app`, `served`; `all` is named `bare+code`), or `name:KEY=VALUE,…` with settings of its own (`stmts:BARE_LOAD=none,BARE_STATEMENTS=400`).
 */
const bareVariants = (process.env.HEALTH_TAIL_BARE ?? 'all').split(';').filter(Boolean).map((v) => v.includes(':')
  ? settingsList(v)[0]!
  : { name: v === 'all' ? 'code' : v, env: { BARE_LOAD: v } })

const bareServers = (process.env.HEALTH_TAIL_SERVERS ?? '').split(';').filter(Boolean).map((v) => {
  const [name, script, settings = ''] = v.split(':') as [string, string, string?]
  return { name, script, env: Object.fromEntries(settings.split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string])) }
})
const checkouts = (process.env.HEALTH_TAIL_CHECKOUTS ?? '').split(';').filter(Boolean).map((c) => {
  const [name, root] = c.split('=') as [string, string]
  return { name, script: join(root, 'src/index.ts') }
})

/** Thread CPU of a process so far, ms: its JavaScript thread (the process's own id) and all the others. */
function threadCpu(pid: number): { js: number; others: number } {
  let js = 0
  let others = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const ms = (Number(f[11]) + Number(f[12])) * 10
      if (tid === String(pid)) js += ms
      else others += ms
    } catch { /* a thread that ended */ }
  }
  return { js, others }
}

/** The collections logged since `offset` of the server's stderr: kind and total pause of each. */
/**
 * The collections logged since `offset` of the server's stderr: kind and total pause of each, whether the
 * allocation budget started it (the engine logs "Requesting GC because bytes allocated this cycle … exceed
 * bytes allowed" just before; the others come from its timers), and the heap's size at its start and after it.
 */
function collections(file: string, offset: number): Array<{ full: boolean; pauseMs: number; byBudget: boolean; startKb: number; endKb: number }> {
  const parts = readFileSync(file, 'utf8').slice(offset).split(': START ')
  return parts.slice(1).map((chunk, i) => {
    const body = chunk.split('END]')[0]!
    const before = parts[i]!
    const ends = [...body.matchAll(/=> (\d+)kb, p=/g)]
    return {
      full: body.includes('=> FullCollection'),
      pauseMs: [...body.matchAll(/p=([\d.]+)ms/g)].reduce((n, m) => n + Number(m[1]), 0),
      byBudget: before.slice(before.lastIndexOf('END]') + 1).includes('Requesting GC because bytes allocated'),
      startKb: Number(/^M (\d+)kb/.exec(body)?.[1] ?? NaN),
      endKb: Number(ends.at(-1)?.[1] ?? NaN),
    }
  })
}

/** Bytes allocated per answer: what the heap grew by between collections (each one's start less the one before's end). */
function allocatedPerAnswer(gcs: Array<{ startKb: number; endKb: number }>, answers: number): number {
  let kb = 0
  for (let i = 1; i < gcs.length; i++) kb += Math.max(0, gcs[i]!.startKb - gcs[i - 1]!.endKb)
  return gcs.length > 1 ? (kb * 1024) / answers : NaN
}

const LUA = join(dir, 'latency.lua')
await Bun.write(LUA, `done = function(s, l, r)
  io.write(string.format('\\nRESULT {"requests":%d,"duration":%d,"p50":%d,"p99":%d,"p999":%d}\\n', s.requests, s.duration, l:percentile(50), l:percentile(99), l:percentile(99.9)))
end
`)

interface Run {
  rps: number; p50: number; p99: number; p999: number; jsUs: number; otherUs: number; gcs: number; edenMs: number; pauseMs: number; byBudget: number; bytes: number
  bigGcs: number
  stalls: number; stallsMs: number; bigStalls: number; bigStallsMs: number
}

async function measure(s: Server): Promise<Run> {
  process.kill(s.proc.pid, 'SIGUSR2') // the probe starts counting afresh
  await Bun.sleep(100)
  const offset = statSync(s.stderr).size
  const cpu0 = threadCpu(s.proc.pid)
  const wrk = Bun.spawn(['wrk', '-t1', '-c64', `-d${SECONDS}s`, '-s', LUA, s.url + '/health'], { stdout: 'pipe' })
  const out = await new Response(wrk.stdout).text()
  await wrk.exited
  const cpu1 = threadCpu(s.proc.pid)
  process.kill(s.proc.pid, 'SIGUSR2')
  await Bun.sleep(150)
  const r = JSON.parse(/RESULT (\{.*\})/.exec(out)![1]!) as { requests: number; duration: number; p50: number; p99: number; p999: number }
  const g = JSON.parse(readFileSync(s.gaps, 'utf8')) as { answers: number; count: number[]; cpu: number[] }
  const per100k = (v: number) => (v * 1e5) / g.answers
  const sum = (a: number[], from: number, to = a.length) => a.slice(from, to).reduce((x, y) => x + y, 0)
  const gcs = collections(s.stderr, offset)
  const eden = gcs.filter((c) => !c.full).map((c) => c.pauseMs)
  return {
    rps: r.requests / (r.duration / 1e6),
    p50: r.p50 / 1000,
    p99: r.p99 / 1000,
    p999: r.p999 / 1000,
    jsUs: ((cpu1.js - cpu0.js) * 1000) / r.requests,
    otherUs: ((cpu1.others - cpu0.others) * 1000) / r.requests,
    gcs: per100k(gcs.length),
    edenMs: eden.length ? median(eden) : NaN,
    pauseMs: per100k(gcs.reduce((n, c) => n + c.pauseMs, 0)),
    byBudget: gcs.length ? (100 * gcs.filter((c) => c.byBudget).length) / gcs.length : NaN,
    bytes: allocatedPerAnswer(gcs, g.answers),
    // collections whose pauses (wall time, as the engine logs them) came to 1 ms or more: the ≥ 1 ms stalls beyond these are
    // the sweeper's slices and other work
    bigGcs: per100k(gcs.filter((c) => c.pauseMs >= 1).length),
    // buckets 8-9: 256-1023 µs of CPU between two answers; 10 and up: 1 ms and more
    stalls: per100k(sum(g.count, 8, 10)),
    stallsMs: per100k(sum(g.cpu, 8, 10) / 1000),
    bigStalls: per100k(sum(g.count, 10)),
    bigStallsMs: per100k(sum(g.cpu, 10) / 1000),
  }
}

const servers: Server[] = []
try {
  servers.push(await start('bare', 'scripts/bench/servers/bare.ts', { ANSWER_GAPS_FETCH: '1' }))
  for (const v of bareVariants) {
    const sub = mkdtempSync(join(dir, `code-${v.name}-`))
    // the probe counts the answers of `fetch`, or those of the /health route when the app is served (BARE_LOAD=served)
    const probe = { ANSWER_GAPS_FETCH: v.env.BARE_LOAD === 'served' ? '0' : '1' }
    servers.push(await start(`bare+${v.name}`, 'scripts/bench/servers/bare-app-code.ts', { ...benchEnv(sub), ...probe, ...v.env }))
  }
  for (const b of bareServers) servers.push(await start(b.name, b.script, { ...benchEnv(mkdtempSync(join(dir, `${b.name}-`))), ANSWER_GAPS_FETCH: '1', ...b.env }))
  if (process.env.HEALTH_TAIL_SLIPWAY !== '0') servers.push(await slipway('slipway', {}))
  for (const c of checkouts) servers.push(await slipway(c.name, {}, c.script))
  for (const v of variants) servers.push(await slipway(v.name, v.env))
  const runs = new Map<string, Run[]>(servers.map((s) => [s.name, []]))
  for (let k = 0; k < ROUNDS; k++) for (const s of servers) runs.get(s.name)!.push(await measure(s))

  const f = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : '-')
  const cols = ['req/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'JS µs/req', 'other µs/req', 'GCs/100k', 'by budget %', 'B/answer', 'eden ms', 'pause ms/100k',
    '≥1ms GCs/100k', '0.25-1ms/100k', '(ms)', '≥1ms/100k', '(ms)']
  console.log(`\n${'server'.padEnd(12)}${cols.map((c) => c.padEnd(14)).join('')}`)
  for (const s of servers) {
    const rs = runs.get(s.name)!
    const m = (key: keyof Run) => median(rs.map((r) => r[key]))
    const row = [f(m('rps'), 0), f(m('p50')), f(m('p99')), f(m('p999')), f(m('jsUs')), f(m('otherUs')), f(m('gcs'), 1), f(m('byBudget'), 0), f(m('bytes'), 0), f(m('edenMs')), f(m('pauseMs'), 1),
      f(m('bigGcs'), 1),
      f(m('stalls'), 1), f(m('stallsMs'), 1), f(m('bigStalls'), 1), f(m('bigStallsMs'), 1)]
    console.log(`${s.name.padEnd(12)}${row.map((c) => c.padEnd(14)).join('')}`)
  }
  const bare = runs.get('bare')!
  for (const s of servers.slice(1)) {
    const rs = runs.get(s.name)!
    const ratio = (key: keyof Run) => median(rs.map((r, i) => r[key] / bare[i]![key]))
    console.log(`${s.name}: against bare, median of the rounds' own ratios: rate ${f(ratio('rps'))}, p99 ${f(ratio('p99'))}×, JS CPU per answer ${f(ratio('jsUs'))}×`)
  }
  // each stall holds up every request in flight (wrk's 64 connections): the share of answers it delays
  const held = (name: string, key: 'stalls' | 'bigStalls') => f((median(runs.get(name)!.map((r) => r[key])) * 64) / 1000, 1)
  console.log(`Answers held up by a stall (64 in flight each): ${servers.map((s) => `${s.name} ${held(s.name, 'bigStalls')}% by ≥ 1 ms, ${held(s.name, 'stalls')}% by 0.25-1 ms`).join('; ')}`)
  console.log(`\n${ROUNDS} rounds of ${SECONDS} s; load average at the end: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
} finally {
  for (const s of servers) s.proc.kill()
  rmSync(dir, { recursive: true, force: true })
}
