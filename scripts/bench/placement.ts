/**
 * Tenants on databases of their own (TENANT_PLACEMENT, docs/scaling.md), measured: the write
 * rate of three tenants creating wallets at once (`POST /v1/wallets/`, a key generated, sealed
 * and written in one transaction; wrk, BENCH_CONNECTIONS per tenant, the three loads at the
 * same time) through one Slipway process, in three shapes:
 *
 * - `one primary`: the three tenants in one database of one sqld (topology b today);
 * - `3 namespaces, 1 sqld`: each tenant in its own namespace of one sqld;
 * - `2 + 1 on 2 sqld`: tenants a and b in two namespaces of one sqld, c in a second sqld.
 *
 * Every sqld runs with --enable-namespaces, so the shapes differ only in where the tenants are.
 * The shapes alternate, BENCH_ROUNDS rounds, each on fresh servers; figures are medians. Beside
 * the rates, the CPU time each sqld and the Slipway process used per wallet written: on a shared
 * 2-core machine the rates move with everything else running, the CPU per write much less, and
 * it says what one primary on a machine of its own could take. Each run counts the wallets in
 * every database afterwards (read through sqld), so a write in the wrong database shows.
 *
 *   bun scripts/bench/placement.ts     (BENCH_SECONDS=5, BENCH_ROUNDS=3, BENCH_CONNECTIONS=16)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { signedHeaders } from '../../tests/helpers/client'
import { startNamespacedSqld, type NamespacedSqld } from '../../tests/helpers/sqld-namespaces'
import { cpuMs, load, median, SECONDS, spawnServer, type Result, type Server } from './lib'

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
  /** wallets created per second, per tenant (wrk's 2xx answers over the load's length) */
  perTenant: Record<Label, number>
  /** the primary (sqld process) each tenant's database is on */
  primaryOf: Record<Label, string>
  p99: number
  errors: number
  /** CPU ms per wallet written: of each primary, and of the Slipway process */
  cpuPerWrite: Record<string, number>
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

async function countWallets(url: string, tenantId: string): Promise<number> {
  const c = createClient({ url })
  try {
    return Number((await c.execute({ sql: 'SELECT count(*) AS n FROM wallets WHERE tenant_id = ?', args: [tenantId] })).rows[0]!.n)
  } finally {
    c.close()
  }
}

/**
 * One shape: the control database in `controlUrl`, each tenant's in `urls` (all equal to the
 * control's for `one primary`, which places nothing), `primaries` the sqld processes by name.
 */
async function measure(controlUrl: string, place: (tenants: Record<Label, Tenant>) => Promise<Record<Label, string> | null>,
  primaries: Record<string, NamespacedSqld>, primaryOf: Record<Label, string>, dataDir: string): Promise<Run> {
  const control = { ...ENV, DATABASE_URL: controlUrl, DATA_DIR: dataDir }
  let server = await spawnServer(['src/index.ts'], control)
  try {
    const tenants = await createTenants(server)
    const urls = await place(tenants)
    if (urls) {
      // tenants are placed after they exist: the operator names their databases and restarts (docs/scaling.md)
      server.proc.kill('SIGTERM')
      await server.proc.exited
      server = await spawnServer(['src/index.ts'], { ...control, TENANT_PLACEMENT: JSON.stringify(Object.fromEntries(LABELS.map((l) => [tenants[l].id, urls[l]]))) })
    }
    const tokens = Object.fromEntries(await Promise.all(LABELS.map(async (l) => [l, await register(server, tenants[l], l)]))) as Record<Label, string>
    const pids: Record<string, number> = { slipway: server.proc.pid, ...Object.fromEntries(Object.entries(primaries).map(([name, s]) => [name, s.pid])) }
    const before = Object.fromEntries(await Promise.all(Object.entries(pids).map(async ([k, pid]) => [k, (await cpuMs(pid)) ?? NaN])))
    const body = JSON.stringify({ chain: 'ethereum', name: 'bench' })
    const results = await Promise.all(LABELS.map((l) => load(`wallets ${l}`, `${server.url}/v1/wallets/`, {
      connections: CONNECTIONS, method: 'POST', body, headers: { 'content-type': 'application/json', authorization: tokens[l] },
    })))
    const after = Object.fromEntries(await Promise.all(Object.entries(pids).map(async ([k, pid]) => [k, (await cpuMs(pid)) ?? NaN])))
    const byLabel = Object.fromEntries(LABELS.map((l, i) => [l, results[i]!])) as Record<Label, Result>
    const counted: Record<string, number> = {}
    for (const l of LABELS) counted[`${primaryOf[l]}/${l}`] = await countWallets(urls ? urls[l] : controlUrl, tenants[l].id)
    if (urls) counted['control'] = (await Promise.all(LABELS.map((l) => countWallets(controlUrl, tenants[l].id)))).reduce((a, b) => a + b, 0)
    const written = (p: string) => LABELS.filter((l) => p === 'slipway' || primaryOf[l] === p).reduce((n, l) => n + counted[`${primaryOf[l]}/${l}`]!, 0)
    const perTenant = Object.fromEntries(LABELS.map((l) => [l, (byLabel[l].rps * SECONDS - byLabel[l].non2xx) / SECONDS])) as Record<Label, number>
    return {
      perTenant, primaryOf,
      p99: Math.max(...LABELS.map((l) => byLabel[l].p99)),
      errors: LABELS.reduce((n, l) => n + byLabel[l].errors + byLabel[l].non2xx, 0),
      // wallets counted include the few registered before the load: none (registration makes no wallet here)
      cpuPerWrite: Object.fromEntries(Object.keys(pids).map((k) => [k, (after[k]! - before[k]!) / Math.max(1, written(k))])),
      counted,
    }
  } finally {
    server.proc.kill('SIGTERM')
    await server.proc.exited
  }
}

async function onePrimary(dir: string): Promise<Run> {
  const one = await startNamespacedSqld()
  try {
    return await measure(await one.create('one'), async () => null, { 'primary 1': one }, { a: 'primary 1', b: 'primary 1', c: 'primary 1' }, join(dir, 'one'))
  } finally {
    await one.stop()
  }
}

async function placed(dir: string, round: number, split: boolean): Promise<Run> {
  const first = await startNamespacedSqld()
  const second = split ? await startNamespacedSqld() : undefined
  try {
    const controlDir = mkdtempSync(join(dir, 'control-'))
    const primaryOf = { a: 'primary 1', b: 'primary 1', c: second ? 'primary 2' : 'primary 1' }
    const place = async () => ({ a: await first.create(`r${round}-a`), b: await first.create(`r${round}-b`), c: await (second ?? first).create(`r${round}-c`) })
    return await measure(`file:${join(controlDir, 'control.db')}`, place, { 'primary 1': first, ...(second ? { 'primary 2': second } : {}) }, primaryOf, controlDir)
  } finally {
    await first.stop()
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
const total = (r: Run) => LABELS.reduce((n, l) => n + r.perTenant[l], 0)
const cpuText = (c: Record<string, number>) => Object.entries(c).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, run] of shapes) {
      const r = await run(dir, round)
      runs.get(name)!.push(r)
      console.log(`round ${round} ${name.padEnd(22)} total ${total(r).toFixed(0)}/s  ${LABELS.map((l) => `${l} ${r.perTenant[l].toFixed(0)}`).join('  ')}  p99 ${r.p99.toFixed(0)} ms`
        + `  errors ${r.errors}  CPU ms per write: ${cpuText(r.cpuPerWrite)}  wallets counted: ${JSON.stringify(r.counted)}`)
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

console.log(`\nwallet writes per second, medians of ${ROUNDS} rounds (${SECONDS} s each, ${CONNECTIONS} connections per tenant, one Slipway process)`)
console.log(`${'shape'.padEnd(24)}${'a'.padEnd(6)}${'b'.padEnd(6)}${'c'.padEnd(6)}${'per primary'.padEnd(32)}${'total'.padEnd(7)}${'vs one'.padEnd(8)}${'p99 ms'.padEnd(8)}CPU ms per write`)
const base = median(runs.get('one primary')!.map(total))
for (const [name] of shapes) {
  const rs = runs.get(name)!
  const tenant = (l: Label) => median(rs.map((r) => r.perTenant[l])).toFixed(0).padEnd(6)
  const primaries = [...new Set(LABELS.map((l) => rs[0]!.primaryOf[l]))]
  const perPrimary = primaries.map((p) => `${p}: ${median(rs.map((r) => LABELS.filter((l) => r.primaryOf[l] === p).reduce((n, l) => n + r.perTenant[l], 0))).toFixed(0)}`).join(', ')
  const cpu = Object.fromEntries(Object.keys(rs[0]!.cpuPerWrite).map((k) => [k, median(rs.map((r) => r.cpuPerWrite[k]!))]))
  console.log(`${name.padEnd(24)}${tenant('a')}${tenant('b')}${tenant('c')}${perPrimary.padEnd(32)}${median(rs.map(total)).toFixed(0).padEnd(7)}`
    + `${(median(rs.map(total)) / base).toFixed(2).padEnd(8)}${median(rs.map((r) => r.p99)).toFixed(0).padEnd(8)}${cpuText(cpu)}`)
}
