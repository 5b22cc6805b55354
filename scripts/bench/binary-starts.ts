/**
 * Binaries compared by their start, alternating: for each, ROUNDS (default 3) first starts on a
 * fresh database, each followed by a restart on it; per kind of start, the medians of the wall time
 * from spawn to the first /health answer, the process's CPU time then (/proc, all threads), its
 * resident memory 1.5 s later, and the CPU at its own start marks (SLIPWAY_START_TRACE). On a busy
 * machine the CPU and memory figures mean more than the wall times.
 *
 *   bun scripts/bench/binary-starts.ts BINARY [BINARY...]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cpuMs, freePort, median, rssMiB } from './lib'

type Phases = Record<string, { ms: number; cpuMs: number }>
interface Start { ms: number; cpu: number; idle: number; phases?: Phases }

const binaries = process.argv.slice(2)
if (!binaries.length) throw new Error('usage: bun scripts/bench/binary-starts.ts BINARY [BINARY...]')
const rounds = Number(process.env.ROUNDS ?? 3)
const dir = mkdtempSync(join(tmpdir(), 'slipway-starts-'))

async function start(binary: string, db: string): Promise<Start> {
  const port = freePort()
  const t0 = performance.now()
  const proc = Bun.spawn([binary], {
    cwd: dir,
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `file:${join(dir, db, 'slipway.db')}`, LOG_LEVEL: 'silent',
      BOOTSTRAP_ADMIN_USERNAME: 'bench', BOOTSTRAP_ADMIN_PASSWORD: 'Bench-passw0rd', SLIPWAY_START_TRACE: '1',
    },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  const stderr = new Response(proc.stderr).text()
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${binary} exited with ${proc.exitCode}`)
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false)
    if (ok) break
    await Bun.sleep(2)
  }
  const ms = performance.now() - t0
  const cpu = (await cpuMs(proc.pid)) ?? NaN
  await Bun.sleep(1500)
  const idle = (await rssMiB(proc.pid)) ?? NaN
  proc.kill()
  await proc.exited
  const line = (await stderr).split('\n').find((l) => l.startsWith('{"startPhases"'))
  return { ms, cpu, idle, phases: line ? (JSON.parse(line) as { startPhases: Phases }).startPhases : undefined }
}

const results = new Map<string, { fresh: Start[]; restart: Start[] }>(binaries.map((b) => [b, { fresh: [], restart: [] }]))
let dbs = 0
for (let r = 0; r < rounds; r++) {
  for (const b of binaries) {
    const db = `db${dbs++}`
    results.get(b)!.fresh.push(await start(b, db))
    results.get(b)!.restart.push(await start(b, db))
  }
}
const cpuAt = (list: Start[], mark: string) => median(list.map((s) => s.phases?.[mark]?.cpuMs ?? NaN)).toFixed(0)
for (const [b, { fresh, restart }] of results) {
  for (const [kind, list] of [['fresh', fresh], ['restart', restart]] as const) {
    console.log(`${b} ${kind}: first /health ${median(list.map((s) => s.ms)).toFixed(0)} ms, CPU then ${median(list.map((s) => s.cpu)).toFixed(0)} ms, `
      + `idle ${median(list.map((s) => s.idle)).toFixed(1)} MiB; CPU ms at loaded ${cpuAt(list, 'loaded')}, deps ${cpuAt(list, 'deps')}, ready ${cpuAt(list, 'ready')}`)
  }
}
rmSync(dir, { recursive: true, force: true })
