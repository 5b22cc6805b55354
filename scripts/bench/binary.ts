/**
 * The standalone binary: its size, the time from spawn to the first /health answer
 * (median of 5 starts on a fresh database each), and, in one run, ways of holding its
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
import { freePort, load, median, requireWrk, rssDuring, rssMiB, target, type Result } from './lib'

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
async function start(binary: string, env: Record<string, string> = {}) {
  const port = freePort()
  const t0 = performance.now()
  const proc = Bun.spawn([binary], { cwd: dir, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `file:${join(dir, `db${dbs++}`, 'slipway.db')}`, LOG_LEVEL: 'silent', BOOTSTRAP_ADMIN_USERNAME: 'bench', BOOTSTRAP_ADMIN_PASSWORD: 'Bench-passw0rd', ...env }, stdout: 'ignore', stderr: 'inherit' })
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break
    } catch { /* starting */ }
    await Bun.sleep(2)
  }
  return { proc, url, startMs: performance.now() - t0 }
}

const starts: number[] = []
for (let i = 0; i < 5; i++) {
  const s = await start(plainBinary)
  starts.push(s.startMs)
  s.proc.kill()
  await s.proc.exited
}

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
console.log(`\nbinary: ${sizeMiB.toFixed(1)} MiB; start to first /health answer: median ${median(starts).toFixed(0)} ms (min ${Math.min(...starts).toFixed(0)}, max ${Math.max(...starts).toFixed(0)})`)
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
target('binary idle resident memory', `${idle.toFixed(1)} MiB`, '< 64 MiB', idle < 64)
target('binary resident memory under the bearer read (median of samples)', `${underLoad.toFixed(0)} MiB`, '< 128 MiB', underLoad < 128)
rmSync(dir, { recursive: true, force: true })
