/**
 * Platform core benchmark. In one run on this machine: bare Bun.serve, a bare handler doing
 * the profile route's JWT check and row read, and Slipway's /health, bearer-authenticated
 * profile read and signed login, each printed with its ratio to its baseline.
 *
 *   bun scripts/bench/core.ts            (BENCH_SECONDS=5 by default)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHash, createHmac } from 'node:crypto'
import { load, report, rssDuring, rssMiB, spawnServer } from './lib'

const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-'))
const env = {
  DATABASE_URL: `file:${join(dir, 'bench.db')}`,
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
  MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
  BOOTSTRAP_ADMIN_USERNAME: 'bench',
  BOOTSTRAP_ADMIN_PASSWORD: 'Bench-passw0rd',
  // Login is limited to 20 a minute per client IP; the load generator poses as many clients behind a trusted proxy.
  TRUSTED_PROXIES: '127.0.0.1',
}

const slipway = await spawnServer(['src/index.ts'], env)
const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(slipway.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  return res.json() as Promise<any>
}
const admin = await post('/v1/auth/admin/login', { username: 'bench', password: 'Bench-passw0rd' })
const tenant = await post('/v1/admin/tenants', { name: 'bench' }, { authorization: `Bearer ${admin.accessToken}` })
const signed = (method: string, path: string, body: string, ts = String(Math.floor(Date.now() / 1000)), nonce = '') => {
  const hash = createHash('sha256').update(body).digest('hex')
  return { 'x-tenant-api-key': tenant.apiKey, 'x-timestamp': ts, 'x-signature': createHmac('sha256', tenant.apiSecret).update(`${method}\n${path}${nonce}\n${ts}\n${hash}`).digest('hex') }
}
const regBody = JSON.stringify({ username: 'bench_user', email: 'bench@example.com', password: 'Bench-passw0rd' })
const user = await (await fetch(slipway.url + '/v1/auth/register', { method: 'POST', headers: { 'content-type': 'application/json', ...signed('POST', '/v1/auth/register', regBody) }, body: regBody })).json() as any
const token = `Bearer ${user.accessToken}`
const profilePath = `/v1/users/${user.user.id}`
// a tenantadmin with 100 users in its tenant, for the paginated list
const adminAuth = { authorization: `Bearer ${admin.accessToken}` }
await post('/v1/users/', { username: 'bench_tadmin', password: 'Bench-passw0rd', role: 'tenantadmin', tenantId: tenant.id }, adminAuth)
for (let i = 0; i < 98; i++) await post('/v1/users/', { username: `bench_u${i}`, password: 'Bench-passw0rd', tenantId: tenant.id }, adminAuth)
const taBody = JSON.stringify({ username: 'bench_tadmin', password: 'Bench-passw0rd' })
const ta = await (await fetch(slipway.url + '/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json', ...signed('POST', '/v1/auth/login', taBody) }, body: taBody })).json() as any
const taToken = `Bearer ${ta.accessToken}`

const bare = await spawnServer(['scripts/bench/servers/bare.ts'], env)
const bareAuth = await spawnServer(['scripts/bench/servers/bare-auth.ts'], env, '/')
// the same bare work inside a bare Elysia route: separates Elysia's own cost from Slipway's
const elysiaAuth = await spawnServer(['scripts/bench/servers/elysia-auth.ts'], env)

try {
  const rssIdle = await rssMiB(slipway.proc.pid)
  const rBare = await load('bare Bun.serve', { url: bare.url + '/health' })
  const rHealth = await load('GET /health', { url: slipway.url + '/health' })
  const rBareAuth = await load('bare handler: JWT check + row read', { url: bareAuth.url + profilePath, headers: { authorization: token } })
  const profile = await rssDuring(slipway.proc.pid, load('GET /v1/users/{id} (bearer)', { url: slipway.url + profilePath, headers: { authorization: token } }))
  const rProfile = profile.result
  const rElysiaAuth = await load('the same work in a bare Elysia route', { url: elysiaAuth.url + profilePath, headers: { authorization: token } })
  const rBareList = await load('bare handler: JWT + actor + 100-row page', { url: bareAuth.url + '/list', headers: { authorization: taToken } })
  const list = await rssDuring(slipway.proc.pid, load('GET /v1/users/?limit=100 (bearer)', { url: slipway.url + '/v1/users/?limit=100', headers: { authorization: taToken } }))
  const rList = list.result
  // Every signed request needs its own signature (replays are refused): a counter in the query makes each unique.
  let n = 0
  const loginBody = JSON.stringify({ username: 'bench_user', password: 'Bench-passw0rd' })
  const login = await rssDuring(slipway.proc.pid, load('POST /v1/auth/login (signed, argon2id)', {
    url: slipway.url,
    connections: 8,
    requests: [{
      setupRequest: (req: any) => {
        const q = `?n=${++n}`
        const client = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`
        return { ...req, method: 'POST', path: `/v1/auth/login${q}`, body: loginBody, headers: { 'content-type': 'application/json', 'x-forwarded-for': client, ...signed('POST', '/v1/auth/login', loginBody, undefined, q) } }
      },
    }],
  }))
  const rLogin = login.result
  report([
    { result: rBare },
    { result: rHealth, baseline: rBare, target: 0.7 },
    { result: rBareAuth },
    { result: rElysiaAuth, baseline: rBareAuth },
    { result: rProfile, baseline: rBareAuth, target: 0.7 },
    { result: rBareList },
    { result: rList, baseline: rBareList, target: 0.7 },
    { result: rLogin },
  ])
  const mib = (s: { median: number; peak: number }) => `median ${s.median.toFixed(0)}, peak ${s.peak.toFixed(0)} MiB`
  console.log(`\nSlipway resident memory (bun src/index.ts): ${rssIdle?.toFixed(0)} MiB idle; under the bearer read ${mib(profile)}; under the 100-user page ${mib(list)}; under signed login ${mib(login)} (target under 150 MiB)`)
  console.log('\nSigned login is bound by argon2id (19 MiB, t=2) by design; it is reported without a ratio.')
} finally {
  for (const s of [slipway, bare, bareAuth, elysiaAuth]) s.proc.kill()
  rmSync(dir, { recursive: true, force: true })
}
