/**
 * Group commit (src/db/group-commit.ts) against a real sqld: concurrent write batches of one
 * process go together, each answered with its own results; a batch that fails (a unique index)
 * fails alone, its neighbours written; and past DATABASE_MAX_WRITES a write waits, then 503
 * DATABASE_BUSY (nothing written).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createClient } from '@libsql/client'
import { DatabaseBusyError, openDatabase, uniqueViolation, type Database } from '@/db/client'
import { startSqld, type Sqld } from '@tests/helpers/sqld'

let sqld: Sqld
let d: Database
beforeAll(async () => {
  sqld = await startSqld()
  await createClient({ url: sqld.url }).execute('create table g (k text primary key, n integer not null)')
  d = await openDatabase({ url: sqld.url, migrate: async () => {}, maxWrites: 64, writeGroups: 1 })
})
afterAll(async () => {
  d?.close()
  await sqld?.stop()
})

describe('group commit against sqld', () => {
  test('each batch answered with its own results; a failing one fails alone', async () => {
    // 40 batches of two statements at once; batches 7 and 23 insert a key batch 3 inserts too
    const key = (i: number) => (i === 7 || i === 23 ? 'k3' : `k${i}`)
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => d.writeBatch([
      { sql: 'insert into g (k, n) values (?, ?)', args: [key(i), i] },
      { sql: 'select n from g where k = ?', args: [key(i)] },
    ])))
    const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [i] : []))
    // batch 3 and one of 7 and 23 may win k3 first: exactly two of the three fail, on the unique index
    expect(failed.length).toBe(2)
    for (const i of failed) {
      expect([3, 7, 23]).toContain(i)
      expect(uniqueViolation((outcomes[i] as PromiseRejectedResult).reason)).toBe('g.k')
    }
    outcomes.forEach((o, i) => {
      if (o.status === 'fulfilled') expect(o.value[1]!.rows[0]!.n).toBe(i)
    })
    const rows = await createClient({ url: sqld.url }).execute('select count(*) as c from g')
    expect(Number(rows.rows[0]!.c)).toBe(38)
  })

  test('past the bound a write waits, then 503 DATABASE_BUSY with nothing written', async () => {
    const small = await openDatabase({ url: sqld.url, migrate: async () => {}, maxWrites: 1, writeWaitMs: 1 })
    try {
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => small.writeBatch([{ sql: 'insert into g (k, n) values (?, ?)', args: [`busy${i}`, i] }])))
      const busy = outcomes.filter((o) => o.status === 'rejected')
      expect(busy.length).toBeGreaterThan(0)
      for (const o of busy) expect((o as PromiseRejectedResult).reason).toBeInstanceOf(DatabaseBusyError)
      expect((busy[0] as PromiseRejectedResult).reason).toMatchObject({ status: 503, code: 'DATABASE_BUSY', retryAfterSeconds: 1 })
      const rows = await createClient({ url: sqld.url }).execute("select count(*) as c from g where k like 'busy%'")
      expect(Number(rows.rows[0]!.c)).toBe(20 - busy.length)
    } finally {
      small.close()
    }
  })
})
