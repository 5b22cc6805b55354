/**
 * What a pull costs an embedded replica (issue 40), alone: T write transactions of G rows on a sqld
 * primary, then one pull on a replica; the pull's wall time, its CPU (this process, all threads) and the
 * frames it brought, per pulled transaction. PULL_MODE=sync|async (libsql's synchronous sync() or the
 * promise API's, on libSQL's own thread); PULL_DIR the replica's folder (e.g. /dev/shm). Run under `strace -f -c -e trace=fsync,fdatasync` for the syncs.
 *
 *   bun scripts/bench/pull-cost.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import Database from 'libsql'
import DatabaseAsync from 'libsql/promise'
import { startSqld } from '../../tests/helpers/sqld'

const T = Number(process.env.PULL_TXNS ?? 200)
const G = Number(process.env.PULL_ROWS ?? 1)
const MODE = process.env.PULL_MODE ?? 'sync'
const PRAGMA = process.env.PULL_PRAGMA
const sqld = await startSqld()
const dir = mkdtempSync(join(process.env.PULL_DIR ?? tmpdir(), 'slipway-pull-cost-'))
try {
  const primary = createClient({ url: sqld.url })
  await primary.batch([
    'create table w (id text primary key, tenant text not null, user text not null, address text not null, sealed blob not null, created_at integer not null)',
    'create index w_tenant on w (tenant, created_at)', 'create unique index w_addr on w (tenant, address)', 'create index w_user on w (user)',
  ], 'write')
  const path = join(dir, 'replica.db')
  const Ctor = Database as unknown as new (p: string, o: object) => { sync(): any; exec(s: string): any; close(): void }
  const replica = new Ctor(path, { syncUrl: sqld.url })
  // the promise API's sync on the same native database, as src/db/replica.ts does (its own constructor fails in libsql 0.5.29)
  if (MODE === 'async') replica.sync = (DatabaseAsync.prototype as any).sync
  if (PRAGMA) await replica.exec(PRAGMA)
  await replica.sync()
  const row = () => ({ sql: 'insert into w values (?, ?, ?, ?, ?, ?)', args: [crypto.randomUUID(), 't1', crypto.randomUUID(), '0x' + crypto.randomUUID().replace(/-/g, '') + '00000000', new Uint8Array(180).fill(7), Date.now()] })
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < T; i++) await primary.batch(Array.from({ length: G }, row), 'write')
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    const r = await replica.sync()
    const ms = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    console.log(`${MODE}${PRAGMA ? ` (${PRAGMA})` : ''}: ${T} txns x ${G} rows: ${r.frames_synced} frames (${(r.frames_synced / T).toFixed(1)}/txn), ` +
      `${ms.toFixed(0)} ms wall (${(ms / T).toFixed(3)} ms/txn), CPU ${((cpu.user + cpu.system) / 1000 / T).toFixed(3)} ms/txn`)
  }
  replica.close()
  primary.close()
} finally {
  await sqld.stop()
  rmSync(dir, { recursive: true, force: true })
}
