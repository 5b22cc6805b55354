/**
 * The standalone binary: its size, the time from spawn to the first /health answer
 * (median of 5 starts on a fresh database each), and its resident memory idle and after load.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, load, rssDuring, rssMiB } from './lib'

const dir = mkdtempSync(join(tmpdir(), 'slipway-binbench-'))
const binary = join(dir, 'slipway')
const build = Bun.spawnSync([process.execPath, 'scripts/build.ts', binary], { stdout: 'ignore', stderr: 'inherit' })
if (build.exitCode !== 0) process.exit(1)
const size = statSync(binary).size

const starts: number[] = []
let last: { proc: ReturnType<typeof Bun.spawn>; url: string } | undefined
for (let i = 0; i < 5; i++) {
  const port = freePort()
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
const pid = last!.proc.pid
const idle = await rssMiB(pid)
const health = await rssDuring(pid, load('binary GET /health', { url: `${last!.url}/health` }))
// a bearer-authenticated read (JWT check, row reads, JSON) under the same load
const login = await (await fetch(`${last!.url}/v1/auth/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench', password: 'Bench-passw0rd' }) })).json() as { accessToken: string; user: { id: string } }
const bearer = await rssDuring(pid, load('binary GET /v1/users/{id}', { url: `${last!.url}/v1/users/${login.user.id}`, headers: { authorization: `Bearer ${login.accessToken}` } }))
await Bun.sleep(3000)
const rested = await rssMiB(pid)
// the same read once wallet and transaction routes have run: their code and the chain libraries load on first use
for (const path of ['/v1/wallets/', '/v1/transactions/']) await (await fetch(`${last!.url}${path}`, { headers: { authorization: `Bearer ${login.accessToken}` } })).arrayBuffer()
await Bun.sleep(1000)
const chainIdle = await rssMiB(pid)
const chainBearer = await rssDuring(pid, load('binary GET /v1/users/{id}, chain code loaded', { url: `${last!.url}/v1/users/${login.user.id}`, headers: { authorization: `Bearer ${login.accessToken}` } }))
last!.proc.kill()
console.log(`binary: ${(size / 1024 / 1024).toFixed(1)} MiB; start to first /health answer: median ${starts[2]!.toFixed(0)} ms (min ${starts[0]!.toFixed(0)}, max ${starts[4]!.toFixed(0)}; target under 200 ms)`)
const mib = (s: { median: number; peak: number }) => `median ${s.median.toFixed(0)} MiB, peak ${s.peak.toFixed(0)} MiB`
const rate = (r: { rps: number; p99: number }) => `${r.rps.toFixed(0)} req/s (p99 ${r.p99} ms)`
console.log(`binary: resident memory ${idle?.toFixed(0)} MiB idle; under ${rate(health.result)} of /health: ${mib(health)}; under ${rate(bearer.result)} of a bearer-authenticated read: ${mib(bearer)}; ${rested?.toFixed(0)} MiB 3 s after (target under 150 MiB under load; GC_HEAP_BUDGET_MIB=${process.env.GC_HEAP_BUDGET_MIB ?? 'default'})`)
console.log(`binary, once wallet and transaction routes have run: ${chainIdle?.toFixed(0)} MiB idle; under ${rate(chainBearer.result)} of the same read: ${mib(chainBearer)}`)
rmSync(dir, { recursive: true, force: true })
