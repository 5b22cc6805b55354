/**
 * sqld answers SQLITE_BUSY at once to a writer that arrives while it checkpoints its log (every 5 s
 * with `--checkpoint-interval-s 5`, longer the more was written): a write batch is sent again, and an
 * interactive transaction refused at its BEGIN runs again (src/db/busy.ts). Before, the transaction's
 * request answered 500 (seen in tests/agent-payments/two-processes on a loaded machine: 2 runs of 5).
 * Here a raw client writes 800 KB batches for as long as it takes sqld to refuse one of them (so a
 * checkpoint ran into writes), while transactions through `database.write` run one after another:
 * every one commits.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createClient } from '@libsql/client'
import { sql } from 'drizzle-orm'
import { openDatabase, type Database } from '@/db/client'
import { isBusy } from '@/db/busy'
import { startSqld, type Sqld } from '@tests/helpers/sqld'

let sqld: Sqld
let d: Database

beforeAll(async () => {
  sqld = await startSqld()
  d = await openDatabase({ url: sqld.url, migrate: async () => {}, timeoutMs: 5000 })
}, 30_000)
afterAll(async () => {
  d?.close()
  await sqld?.stop()
})

test('transactions refused sqld\'s write lock at BEGIN during its checkpoints run again and commit', async () => {
  const raw = createClient({ url: sqld.url })
  await raw.execute('create table burst (id integer primary key, v blob)')
  await raw.execute('create table tx_rows (id integer primary key, n integer not null)')
  const page = new Uint8Array(4000)
  let refusedBursts = 0
  let stop = false
  const burst = (async () => {
    while (!stop) {
      try {
        await raw.batch(Array.from({ length: 200 }, () => ({ sql: 'insert into burst (v) values (?)', args: [page] })), 'write')
      } catch (err) {
        if (!isBusy(err)) throw err
        refusedBursts++
      }
    }
  })()
  let committed = 0
  const failures: string[] = []
  const started = Date.now()
  // until sqld has refused the burst twice (its checkpoints ran into writes), at most 20 s
  while ((refusedBursts < 2 || committed < 50) && Date.now() - started < 20_000) {
    try {
      await d.write(async (tx) => {
        const n = (await tx.all<{ n: number }>(sql`select count(*) as n from tx_rows`))[0]!.n
        await tx.run(sql`insert into tx_rows (n) values (${n})`)
      })
      committed++
    } catch (err) {
      failures.push(String((err as Error)?.message ?? err).slice(0, 160))
    }
  }
  stop = true
  await burst
  raw.close()
  expect(refusedBursts).toBeGreaterThanOrEqual(2)
  expect(failures).toEqual([])
  const rows = Number((await d.client.execute('select count(*) as n from tx_rows')).rows[0]!.n)
  expect(rows).toBe(committed)
}, 40_000)
