/**
 * Read groups on a server (topology b; `Database.readBatch`, src/db/client.ts, and `readAll`,
 * src/db/batch.ts): concurrent read batches of one process go to sqld as one request, each
 * answered with its own rows mapped as drizzle maps them; a read that fails fails alone, its
 * neighbours answered. Requests counted by a proxy in front of a real sqld (tests/helpers/sqld-proxy.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createClient } from '@libsql/client'
import { eq } from 'drizzle-orm'
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { readAll, readEach } from '@/db/batch'
import { openDatabase, type Database } from '@/db/client'
import { startSqld, type Sqld } from '@tests/helpers/sqld'
import { sqldProxy, type SqldProxy } from '@tests/helpers/sqld-proxy'

const r = sqliteTable('r', { k: text('k').primaryKey(), n: integer('n').notNull(), on: integer('on', { mode: 'boolean' }).notNull() })
const missing = sqliteTable('not_there', { k: text('k').primaryKey() })

let sqld: Sqld
let d: Database
let proxy: SqldProxy
beforeAll(async () => {
  sqld = await startSqld()
  const c = createClient({ url: sqld.url })
  await c.execute('create table r (k text primary key, n integer not null, "on" integer not null)')
  await c.batch(Array.from({ length: 40 }, (_, i) => ({ sql: 'insert into r values (?, ?, ?)', args: [`k${i}`, i, i % 2] })), 'write')
  proxy = sqldProxy(sqld.url)
  d = await openDatabase({ url: `http://127.0.0.1:${proxy.port}`, migrate: async () => {}, writeGroups: 1 })
})
afterAll(async () => {
  d?.close()
  proxy?.stop()
  await sqld?.stop()
})

describe('read groups against sqld', () => {
  test('concurrent read batches go as fewer requests, each answered with its own rows', async () => {
    expect(d.mode).toBe('remote')
    expect(d.readBatch).toBeDefined()
    const before = proxy.requests
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => readAll(d, [
      d.db.select().from(r).where(eq(r.k, `k${i}`)),
      d.db.select({ n: r.n }).from(r).where(eq(r.n, 39 - i)),
    ])))
    answers.forEach(([mine, other], i) => {
      // drizzle's mapping: the boolean column as a boolean
      expect(mine).toEqual([{ k: `k${i}`, n: i, on: i % 2 === 1 }])
      expect(other).toEqual([{ n: 39 - i }])
    })
    const sent = proxy.requests - before
    // one group in flight at a time (writeGroups 1): the first call alone, the rest in one or a few groups
    expect(sent).toBeGreaterThanOrEqual(1)
    expect(sent).toBeLessThan(10)
  })

  test('a read that fails fails alone; its neighbours are answered', async () => {
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => readEach(d, {
      row: d.db.select().from(r).where(eq(r.k, `k${i}`)),
      bad: i === 5 ? d.db.select().from(missing) : undefined,
    })))
    outcomes.forEach((o, i) => {
      if (i === 5) {
        expect(o.status).toBe('rejected')
        expect(String((o as PromiseRejectedResult).reason?.message ?? (o as PromiseRejectedResult).reason)).toMatch(/not_there/)
      } else {
        expect(o.status).toBe('fulfilled')
        const v = (o as PromiseFulfilledResult<{ row: unknown[]; bad: unknown }>).value
        expect(v.row).toEqual([{ k: `k${i}`, n: i, on: i % 2 === 1 }])
        expect(v.bad).toBeUndefined()
      }
    })
  })

  test('on a local file the reads run one by one, answered the same', async () => {
    const local = await openDatabase({ url: ':memory:', migrate: async () => {} })
    try {
      expect(local.readBatch).toBeUndefined()
      await local.client.execute('create table r (k text primary key, n integer not null, "on" integer not null)')
      await local.client.execute({ sql: 'insert into r values (?, ?, ?)', args: ['a', 1, 1] })
      const { row, none } = await readEach(local, { row: local.db.select().from(r), none: undefined })
      expect(row).toEqual([{ k: 'a', n: 1, on: true }])
      expect(none).toBeUndefined()
    } finally {
      local.close()
    }
  })
})
