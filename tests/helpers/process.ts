/** Runs Slipway as operators do (a separate process on a SQLite file) and waits for /health. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface RunningProcess {
  url: string
  dir: string
  proc: ReturnType<typeof Bun.spawn>
  stop(signal?: NodeJS.Signals): Promise<number>
}

/**
 * Folders startProcess made, removed when the whole run ends: tests start a second process
 * on a stopped one's folder (restarts, replicas), so none can go when its process stops, and
 * a hook in this module would run after the first test file only (modules are shared).
 */
const createdDirs: string[] = []
/** Run once after every test file (tests/setup.ts, preloaded by bunfig.toml). */
export function removeCreatedDirs() {
  for (const dir of createdDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
}

export const PROCESS_ADMIN = { username: 'ops', password: 'Ops-passw0rd' }

/**
 * A child's stderr on ours, line by line, less runtime deprecation notices about dependencies
 * (Deno's Node layer prints `[DEP0040] DeprecationWarning: The punycode module...` for a
 * dependency's import): noise in a clean run that reads like an error, and nothing to act on here.
 */
async function forwardStderr(stream: ReadableStream<Uint8Array>) {
  const decoder = new TextDecoder()
  let pending = ''
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    pending += decoder.decode(value, { stream: true })
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) if (!/\bDeprecationWarning\b/.test(line)) process.stderr.write(`${line}\n`)
  }
  if (pending && !/\bDeprecationWarning\b/.test(pending)) process.stderr.write(pending)
}

export function freePort() {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = s.port!
  s.stop(true)
  return port
}

export async function startProcess(cmd: string[], opts: { env?: Record<string, string>; dir?: string; cwd?: string; timeoutMs?: number } = {}): Promise<RunningProcess> {
  let dir = opts.dir
  if (!dir) createdDirs.push((dir = mkdtempSync(join(tmpdir(), 'slipway-proc-'))))
  const port = freePort()
  const proc = Bun.spawn(cmd, {
    cwd: opts.cwd,
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `file:${dir}/slipway.db`, LOG_LEVEL: 'silent',
      BOOTSTRAP_ADMIN_USERNAME: PROCESS_ADMIN.username, BOOTSTRAP_ADMIN_PASSWORD: PROCESS_ADMIN.password,
      // argon2id's test cost (tests/setup.ts) is refused under NODE_ENV=production: such a process runs at the production cost
      ...(opts.env?.NODE_ENV === 'production' ? { PASSWORD_HASH_MEMORY_KIB: '' } : {}), ...opts.env,
    },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  forwardStderr(proc.stderr)
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000)
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/health`)).ok) break
    } catch { /* starting */ }
    if (proc.exitCode !== null) throw new Error(`${cmd.join(' ')} exited with ${proc.exitCode}`)
    await Bun.sleep(50)
  }
  if (Date.now() >= deadline) {
    proc.kill()
    throw new Error(`${cmd.join(' ')} did not answer /health in time`)
  }
  return {
    url, dir, proc,
    stop: async (signal = 'SIGTERM') => {
      proc.kill(signal)
      return proc.exited
    },
  }
}

/** The environment a running process has now (after an execve, the new image's). Linux only. */
export function environOf(pid: number): Record<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean)
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]))
}
