/**
 * Tenants on databases of their own (TENANT_PLACEMENT, docs/scaling.md), measured: the write
 * rate of three tenants creating wallets at once (`POST /v1/wallets/`, a key generated, sealed
 * and written in one transaction; wrk, BENCH_CONNECTIONS per tenant, all three loads at the
 * same time), through one Slipway process, in three shapes:
 *
 * - `one primary`: the three tenants on one sqld's one database (topology b today);
 * - `3 namespaces, 1 sqld`: each tenant on its own namespace of one sqld;
 * - `2 + 1 on 2 sqld`: tenants a and b on two namespaces of one sqld, c on a second sqld.
 *
 * The shapes alternate, BENCH_ROUNDS rounds, each on fresh servers; the figures are medians.
 * Each run counts the wallets in every database afterwards (read through sqld), so a write
 * that landed in the wrong database, or not at all, shows.
 *
 *   bun scripts/bench/placement.ts     (BENCH_SECONDS=5, BENCH_ROUNDS=3, BENCH_CONNECTIONS=16)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { signedHeaders } from '../../tests/helpers/client'
import { startSqld, type Sqld } from '../../tests/helpers/sqld'
import { startNamespacedSqld, type NamespacedSqld } from '../../tests/helpers/sqld-namespaces'
import { load, median, SECONDS, spawnServer, type Result, type Server } from './lib'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16)
const LABELS = ['a', 'b', 'c'] as const
type Label = typeof LABELS[number]
const ADMIN = { username: 'bench', password: 'Bench-passw0rd' }
const ENV = {
  SLIPWAY_ROLE: 'api', LOG_LEVEL: 'warn', MASTER_KEY: Buffer.alloc(32, 23).toString('base64'), JWT_SECRET: 'bench-placement-jwt-secret-0123456789',
  BOOTSTRAP_ADMIN_USERNAME: ADMIN.username, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
}

interface Tenant { id: string; apiKey: string; apiSecret: string }
interface Run {
  /** wallets created per second, per tenant (wrk's 2xx answers over its duration) */
  perTenant: Record<Label, number>
  /** the primary (sqld process) each tenant's database is on */
  primaryOf: Record<Label, string>
  p99: number
  errors: number
  /** wallets counted afterwards in each database, read through sqld */
  counted: Record<string, number>
}

const post = async (url: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  (await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })).json() as Promise<any>

async function createTenants(server: Server): Promise<Record<Label, Tenant>> {
  const admin = (await post(server.url, '/v1/auth/admin/login', ADMIN)).accessToken
  const out = {} as Record<Label, Tenant>
  for (const l of LABELS) out[l] = await post(server.url, '/v1/admin/tenants', { name: `bench-${l}` }, { authorization: `Bearer ${admin}` })
  return out
}

async function register(server: Server, tenant: Tenant, label: Label): Promise<string> {
  const body = JSON.stringify({ username: `bench_${label}`, email: `bench_${label}@example.com`, password: 'Bench-passw0rd-1' })
  const res = await fetch(server.url + '/v1/auth/register', {
    method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(tenant, 'POST', '/v1/auth/register', body, String(Math.floor(Date.now() / 1000))) }, body,
  })
  if (res.status !== 201) throw new Error(`register ${label}: ${res.status} ${await res.text()}`)
  return `Bearer ${((await res.json()) as { accessToken: string }).accessToken}`
}

/** The three wallet loads at once; each tenant's figure is its own wrk's. */
async function walletLoads(server: Server, tokens: Record<Label, string>): Promise<Record<Label, Result>> {
  const body = JSON.stringify({ chain: 'ethereum', name: 'bench' })
  const results = await Promise.all(LABELS.map((l) => load(`wallets ${l}`, `${server.url}/v1/wallets/`, {
    connections: CONNECTIONS, method: 'POST', body, headers: { 'content-type': 'application/json', authorization: tokens[l] },
  })))
  return Object.fromEntries(LABELS.map((l, i) => [l, results[i]!])) as Record<Label, Result>
}

const okRate = (r: Result) => r.rps * (1 - r.non2xx / Math.max(1, r.rps * SECONDS))

async function countWallets(url: string, tenantId?: string): Promise<number> {
  const c = createClient({ url })
  try {
    const q = tenantId ? { sql: 'SELECT count(*) AS n FROM wallets WHERE tenant_id = ?', args: [tenantId] } : 'SELECT count(*) AS n FROM wallets'
    return Number((await c.execute(q)).rows[0]!.n)
  } finally {
    c.close()
  }
}

function summary(results: Record<Label, Result>, primaryOf: Record<Label, string>, counted: Record<string, number>): Run {
  return {
    perTenant: Object.fromEntries(LABELS.map((l) => [l, okRate(results[l])])) as Record<Label, number>,
    primaryOf,
    p99: Math.max(...LABELS.map((l) => results[l].p99)),
    errors: LABELS.reduce((n, l) => n + results[l].errors + results[l].non2xx, 0),
    counted,
  }
}

async function onePrimary(dir: string): Promise<Run> {
  const sqld = await startSqld()
  const server = await spawnServer(['src/index.ts'], { ...ENV, DATABASE_URL: sqld.url, DATA_DIR: join(dir, 'one') })
  try {
    const tenants = await createTenants(server)
    const tokens = Object.fromEntries(await Promise.all(LABELS.map(async (l) => [l, await register(server, tenants[l], l)]))) as Record<Label, string>
    const results = await walletLoads(server, tokens)
    const counted: Record<string, number> = {}
    for (const l of LABELS) counted[`primary 1 (${l})`] = await countWallets(sqld.url, tenants[l].id)
    return summary(results, { a: 'primary 1', b: 'primary 1', c: 'primary 1' }, counted)
  } finally {
    server.proc.kill('SIGTERM')
    await server.proc.exited
    await sqld.stop()
  }
}

/** `split`: c on a second sqld; otherwise all three on namespaces of one. */
async function placed(dir: string, round: number, split: boolean): Promise<Run> {
  const ns: NamespacedSqld = await startNamespacedSqld()
  const second: Sqld | undefined = split ? await startSqld() : undefined
  const controlDir = mkdtempSync(join(dir, 'control-'))
  const control = { ...ENV, DATABASE_URL: `file:${join(controlDir, 'control.db')}` }
  let server = await spawnServer(['src/index.ts'], control)
  try {
    const tenants = await createTenants(server)
    server.proc.kill('SIGTERM')
    await server.proc.exited
    const urls = {} as Record<Label, string>
    for (const l of LABELS) urls[l] = l === 'c' && second ? second.url : await ns.create(`r${round}-${l}`)
    const placement = Object.fromEntries(LABELS.map((l) => [tenants[l].id, urls[l]]))
    server = await spawnServer(['src/index.ts'], { ...control, TENANT_PLACEMENT: JSON.stringify(placement) })
    const tokens = Object.fromEntries(await Promise.all(LABELS.map(async (l) => [l, await register(server, tenants[l], l)]))) as Record<Label, string>
    const results = await walletLoads(server, tokens)
    const primaryOf = { a: 'primary 1', b: 'primary 1', c: second ? 'primary 2' : 'primary 1' }
    const counted: Record<string, number> = { control: await countWallets(control.DATABASE_URL) }
    for (const l of LABELS) counted[`${primaryOf[l]} (${l}, own database)`] = await countWallets(urls[l])
    return summary(results, primaryOf, counted)
  } finally {
    server.proc.kill('SIGTERM')
    await server.proc.exited
    await ns.stop()
    await second?.stop()
  }
}

const shapes: Array<[string, (dir: string, round: number) => Promise<Run>]> = [
  ['one primary', (dir) => onePrimary(dir)],
  ['3 namespaces, 1 sqld', (dir, r) => placed(dir, r, false)],
  ['2 + 1 on 2 sqld', (dir, r) => placed(dir, r, true)],
]
const runs = new Map<string, Run[]>(shapes.map(([name]) => [name, []]))
const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-placement-'))
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, run] of shapes) {
      const r = await run(dir, round)
      runs.get(name)!.push(r)
      const total = LABELS.reduce((n, l) => n + r.perTenant[l], 0)
      console.log(`round ${round} ${name.padEnd(22)} total ${total.toFixed(0)}/s  ${LABELS.map((l) => `${l} ${r.perTenant[l].toFixed(0)}`).join('  ')}  p99 ${r.p99.toFixed(0)} ms  errors ${r.errors}  wallets counted: ${JSON.stringify(r.counted)}`)
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

console.log(`\nwallet writes per second, medians of ${ROUNDS} rounds (${SECONDS} s each, ${CONNECTIONS} connections per tenant, one Slipway process)`)
console.log(`${'shape'.padEnd(24)}${'tenant a'.padEnd(10)}${'tenant b'.padEnd(10)}${'tenant c'.padEnd(10)}${'per primary'.padEnd(30)}${'total'.padEnd(8)}${'vs one primary'.padEnd(16)}p99 ms`)
const base = median(runs.get('one primary')!.map((r) => LABELS.reduce((n, l) => n + r.perTenant[l], 0)))
for (const [name] of shapes) {
  const rs = runs.get(name)!
  const tenant = (l: Label) => median(rs.map((r) => r.perTenant[l]))
  const primaries = [...new Set(LABELS.map((l) => rs[0]!.primaryOf[l]))]
  const perPrimary = primaries.map((p) => `${p}: ${median(rs.map((r) => LABELS.filter((l) => r.primaryOf[l] === p).reduce((n, l) => n + r.perTenant[l], 0))).toFixed(0)}`).join(', ')
  const total = median(rs.map((r) => LABELS.reduce((n, l) => n + r.perTenant[l], 0)))
  console.log(`${name.padEnd(24)}${tenant('a').toFixed(0).padEnd(10)}${tenant('b').toFixed(0).padEnd(10)}${tenant('c').toFixed(0).padEnd(10)}${perPrimary.padEnd(30)}`
    + `${total.toFixed(0).padEnd(8)}${(total / base).toFixed(2).padEnd(16)}${median(rs.map((r) => r.p99)).toFixed(0)}`)
}
