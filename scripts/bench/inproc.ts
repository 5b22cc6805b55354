/**
 * The request path in process, without sockets or a load generator: CPU time per request of
 * `app.fetch` for `GET /health` (and of the server route that answers it over HTTP, before the app)
 * and the bearer read, beside the same work done bare in the same process (`Response.json`; the
 * floor's inline HMAC, native prepared `get` and view). The process's own CPU time (all threads), minimum of BENCH_ROUNDS rounds of N requests each
 * (the minimum: on a shared machine every disturbance only adds). Stable where wrk's rates
 * move by a fifth, so it is the guide for changes on a busy machine; wrk (core.ts) decides.
 *
 *   bun scripts/bench/inproc.ts                 (N=50000 per round, 7 rounds)
 *   bun --cpu-prof --cpu-prof-dir=DIR scripts/bench/inproc.ts bearer
 *   bun scripts/bench/inproc.ts register        (BENCH_N=300 BENCH_ROUNDS=3 is enough: argon2 at Slipway's cost)
 *   bun scripts/bench/inproc.ts register 'at once'   (only the register cases whose name holds the words)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import Database from 'libsql'
import { loadConfig } from '../../src/config'
import { buildDeps } from '../../src/deps'
import { applyMigrations } from '../../src/db/migrate'
import { bunFetch, createApp } from '../../src/app'
import { createLogger } from '../../src/lib/logger'
import { setSocketIp } from '../../src/http/request-state'
import { ensureBootstrapAdmin } from '../../src/modules/auth/service'
import { PASSWORD_HASH_MEMORY_KIB } from '../../src/lib/passwords'
import { threadMicros } from './thread-clock'

const N = Number(process.env.BENCH_N ?? 50_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const only = process.argv[2]
// `register at once` (a second word) runs only the register cases whose name holds it
const pick = process.argv.slice(3).join(' ')
// The synchronous call into @node-rs/argon2's `hash` inside each registration (it queues the hash on
// Bun's pool and answers a promise), timed with the thread's exact clock (thread-clock.ts): wrapped
// here, before src/lib/passwords.ts first loads the addon (the bootstrap admin's hash, below), and
// counted, so a registration that did not go through it cannot pass unseen. Two more registration
// cases put something else in the hash's place, to tell the request's own work from its waiting:
// a hash made beforehand, answered at once, and the same answered after a 10 ms timer (no argon2).
const argon2 = require('@node-rs/argon2') as typeof import('@node-rs/argon2')
const argon2Hash = argon2.hash
let hashCalls = 0
let hashCallMicros = 0
// each registration's JS-thread time split at its hash (exact thread clock): before the call into it, and from its answer on
let regStart = 0
let hashAnswered = 0
let beforeHash = 0
let afterHash = 0
let hashStandIn: 'none' | 'at once' | 'after 10 ms' = 'none'
let madeBefore = ''
if (only === 'register') {
  argon2.hash = ((...args: Parameters<typeof argon2Hash>) => {
    const t0 = threadMicros()
    const out = hashStandIn === 'none' ? argon2Hash(...args) : hashStandIn === 'at once' ? Promise.resolve(madeBefore) : Bun.sleep(10).then(() => madeBefore)
    hashCallMicros += threadMicros() - t0
    beforeHash += t0 - regStart
    hashCalls++
    return out.then((hash) => {
      hashAnswered = threadMicros()
      return hash
    })
  }) as typeof argon2Hash
}
const dir = mkdtempSync(join(tmpdir(), 'slipway-inproc-'))
const dbPath = join(dir, 'bench.db')
const JWT_SECRET = 'bench-secret-bench-secret-bench-secret'
const config = loadConfig({
  DATABASE_URL: `file:${dbPath}`, JWT_SECRET, MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
  PUBLIC_BASE_URL: 'http://slipway.test', PORTFOLIO_SNAPSHOTS: 'off', TRUSTED_PROXIES: '127.0.0.1',
})
// the log lines are made and buffered as in production; only the write to stdout is left out
let logged = 0
const logger = createLogger({ sink: { write: (chunk) => { logged += chunk.length } } })
const deps = await buildDeps(config, { logger, migrate: applyMigrations })
await ensureBootstrapAdmin(deps, 'bench', 'Bench-passw0rd')
const app = createApp(deps)
const base = 'http://slipway.test'
const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await app.handle(new Request(base + path, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) }))
  return res.json() as Promise<any>
}
const admin = await call('POST', '/v1/auth/admin/login', { username: 'bench', password: 'Bench-passw0rd' })
const tenant = await call('POST', '/v1/admin/tenants', { name: 'bench' }, { authorization: `Bearer ${admin.accessToken}` })
const regBody = JSON.stringify({ username: 'bench_user', email: 'bench@example.com', password: 'Bench-passw0rd' })
const ts = String(Math.floor(Date.now() / 1000))
const sig = createHmac('sha256', tenant.apiSecret).update(`POST\n/v1/auth/register\n${ts}\n${createHash('sha256').update(regBody).digest('hex')}`).digest('hex')
const user = await call('POST', '/v1/auth/register', JSON.parse(regBody), { 'x-tenant-api-key': tenant.apiKey, 'x-timestamp': ts, 'x-signature': sig })
const token = `Bearer ${user.accessToken}`
const profileUrl = `${base}/v1/users/${user.user.id}`

// the floor's work, bare, in this process (scripts/bench/servers/bare-auth-native.ts, bare-users.ts)
const SQL = 'select u.*, t.status as tenant_status from users u left join tenants t on t.id = u.tenant_id where u.id = ?'
const view = (u: Record<string, unknown>) => ({
  id: u.id, tenantId: u.tenant_id, username: u.username, email: u.email, displayName: u.display_name, role: u.role, status: u.status,
  createdAt: new Date(Number(u.created_at)).toISOString(), updatedAt: new Date(Number(u.updated_at)).toISOString(),
})
const secret = new TextEncoder().encode(JWT_SECRET)
const native = new Database(dbPath)
const one = native.prepare(SQL)
function floor(req: Request): Response {
  const auth = req.headers.get('authorization')!
  const [header, payload, signature] = auth.slice(7).split('.')
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest()
  const given = Buffer.from(signature!, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new Error('bad token')
  JSON.parse(Buffer.from(header!, 'base64url').toString())
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
  const u = one.get(claims.sub) as Record<string, unknown>
  return Response.json(view(u))
}

// the JavaScript thread's own CPU time in µs (/proc/self/task/<pid>/schedstat: its time on a CPU, in ns)
const jsThreadMicros = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1000
let jsBest = Infinity

async function cpuPer(fn: () => unknown): Promise<number> {
  let best = Infinity
  jsBest = Infinity
  for (let r = 0; r < ROUNDS; r++) {
    const j0 = jsThreadMicros()
    const t0 = process.cpuUsage()
    for (let i = 0; i < N; i++) {
      const out = fn()
      const res = out instanceof Promise ? await out : out
      // the body read as a server would send it
      if (res instanceof Response) await res.arrayBuffer()
    }
    const d = process.cpuUsage(t0)
    best = Math.min(best, (d.user + d.system) / N)
    jsBest = Math.min(jsBest, (jsThreadMicros() - j0) / N)
  }
  return best
}

const healthRoute = bunFetch(app).routes['/health']!.GET
const cases: Array<[string, () => unknown]> = [
  ['health: Response.json', () => Response.json({ status: 'ok' })],
  ['health: Slipway app.fetch', () => app.fetch(new Request(`${base}/health`))],
  // what a server answers GET /health with: Bun.serve's own router, before the app (src/http/server-routes.ts)
  ['health: Slipway server route', () => healthRoute(new Request(`${base}/health`))],
  ['bearer: floor (HMAC, native get, view, Response.json)', () => floor(new Request(profileUrl, { headers: { authorization: token } }))],
  ['bearer: Slipway app.fetch', () => app.fetch(new Request(profileUrl, { headers: { authorization: token } }))],
]
// signed registrations, each with its own signature and client address (argon2 runs on its own threads; counted too)
let reg = 0
const registration = () => {
  const i = reg++
  const body = JSON.stringify({ username: `inproc_${i}`, email: `inproc${i}@example.com`, password: 'Bench-passw0rd' })
  const at = String(Math.floor(Date.now() / 1000))
  const signature = createHmac('sha256', tenant.apiSecret).update(`POST\n/v1/auth/register\n${at}\n${createHash('sha256').update(body).digest('hex')}`).digest('hex')
  const request = new Request(`${base}/v1/auth/register`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json', 'x-tenant-api-key': tenant.apiKey, 'x-timestamp': at, 'x-signature': signature,
      'x-forwarded-for': `10.9.${(i >> 8) & 255}.${i & 255}`,
    },
  })
  setSocketIp(request, '127.0.0.1')
  regStart = threadMicros()
  return Promise.resolve(app.fetch(request)).then((res) => {
    afterHash += threadMicros() - hashAnswered
    if (res.status !== 201) throw new Error(`registration answered ${res.status}`)
    return res
  })
}
// argon2id at Slipway's cost, one hash at a time, through each library (Bun.password runs it on Bun's own pool too)
const cost = { memoryCost: PASSWORD_HASH_MEMORY_KIB, timeCost: 2 }
let pw = 0
const nodeRsHash = () => argon2Hash(`Bench-passw0rd-${pw++}`, { algorithm: argon2.Algorithm.Argon2id, ...cost, parallelism: 1 })
const bunHash = () => Bun.password.hash(`Bench-passw0rd-${pw++}`, { algorithm: 'argon2id', ...cost })
if (only === 'register') {
  cases.push(['register: Slipway app.fetch, one at a time', registration])
  cases.push(['register: the same, a hash made before answered at once', registration])
  cases.push(['register: the same, a hash made before answered in 10 ms', registration])
  cases.push(['register hash: @node-rs/argon2, one at a time', nodeRsHash])
  cases.push(['register hash: Bun.password (argon2id), one at a time', bunHash])
}
const check = await app.fetch(new Request(profileUrl, { headers: { authorization: token } }))
if (check.status !== 200) throw new Error(`bearer read answered ${check.status}`)
for (const [name, fn] of cases) {
  if (only && !name.startsWith(only)) continue
  if (pick && !name.includes(pick)) continue
  if (only === 'register') madeBefore ||= await nodeRsHash()
  hashStandIn = name.includes('at once') ? 'at once' : name.includes('in 10 ms') ? 'after 10 ms' : 'none'
  const calls0 = hashCalls
  const micros0 = hashCallMicros
  const before0 = beforeHash
  const after0 = afterHash
  const all = await cpuPer(fn)
  // registration's argon2 runs on other threads: its JavaScript thread's share is shown beside the process's
  console.log(`${name.padEnd(56)} ${all.toFixed(2)} µs CPU/request${name.startsWith('register') ? `, ${jsBest.toFixed(0)} µs on the JS thread` : ''}`)
  if (name.startsWith('register: ')) {
    if (hashCalls - calls0 !== N * ROUNDS) throw new Error(`${hashCalls - calls0} hash calls timed for ${N * ROUNDS} registrations`)
    const callMicros = (hashCallMicros - micros0) / (N * ROUNDS)
    if (hashStandIn === 'none') console.log(`${'  of which the synchronous hash call (exact thread clock)'.padEnd(56)} ${callMicros.toFixed(0)} µs on the JS thread (mean)`)
    const split = (x: number) => (x / (N * ROUNDS)).toFixed(0)
    console.log(`${'  before the hash call / from its answer on (exact)'.padEnd(56)} ${split(beforeHash - before0)} / ${split(afterHash - after0)} µs on the JS thread (mean)`)
  }
}
logger.flush()
deps.database.close()
native.close()
// KEEP=1 keeps the database (its path and the user's id printed) for looking at the rows afterwards
if (process.env.KEEP) console.log(dbPath, user.user.id)
else rmSync(dir, { recursive: true, force: true })
