/**
 * The standalone binary: its size, the time from spawn to the first /health answer
 * (median of 5 starts on a fresh database each, and 5 restarts on an existing one), the
 * process's CPU time when it answered and its start phases as it times them itself
 * (SLIPWAY_START_TRACE, src/lib/start-trace.ts), and, in one run, ways of holding its
 * memory: the engine on the machine's RAM (the default, ENGINE_RAM_MIB=0), the engine
 * told 192 MiB or 128 MiB (ENGINE_RAM_MIB; src/lib/engine-memory.ts), and Bun's `--smol`
 * (built in with compile.execArgv) on the machine's RAM: idle resident memory, median and
 * peak under the bearer read (sampled every 250 ms), req/s and p99 of /health and of the
 * bearer read.
 *
 *   bun scripts/bench/binary.ts            (BENCH_SECONDS=5 by default)
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cpuMs, freePort, load, median, requireWrk, rssDuring, rssMiB, target, type Result } from './lib'

requireWrk()
const dir = mkdtempSync(join(tmpdir(), 'slipway-binbench-'))
const build = (out: string, flags: string[]) => {
  const b = Bun.spawnSync([process.execPath, 'scripts/build.ts', out, ...flags], { stdout: 'ignore', stderr: 'inherit' })
  if (b.exitCode !== 0) process.exit(1)
  return out
}
const plainBinary = build(join(dir, 'slipway'), [])
const smolBinary = build(join(dir, 'slipway-smol'), ['--smol'])

let dbs = 0
type Phases = Record<string, { ms: number; cpuMs: number }>
async function start(binary: string, env: Record<string, string> = {}, db = `db${dbs++}`) {
  const port = freePort()
  const t0 = performance.now()
  const proc = Bun.spawn([binary], {
    cwd: dir,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `file:${join(dir, db, 'slipway.db')}`, LOG_LEVEL: 'silent', BOOTSTRAP_ADMIN_USERNAME: 'bench', BOOTSTRAP_ADMIN_PASSWORD: 'Bench-passw0rd', SLIPWAY_START_TRACE: '1', ...env },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  const stderr = new Response(proc.stderr).text()
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break
    } catch { /* starting */ }
    await Bun.sleep(2)
  }
  const startMs = performance.now() - t0
  const startCpuMs = await cpuMs(proc.pid)
  const phases = async () => {
    const line = (await stderr).split('\n').find((l) => l.startsWith('{"startPhases"'))
    return line ? (JSON.parse(line) as { startPhases: Phases }).startPhases : undefined
  }
  return { proc, url, startMs, startCpuMs, phases }
}

/** Five starts on a fresh database each (migrations, the bootstrap admin's password hashed), then five restarts on the first one's. */
interface Start { ms: number; cpuMs: number; phases?: Phases; idle?: number }
const fresh: Start[] = []
const again: Start[] = []
for (const [list, db] of [[fresh, undefined], [again, 'db-again']] as const) {
  for (let i = 0; i < 5; i++) {
    const s = await start(plainBinary, {}, db)
    // a restart's idle memory: the same second of rest as the variants' below
    const idle = db ? (await Bun.sleep(1000), await rssMiB(s.proc.pid)) : undefined
    s.proc.kill()
    await s.proc.exited
    list.push({ ms: s.startMs, cpuMs: s.startCpuMs ?? NaN, phases: await s.phases(), idle })
  }
}
const starts = fresh.map((s) => s.ms)

interface Row { name: string; idle?: number; health: Result; bearer: Result; median: number; peak: number; rested?: number }
async function measure(name: string, binary: string, env: Record<string, string> = {}): Promise<Row> {
  const { proc, url } = await start(binary, env)
  await Bun.sleep(1000)
  const idle = await rssMiB(proc.pid)
  const health = await load(`${name} GET /health`, `${url}/health`)
  const login = await (await fetch(`${url}/v1/auth/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench', password: 'Bench-passw0rd' }) })).json() as { accessToken: string; user: { id: string } }
  const bearer = await rssDuring(proc.pid, load(`${name} GET /v1/users/{id}`, `${url}/v1/users/${login.user.id}`, { headers: { authorization: `Bearer ${login.accessToken}` } }))
  await Bun.sleep(3000)
  const rested = await rssMiB(proc.pid)
  proc.kill()
  await proc.exited
  return { name, idle, health, bearer: bearer.result, median: bearer.median, peak: bearer.peak, rested }
}

const variants: Array<[string, string, Record<string, string>]> = [
  ['machine', plainBinary, {}],
  ['hint 192', plainBinary, { ENGINE_RAM_MIB: '192' }],
  ['hint 128', plainBinary, { ENGINE_RAM_MIB: '128' }],
  ['--smol', smolBinary, {}],
]
const rows: Row[] = []
// Alternated twice, so neither variant always runs on a quieter machine.
for (let round = 0; round < 2; round++) for (const [name, bin, env] of variants) rows.push(await measure(name, bin, env))

const sizeMiB = statSync(plainBinary).size / 1024 / 1024
console.log(`\nbinary: ${sizeMiB.toFixed(1)} MiB`)
const PHASES = ['loaded', 'listening', 'deps', 'admin', 'app', 'ready']
for (const [name, list] of [['fresh database', fresh], ['restart', again]] as const) {
  const ms = list.map((s) => s.ms)
  console.log(`start to first /health answer, ${name}: median ${median(ms).toFixed(0)} ms (min ${Math.min(...ms).toFixed(0)}, max ${Math.max(...ms).toFixed(0)}), `
    + `CPU by then ${median(list.map((s) => s.cpuMs)).toFixed(0)} ms (median)`)
  // each phase's own share: wall and CPU ms from the previous mark (the first from the process's start), medians
  const share = (p: Phases | undefined, i: number, k: 'ms' | 'cpuMs') => p && p[PHASES[i]!] ? p[PHASES[i]!]![k] - (i === 0 ? 0 : p[PHASES[i - 1]!]![k]) : NaN
  console.log('  phases (median wall / CPU ms): ' + PHASES.map((ph, i) => `${ph} ${median(list.map((s) => share(s.phases, i, 'ms'))).toFixed(0)}/${median(list.map((s) => share(s.phases, i, 'cpuMs'))).toFixed(0)}`).join(', '))
}
const pad = (s: string, n: number) => s.padEnd(n)
console.log(`\n${pad('variant', 12)}${pad('idle MiB', 10)}${pad('/health req/s', 15)}${pad('p99 ms', 8)}${pad('bearer req/s', 14)}${pad('p99 ms', 8)}${pad('RSS median', 12)}${pad('RSS peak', 10)}3 s after`)
for (const r of rows) {
  console.log(`${pad(r.name, 12)}${pad(r.idle?.toFixed(0) ?? '?', 10)}${pad(r.health.rps.toFixed(0), 15)}${pad(r.health.p99.toFixed(1), 8)}${pad(r.bearer.rps.toFixed(0), 14)}${pad(r.bearer.p99.toFixed(1), 8)}${pad(r.median.toFixed(0), 12)}${pad(r.peak.toFixed(0), 10)}${r.rested?.toFixed(0) ?? '?'}`)
}
// Issue 42's targets, on the release binary (`machine`: no memory hint, no --smol), medians of its runs.
const plain = rows.filter((r) => r.name === 'machine')
const idle = median(plain.map((r) => r.idle ?? NaN))
const underLoad = median(plain.map((r) => r.median))
console.log('')
target('binary size', `${sizeMiB.toFixed(1)} MiB`, '< 120 MiB', sizeMiB < 120)
target('binary first /health answer after spawn (median of 5, fresh database)', `${median(starts).toFixed(0)} ms`, '< 100 ms', median(starts) < 100)
target('binary first /health answer after spawn (median of 5, restart)', `${median(again.map((s) => s.ms)).toFixed(0)} ms`, '< 100 ms', median(again.map((s) => s.ms)) < 100)
target('binary idle resident memory (fresh database: the bootstrap admin hashed at start)', `${idle.toFixed(1)} MiB`, '< 64 MiB', idle < 64)
const idleAgain = median(again.map((s) => s.idle ?? NaN))
target('binary idle resident memory (restart on an existing database)', `${idleAgain.toFixed(1)} MiB`, '< 64 MiB', idleAgain < 64)
target('binary resident memory under the bearer read (median of samples)', `${underLoad.toFixed(0)} MiB`, '< 128 MiB', underLoad < 128)
rmSync(dir, { recursive: true, force: true })
