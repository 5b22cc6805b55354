/**
 * insertRow (src/db/insert-row.ts): the text drizzle builds once, the values each column
 * maps to the driver, run on the executor's own client (a transaction's, when given one).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { drizzle } from 'drizzle-orm/libsql'
import { createClient, type Client } from '@libsql/client'
import { insertRow } from '@/db/insert-row'
import type { Db } from '@/db/client'

const notes = sqliteTable('notes', {
  id: text('id').primaryKey(),
  body: text('body').notNull(),
  meta: text('meta', { mode: 'json' }).$type<{ tags: string[] }>(),
  pinned: integer('pinned', { mode: 'boolean' }).notNull(),
  at: integer('at').notNull(),
})
const insertNote = insertRow(notes)
let client: Client
let db: Db

beforeAll(async () => {
  client = createClient({ url: ':memory:' })
  db = drizzle(client)
  await client.execute('CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL, meta TEXT, pinned INTEGER NOT NULL, at INTEGER NOT NULL)')
})
afterAll(() => client.close())

test('stores each value as drizzle would, and reads back the same row', async () => {
  const row = { id: 'a', body: 'hello', meta: { tags: ['x', 'y'] }, pinned: true, at: 1_700_000_000_000 }
  await insertNote(db, row)
  await db.insert(notes).values({ ...row, id: 'b' })
  const raw = await client.execute('SELECT id, body, meta, pinned, at FROM notes ORDER BY id')
  expect(raw.rows.map((r) => [r.body, r.meta, r.pinned, r.at])).toEqual([['hello', '{"tags":["x","y"]}', 1, 1_700_000_000_000], ['hello', '{"tags":["x","y"]}', 1, 1_700_000_000_000]])
  expect(await db.select().from(notes).where(sql`id = 'a'`).get()).toEqual(row)
  await insertNote(db, { id: 'c', body: 'nulls', meta: null, pinned: false, at: 0 })
  expect(await db.select().from(notes).where(sql`id = 'c'`).get()).toEqual({ id: 'c', body: 'nulls', meta: null, pinned: false, at: 0 })
})

test('inside a transaction it commits or rolls back with it', async () => {
  await expect(db.transaction(async (tx) => {
    await insertNote(tx, { id: 'rolled', body: 'x', meta: null, pinned: false, at: 1 })
    expect((await tx.select().from(notes).where(sql`id = 'rolled'`).all()).length).toBe(1)
    throw new Error('undo')
  })).rejects.toThrow('undo')
  expect((await db.select().from(notes).where(sql`id = 'rolled'`).all()).length).toBe(0)
  await db.transaction(async (tx) => insertNote(tx, { id: 'kept', body: 'x', meta: null, pinned: false, at: 1 }))
  expect((await db.select().from(notes).where(sql`id = 'kept'`).all()).length).toBe(1)
})

test('a missing column is refused before anything runs; a constraint error comes from SQLite', async () => {
  await expect(insertNote(db, { id: 'd', body: 'x', pinned: false } as never)).rejects.toThrow('insertRow: meta is missing')
  await expect(insertNote(db, { id: 'a', body: 'again', meta: null, pinned: false, at: 1 })).rejects.toThrow(/UNIQUE constraint failed: notes.id/)
})
