/**
 * A sqld with namespaces (`--enable-namespaces`): one database per namespace, created through
 * the admin API (`POST /v1/namespaces/<name>/create` on `--admin-listen-addr`), and addressed
 * by the first label of the host name (`http://<name>.localhost:<port>`: Bun's resolver maps
 * `*.localhost` to 127.0.0.1; sqld reads the namespace from the Host header).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './process'
import { SQLD_FLAGS, sqldBinary } from './sqld'

export interface NamespacedSqld {
  port: number
  /** the sqld process (benchmarks read its CPU time) */
  pid: number
  adminUrl: string
  dir: string
  /** creates the namespace and answers its URL */
  create(name: string): Promise<string>
  urlOf(name: string): string
  stop(): Promise<void>
}

export async function startNamespacedSqld(): Promise<NamespacedSqld> {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-sqld-ns-'))
  const port = freePort()
  const adminPort = freePort()
  const proc = Bun.spawn([
    sqldBinary(), '--db-path', join(dir, 'data.sqld'), '--http-listen-addr', `127.0.0.1:${port}`,
    '--admin-listen-addr', `127.0.0.1:${adminPort}`, '--enable-namespaces', '--no-welcome', '--disable-metrics', ...SQLD_FLAGS,
  ], { cwd: dir, stdout: 'ignore', stderr: 'ignore' })
  const adminUrl = `http://127.0.0.1:${adminPort}`
  const deadline = Date.now() + 10_000
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`sqld exited with ${proc.exitCode}`)
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(500) })).ok) break
    } catch { /* starting */ }
    if (Date.now() > deadline) {
      proc.kill(9)
      throw new Error('sqld did not answer /health in time')
    }
    await Bun.sleep(20)
  }
  const urlOf = (name: string) => `http://${name}.localhost:${port}`
  return {
    port, pid: proc.pid, adminUrl, dir, urlOf,
    async create(name) {
      const res = await fetch(`${adminUrl}/v1/namespaces/${name}/create`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      if (!res.ok) throw new Error(`namespace ${name}: ${res.status} ${await res.text()}`)
      return urlOf(name)
    },
    async stop() {
      proc.kill('SIGTERM')
      const stopped = await Promise.race([proc.exited.then(() => true), Bun.sleep(3000).then(() => false)])
      if (!stopped) {
        proc.kill('SIGKILL')
        await proc.exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
