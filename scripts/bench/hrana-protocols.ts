/**
 * Hrana over HTTP against Hrana over WebSocket (@libsql/client with http:// and ws:// on the same
 * sqld): single inserts, a three-statement interactive write transaction, and the same three
 * statements as one batch ('write'), BENCH_OPS each (transactions 1 at a time, as Slipway's gate runs them; the rest 16 at a time), the two protocols alternating
 * for BENCH_ROUNDS rounds (medians). What Slipway's remote and replica shapes pay per statement.
 *
 * Then what sqld charges per request, on Slipway's schema (its migrations applied): the CPU time of sqld (from /proc)
 * and of this process per batch, a two-insert write batch and a one-read batch, sent as @libsql/client sends them (a
 * stream, so a fresh sqld connection, per batch) and on streams held open (src/db/held-streams.ts) over HTTP and over
 * WebSocket, alternating for BENCH_ROUNDS rounds (medians).
 *
 *   bun scripts/bench/hrana-protocols.ts        (BENCH_OPS=1500, BENCH_ROUNDS=3)
 */
import { createClient, type Client } from '@libsql/client'
import { startSqld } from '../../tests/helpers/sqld'
import { drizzle } from 'drizzle-orm/libsql'
import { cpuMs, median } from './lib'
import { applyMigrations } from '../../src/db/migrate'
import { StreamPool } from '../../src/db/held-streams'

const OPS = Number(process.env.BENCH_OPS ?? 1500)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const sqld = await startSqld()
let seq = 0
let busy = 0
async function rate(concurrency: number, one: () => Promise<unknown>) {
  let left = OPS
  const t0 = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (left-- > 0) {
      // sqld's write lock refuses a writer past its busy timeout: sent again, as Slipway does (and counted)
      for (;;) {
        try {
          await one()
          break
        } catch (err) {
          if (!/SQLITE_BUSY/.test(String((err as Error).message))) throw err
          busy++
        }
      }
    }
  }))
  return OPS / ((performance.now() - t0) / 1000)
}
const ins = () => ({ sql: 'insert into p (k, v) values (?, ?)', args: [`k${seq++}`, 'x'.repeat(200)] })
const scenarios: Array<[string, (c: Client) => Promise<unknown>]> = [
  ['single insert', (c) => c.execute(ins())],
  ['3 statements, interactive tx', async (c) => {
    const tx = await c.transaction('write')
    try {
      await tx.execute({ sql: 'select count(*) from p where k > ?', args: ['k5'] })
      await tx.execute(ins())
      await tx.execute(ins())
      await tx.commit()
    } finally {
      tx.close()
    }
  }],
  ['3 statements, one batch', (c) => c.batch([{ sql: 'select count(*) from p where k > ?', args: ['k5'] }, ins(), ins()], 'write')],
]
try {
  await createClient({ url: sqld.url }).execute('create table p (k text primary key, v text not null)')
  const clients: Record<string, Client> = { http: createClient({ url: sqld.url }), ws: createClient({ url: sqld.url.replace('http:', 'ws:') }) }
  console.log(`${'scenario'.padEnd(42)}${'http/s'.padEnd(10)}${'ws/s'.padEnd(10)}ws / http`)
  for (const [name, run] of scenarios) {
    const r: Record<string, number[]> = { http: [], ws: [] }
    // transactions one at a time per process (Slipway's gate: overlapping ones make each other wait on the server's lock)
    const concurrency = name.includes('interactive') ? 1 : 16
    for (let k = 0; k < ROUNDS; k++) for (const p of ['http', 'ws']) r[p]!.push(await rate(concurrency, () => run(clients[p]!)))
    const h = median(r.http!)
    const w = median(r.ws!)
    console.log(`${(name + (name.includes('interactive') ? ' (1 at a time)' : ' (16 at a time)')).padEnd(42)}${h.toFixed(0).padEnd(10)}${w.toFixed(0).padEnd(10)}${(w / h).toFixed(2)}`)
  }
  for (const c of Object.values(clients)) c.close()
  console.log(`(${busy} statements refused SQLITE_BUSY and sent again)`)

  // what sqld charges per request: a stream per batch against streams held open
  const schema = createClient({ url: sqld.url })
  await applyMigrations(drizzle(schema))
  const pools = { http: new StreamPool({ url: sqld.url, timeoutMs: 5000, protocol: 'http' }), ws: new StreamPool({ url: sqld.url, timeoutMs: 5000, protocol: 'ws' }) }
  const ways: Array<[string, (stmts: Array<{ sql: string; args: unknown[] }>, mode: 'write' | 'deferred') => Promise<unknown>]> = [
    ['a stream per batch', (stmts, mode) => clients.http!.batch(stmts as never, mode)],
    ['held streams, HTTP', (stmts, mode) => pools.http.batch(stmts as never, mode)],
    ['held streams, WebSocket', (stmts, mode) => pools.ws.batch(stmts as never, mode)],
  ]
  Object.assign(clients, { http: createClient({ url: sqld.url }) })
  const shapes: Array<[string, number, () => Array<{ sql: string; args: unknown[] }>, 'write' | 'deferred']> = [
    ['2 inserts, one write batch (1 at a time)', 1, () => [ins(), ins()], 'write'],
    ['1 read, one read batch (4 at a time)', 4, () => [{ sql: 'select id, name from tenants where id = ?', args: ['none'] }], 'deferred'],
  ]
  console.log(`\nCPU ms per batch, sqld + this process (Slipway's schema)\n${'shape'.padEnd(44)}${ways.map(([w]) => w.padEnd(26)).join('')}`)
  for (const [name, concurrency, stmts, mode] of shapes) {
    const per: Record<string, Array<[number, number]>> = {}
    for (let k = 0; k < ROUNDS; k++) {
      for (const [way, send] of ways) {
        const [db0, me0] = [await cpuMs(sqld.pid), process.cpuUsage()]
        await rate(concurrency, () => send(stmts(), mode))
        const [db1, me1] = [await cpuMs(sqld.pid), process.cpuUsage(me0)]
        ;(per[way] ??= []).push([(db1! - db0!) / OPS, (me1.user + me1.system) / 1000 / OPS])
      }
    }
    console.log(`${name.padEnd(44)}${ways.map(([w]) => `${median(per[w]!.map((x) => x[0])).toFixed(2)} + ${median(per[w]!.map((x) => x[1])).toFixed(2)}`.padEnd(26)).join('')}`)
  }
  pools.http.close()
  pools.ws.close()
  schema.close()
  clients.http!.close()
} finally {
  await sqld.stop()
}
