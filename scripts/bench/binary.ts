/**
 * The standalone binary: its size, the time from spawn to the first /health answer
 * (median of 5 starts on a fresh database each), and its resident memory idle and after load.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { load, rssMiB } from './lib'

const dir = mkdtempSync(join(tmpdir(), 'slipway-binbench-'))
const binary = join(dir, 'slipway')
const build = Bun.spawnSync([process.execPath, 'scripts/build.ts', binary], { stdout: 'ignore', stderr: 'inherit' })
if (build.exitCode !== 0) process.exit(1)
const size = statSync(binary).size

const starts: number[] = []
let last: { proc: ReturnType<typeof Bun.spawn>; url: string } | undefined
for (let i = 0; i < 5; i++) {
  const port = 40000 + Math.floor(Math.random() * 20000)
  const t0 = performance.now()
  const proc = Bun.spawn([binary], { cwd: dir, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `file:${join(dir, `db${i}`, 'slipway.db')}`, LOG_LEVEL: 'silent', BOOTSTRAP_ADMIN_USERNAME: 'bench', BOOTSTRAP_ADMIN_PASSWORD: 'Bench-passw0rd' }, stdout: 'ignore', stderr: 'inherit' })
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break
    } catch { /* starting */ }
    await Bun.sleep(2)
  }
  starts.push(performance.now() - t0)
  if (i < 4) {
    proc.kill()
    await proc.exited
  } else last = { proc, url }
}
starts.sort((a, b) => a - b)
const idle = await rssMiB(last!.proc.pid)
const r = await load('binary GET /health', { url: `${last!.url}/health` })
const loaded = await rssMiB(last!.proc.pid)
// a bearer-authenticated read (JWT check, row reads, JSON) under the same load
const login = await (await fetch(`${last!.url}/v1/auth/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench', password: 'Bench-passw0rd' }) })).json() as { accessToken: string; user: { id: string } }
const rb = await load('binary GET /v1/users/{id}', { url: `${last!.url}/v1/users/${login.user.id}`, headers: { authorization: `Bearer ${login.accessToken}` } })
const loadedBearer = await rssMiB(last!.proc.pid)
last!.proc.kill()
console.log(`binary: ${(size / 1024 / 1024).toFixed(1)} MiB; start to first /health answer: median ${starts[2]!.toFixed(0)} ms (min ${starts[0]!.toFixed(0)}, max ${starts[4]!.toFixed(0)}; target under 200 ms)`)
console.log(`binary: resident memory ${idle?.toFixed(0)} MiB idle, ${loaded?.toFixed(0)} MiB after ${r.rps.toFixed(0)} req/s of /health, ${loadedBearer?.toFixed(0)} MiB after ${rb.rps.toFixed(0)} req/s of a bearer-authenticated read (target under 150 MiB)`)
rmSync(dir, { recursive: true, force: true })
