/**
 * Replication benchmark: the same write paths on a local file, on a remote primary
 * (sqld over HTTP on 127.0.0.1) and through an embedded replica of it, and whether the
 * in-process write gate should stay in front of a server.
 *
 * 1. Database layer, in process: BENCH_TX small read-then-insert write transactions,
 *    16 at a time, through `database.write` (the gate) for each shape; and against the
 *    server, the same transactions on the raw client with no gate (overlapping).
 * 2. Over HTTP, a Slipway process per shape (SLIPWAY_ROLE=api): signed registrations
 *    (argon2 hash, user and session rows, replay row) and signed GETs of
 *    /v1/tenant/public (the replay row is the only write), 8 at a time.
 *
 *   bun scripts/bench/replication.ts     (BENCH_TX=400, BENCH_REG=120, BENCH_SIGNED=600)
 *
 * The server runs on the same machine, so the replica's and the remote's figures hold
 * no network latency: they are the cost of the protocol and the extra process.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { sql } from 'drizzle-orm'
import { openDatabase, type Database } from '../../src/db/client'
import { applyMigrations } from '../../src/db/migrate'
import { signedHeaders } from '../../tests/helpers/client'
import { startSqld } from '../../tests/helpers/sqld'
import { spawnServer } from './lib'

const TX = Number(process.env.BENCH_TX ?? 400)
const REG = Number(process.env.BENCH_REG ?? 120)
const SIGNED = Number(process.env.BENCH_SIGNED ?? 600)
const MASTER_KEY = Buffer.alloc(32, 21).toString('base64')
const ADMIN = { username: 'bench', password: 'Bench-passw0rd' }

async function pool(n: number, concurrency: number, one: (i: number) => Promise<void>) {
  let next = 0
  const t0 = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let i = next++; i < n; i = next++) await one(i)
  }))
  return n / ((performance.now() - t0) / 1000)
}

const sqld = await startSqld()
const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-repl-'))
const rows: Array<[string, string, number]> = []
const servers: Array<ReturnType<typeof Bun.spawn>> = []
try {
  // 1. database layer
  const ddl = 'create table if not exists bench_rows (id integer primary key, k text not null)'
  const shapes: Array<[string, () => Promise<Database>]> = [
    ['local file', () => openDatabase({ url: `file:${join(dir, 'local.db')}`, migrate: async () => {} })],
    ['remote primary (http)', () => openDatabase({ url: sqld.url, migrate: async () => {} })],
    ['embedded replica', () => openDatabase({ url: `file:${join(dir, 'replica.db')}`, syncUrl: sqld.url, migrate: async () => {} })],
  ]
  await createClient({ url: sqld.url }).execute(ddl)
  for (const [name, open] of shapes) {
    const d = await open()
    await d.client.execute(ddl)
    const rate = await pool(TX, 16, async (i) => {
      await d.write(async (tx) => {
        await tx.run(sql`select count(*) from bench_rows where k = ${String(i % 10)}`)
        await tx.run(sql`insert into bench_rows (k) values (${String(i % 10)})`)
      })
    })
    rows.push(['db: write transactions, gated', name, rate])
    d.close()
  }
  // the same against the server with no gate: transactions from one process overlap
  const raw = createClient({ url: sqld.url })
  let failed = 0
  const ungated = await pool(TX, 16, async (i) => {
    try {
      const tx = await raw.transaction('write')
      await tx.execute({ sql: 'select count(*) from bench_rows where k = ?', args: [String(i % 10)] })
      await tx.execute({ sql: 'insert into bench_rows (k) values (?)', args: [String(i % 10)] })
      await tx.commit()
    } catch {
      failed++
    }
  })
  rows.push([`db: write transactions, NOT gated (${failed} failed)`, 'remote primary (http)', ungated])
  raw.close()

  // 2. over HTTP: one Slipway process per shape, each on a fresh database (a second sqld for the server shapes)
  const httpShapes: Array<[string, () => Promise<Record<string, string>>]> = [
    ['local file', async () => ({ DATABASE_URL: `file:${join(dir, 'http-local', 'slipway.db')}` })],
    ['embedded replica', async () => ({ DATABASE_URL: `file:${join(dir, 'http-replica', 'replica.db')}`, DATABASE_SYNC_URL: sqld.url })],
    ['remote primary (http)', async () => ({ DATABASE_URL: sqld.url, DATA_DIR: join(dir, 'http-remote') })],
  ]
  for (const [name, envFor] of httpShapes) {
    const { url, proc } = await spawnServer(['src/index.ts'], {
      ...(await envFor()), SLIPWAY_ROLE: 'api', LOG_LEVEL: 'silent', MASTER_KEY, JWT_SECRET: 'bench-replication-jwt-secret-0123456789',
      BOOTSTRAP_ADMIN_USERNAME: ADMIN.username, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      // registrations are limited per client address: each one comes from its own (forwarded) address
      TRUSTED_PROXIES: '127.0.0.1',
    })
    servers.push(proc)
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) => fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
    const admin = ((await (await post('/v1/auth/admin/login', ADMIN)).json()) as { accessToken: string }).accessToken
    const tenant = (await (await post('/v1/admin/tenants', { name: `bench ${name}` }, { authorization: `Bearer ${admin}` })).json()) as { apiKey: string; apiSecret: string }
    const tag = name.replace(/\W/g, '').slice(0, 8)
    let bad = 0
    const reg = await pool(REG, 8, async (i) => {
      const body = JSON.stringify({ username: `u${tag}${i}`, email: `u${i}@${tag}.example.com`, password: 'Bench-passw0rd-1' })
      const res = await fetch(url + '/v1/auth/register', { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(tenant, 'POST', '/v1/auth/register', body, String(Math.floor(Date.now() / 1000))), 'x-forwarded-for': `10.9.${i >> 8}.${i & 255}` }, body })
      if (res.status !== 201) bad++
      await res.arrayBuffer()
    })
    rows.push([`http: signed registrations (${bad} not 201)`, name, reg])
    bad = 0
    const signed = await pool(SIGNED, 8, async (i) => {
      const path = `/v1/tenant/public?n=${i}`
      const res = await fetch(url + path, { headers: signedHeaders(tenant, 'GET', path, '', String(Math.floor(Date.now() / 1000))) })
      if (res.status !== 200) bad++
      await res.arrayBuffer()
    })
    rows.push([`http: signed GETs, replay row written (${bad} not 200)`, name, signed])
    proc.kill('SIGTERM')
    await proc.exited
  }
} finally {
  for (const p of servers) p.kill(9)
  await sqld.stop()
  rmSync(dir, { recursive: true, force: true })
}

const byScenario = new Map<string, Map<string, number>>()
for (const [scenario, shape, rate] of rows) {
  const key = scenario.replace(/ \(.*\)$/, '')
  if (!byScenario.has(key)) byScenario.set(key, new Map())
  byScenario.get(key)!.set(shape, rate)
}
console.log(`\n${'scenario'.padEnd(58)}${'shape'.padEnd(24)}${'per second'.padEnd(12)}ratio to local file`)
for (const [scenario, shape, rate] of rows) {
  const local = byScenario.get(scenario.replace(/ \(.*\)$/, ''))?.get('local file')
  const ratio = local && shape !== 'local file' ? `${(rate / local).toFixed(2)}` : ''
  console.log(`${scenario.padEnd(58)}${shape.padEnd(24)}${rate.toFixed(0).padEnd(12)}${ratio}`)
}
const gated = byScenario.get('db: write transactions, gated')?.get('remote primary (http)')
const notGated = rows.find((r) => r[0].startsWith('db: write transactions, NOT gated'))?.[2]
if (gated && notGated) console.log(`\nagainst the server, gated / not gated: ${(gated / notGated).toFixed(2)}`)
