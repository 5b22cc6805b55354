import { createHash, createHmac } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { load, SECONDS, spawnServer } from './lib'
const dir = mkdtempSync(join(tmpdir(), 'slipway-regbench-'))
const env = { DATABASE_URL: `file:${join(dir, 'bench.db')}`, JWT_SECRET: 'bench-secret-bench-secret-bench-secret', MASTER_KEY: Buffer.alloc(32, 9).toString('base64'), BOOTSTRAP_ADMIN_USERNAME: 'bench', BOOTSTRAP_ADMIN_PASSWORD: 'Bench-passw0rd', TRUSTED_PROXIES: '127.0.0.1', LOG_LEVEL: process.env.LL ?? 'info', ENGINE_RAM_MIB: process.env.ERM ?? '192' }
const prof = process.env.PROF ? ['--cpu-prof', '--cpu-prof-interval=200', '--cpu-prof-dir=/tmp/prof/reg'] : []
const slipway = await spawnServer([...prof, 'src/index.ts'], env)
const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => (await fetch(slipway.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })).json() as Promise<any>
const admin = await post('/v1/auth/admin/login', { username: 'bench', password: 'Bench-passw0rd' })
const tenant = await post('/v1/admin/tenants', { name: 'bench' }, { authorization: `Bearer ${admin.accessToken}` })
const signed = (method: string, path: string, body: string, ts = String(Math.floor(Date.now() / 1000))) => ({ 'x-tenant-api-key': tenant.apiKey, 'x-timestamp': ts, 'x-signature': createHmac('sha256', tenant.apiSecret).update(`${method}\n${path}\n${ts}\n${createHash('sha256').update(body).digest('hex')}`).digest('hex') })
for (let round = 0; round < 2; round++) {
  const p = Bun.spawn([process.execPath, 'scripts/bench/servers/argon2-rate.ts'], { stdout: 'pipe', env: { ...process.env, BENCH_SECONDS: String(SECONDS) } })
  const { rate } = JSON.parse(await new Response(p.stdout).text())
  const regs = Array.from({ length: 400 * SECONDS }, (_, i) => {
    const body = JSON.stringify({ username: `r${round}_${i}`, email: `r${round}_${i}@example.com`, password: 'Bench-passw0rd' })
    return { method: 'POST', path: '/v1/auth/register', body, headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${round}.${(i >> 8) & 255}.${i & 255}`, ...signed('POST', '/v1/auth/register', body) } }
  })
  const cpu = async () => { const f = (await Bun.file(`/proc/${slipway.proc.pid}/stat`).text()).split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10 }
  const c0 = await cpu()
  const r = await load('register', slipway.url, { connections: 16, requests: regs })
  const c1 = await cpu()
  console.log(`server cpu per register: ${((c1 - c0) / (r.rps * SECONDS)).toFixed(2)} ms`)
  console.log(`argon2 raw ${rate.toFixed(0)}/s; register ${r.rps.toFixed(0)}/s (${(r.rps / rate * 100).toFixed(0)}%), p99 ${r.p99.toFixed(0)} ms, non2xx ${r.non2xx}`)
}
slipway.proc.kill('SIGINT'); await slipway.proc.exited
