/**
 * The statement cache on a real file database: reused statements answer each run's own
 * rows under the right column names, also after a schema change, and a caller cannot
 * alter the remembered columns.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient, type Client, type ResultSet } from '@libsql/client'
import Database from 'libsql'
import { connectionOf, installStatementCache, PROBE_SQL } from '@/db/statement-cache'

let dir: string
/** The rows as plain objects under the result's column names. */
const rowsOf = (rs: ResultSet) => rs.rows.map((r) => Object.fromEntries(rs.columns.map((c) => [c, r[c]])))
let client: Client

beforeAll(async () => {
  installStatementCache()
  dir = mkdtempSync(join(tmpdir(), 'slipway-stmt-'))
  client = createClient({ url: `file:${join(dir, 'cache.db')}` })
  await client.execute('CREATE TABLE items (id TEXT PRIMARY KEY, n INTEGER NOT NULL)')
})
afterAll(() => {
  client.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('statement cache', () => {
  test('the same statement text answers each run\'s rows, with its own column names', async () => {
    for (const [id, n] of [['a', 1], ['b', 2]] as const) await client.execute({ sql: 'INSERT INTO items (id, n) VALUES (?, ?)', args: [id, n] })
    const read = (id: string) => client.execute({ sql: 'SELECT id, n FROM items WHERE id = ?', args: [id] })
    expect(rowsOf(await read('a'))).toEqual([{ id: 'a', n: 1 }])
    expect(rowsOf(await read('b'))).toEqual([{ id: 'b', n: 2 }])
    const other = await client.execute({ sql: 'SELECT n AS count, id AS key FROM items WHERE id = ?', args: ['b'] })
    expect(other.columns).toEqual(['count', 'key'])
    expect(rowsOf(other)).toEqual([{ count: 2, key: 'b' }])
    const returning = await client.execute({ sql: 'UPDATE items SET n = n + 1 WHERE id = ? RETURNING id, n', args: ['a'] })
    expect(rowsOf(returning)).toEqual([{ id: 'a', n: 2 }])
  })

  test('a statement naming its columns reads the same columns after a column is added', async () => {
    const read = () => client.execute({ sql: 'SELECT id, n FROM items WHERE id = ?', args: ['a'] })
    await read()
    await client.execute('ALTER TABLE items ADD COLUMN note TEXT')
    await client.execute({ sql: 'UPDATE items SET note = ? WHERE id = ?', args: ['x', 'a'] })
    const after = await read()
    expect(after.columns).toEqual(['id', 'n'])
    expect(rowsOf(after)).toEqual([{ id: 'a', n: 2 }])
  })

  test('a schema change is prepared for its run and not kept; other statements are', () => {
    const db = new Database(join(dir, 'cache.db'))
    try {
      const select = db.prepare('SELECT id FROM items')
      // the cache is off for the whole process once it opened an embedded replica (below)
      if (db.prepare('SELECT id FROM items') !== select) return
      for (const ddl of ['CREATE TABLE IF NOT EXISTS kept (id TEXT)', 'create index if not exists kept_id on kept (id)', 'DROP TABLE IF EXISTS gone', 'ALTER TABLE kept ADD COLUMN n INTEGER']) {
        const first = db.prepare(ddl)
        expect([ddl, db.prepare(ddl) === first]).toEqual([ddl, false])
        first.run()
      }
    } finally {
      db.close()
    }
  })

  test('the remembered columns are frozen and shared by the runs of one statement', () => {
    const db = new Database(join(dir, 'cache.db'))
    try {
      const stmt = db.prepare('SELECT id FROM items')
      const first = stmt.columns()
      expect(first.map((c: { name: string }) => c.name)).toEqual(['id'])
      // The cache is off for the whole process once it opened an embedded replica (an
      // earlier test file in the same `bun test` run may have): then nothing is shared.
      if (db.prepare('SELECT id FROM items') !== stmt) {
        expect(db.prepare('SELECT id FROM items').columns()).not.toBe(first)
        return
      }
      expect(Object.isFrozen(first)).toBe(true)
      expect(stmt.columns()).toBe(first)
    } finally {
      db.close()
    }
  })

  test('a statement that returns no rows: its refusal of raw mode is kept, and writes through the client still run and count', async () => {
    const db = new Database(join(dir, 'cache.db'))
    try {
      const insert = db.prepare('INSERT INTO items (id, n) VALUES (?, ?)')
      if (db.prepare('INSERT INTO items (id, n) VALUES (?, ?)') !== insert) return // the cache is off in this process (see above)
      let first: unknown
      let second: unknown
      try { insert.raw(true) } catch (err) { first = err }
      try { insert.raw() } catch (err) { second = err }
      expect(String(first)).toContain('only for statements that return data')
      // the same refusal thrown again, not a new error from the driver
      expect(second).toBe(first)
      // a statement that returns rows is still put in raw mode, and out of it, and its integer mode follows each change
      const select = db.prepare('SELECT id, n FROM items WHERE id = ?')
      expect(select.raw(true)).toBe(select)
      expect(select.get('b')).toEqual(['b', 2])
      expect(select.safeIntegers(true).get('b')).toEqual(['b', 2n])
      expect(select.safeIntegers().get('b')).toEqual(['b', 2n])
      expect(select.safeIntegers(false).get('b')).toEqual(['b', 2])
      expect(select.raw(false).get('b')).toMatchObject({ id: 'b', n: 2 })
      expect(select.raw().safeIntegers(true).get('b')).toEqual(['b', 2n])
      select.safeIntegers(false)
    } finally {
      db.close()
    }
    const counted = await client.execute({ sql: 'INSERT INTO items (id, n) VALUES (?, ?)', args: ['c', 3] })
    expect(counted.rowsAffected).toBe(1)
    const again = await client.batch([{ sql: 'INSERT INTO items (id, n) VALUES (?, ?)', args: ['d', 4] }, { sql: 'SELECT n FROM items WHERE id = ?', args: ['d'] }], 'write')
    expect(again[0]!.rowsAffected).toBe(1)
    expect(rowsOf(again[1]!)).toEqual([{ n: 4 }])
    // the client sets the modes it needs whatever another caller of its connection (native-tx.ts) left on a shared statement
    const read = { sql: 'SELECT id, n FROM items WHERE id = ?', args: ['d'] }
    await client.execute(read)
    const native = connectionOf(() => client.execute(PROBE_SQL)) as { prepare(sql: string): { safeIntegers(on: boolean): { raw(on: boolean): unknown } } } | undefined
    if (!native) return // the cache is off in this process
    native.prepare(read.sql).safeIntegers(false).raw(false)
    expect(rowsOf(await client.execute(read))).toEqual([{ id: 'd', n: 4 }])
    expect((await client.execute(read)).rows[0]![1]).toBe(4)
  })
})
