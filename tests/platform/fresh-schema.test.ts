/**
 * A fresh database gets the schema every migration leaves in one transaction (src/db/migrate.ts,
 * bundledSchema in src/db/migrations-macro.ts), not the migrations one by one. It must be the same
 * schema, recorded as drizzle's migrator records it: so an older database upgrades to the same
 * schema, and a later migration applies to a database made fresh as to any other.
 */
import { afterAll, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient, type Client } from '@libsql/client/sqlite3'
import { drizzle } from 'drizzle-orm/libsql/sqlite3'
import { migrate } from 'drizzle-orm/libsql/migrator'
import { applyMigrations } from '@/db/migrate'
import { bundledSchema } from '@/db/migrations-macro'

const dir = mkdtempSync(join(tmpdir(), 'slipway-fresh-schema-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const folder = join(import.meta.dir, '../../drizzle')

const open = (name: string) => createClient({ url: `file:${join(dir, `${name}.db`)}` })
const schemaOf = async (c: Client) => (await c.execute(`SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name`)).rows
  // the migrations table as drizzle's migrator or src/db/migrate.ts wrote it: the same columns, spaced differently
  .map((r) => [r.type, r.name, r.tbl_name, r.name === '__drizzle_migrations' ? String(r.sql).replace(/\s+/g, ' ').replace('( ', '(').replace(' )', ')') : r.sql])
const recorded = async (c: Client) => (await c.execute('SELECT id, hash, created_at FROM __drizzle_migrations ORDER BY id')).rows.map((r) => [Number(r.id), r.hash, Number(r.created_at)])

/** A copy of drizzle/ whose journal keeps the first `count` migrations, plus `extra` (tag, SQL) after them. */
function folderWith(name: string, count: number, extra?: { tag: string; sql: string }) {
  const copy = join(dir, name)
  cpSync(folder, copy, { recursive: true })
  const journalPath = join(copy, 'meta/_journal.json')
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ idx: number; when: number; tag: string; breakpoints: boolean; version: string }> }
  journal.entries = journal.entries.slice(0, count)
  if (extra) {
    const last = journal.entries.at(-1)!
    journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1000, tag: extra.tag })
    writeFileSync(join(copy, `${extra.tag}.sql`), extra.sql)
  }
  writeFileSync(journalPath, JSON.stringify(journal))
  return { path: copy, entries: journal.entries.length }
}

test('a fresh database gets the same schema and the same record as drizzle\'s migrator applying every migration', async () => {
  const schema = bundledSchema()
  expect(schema).not.toBeNull()
  const fresh = open('fresh')
  const cacheSize = async () => Number((await fresh.execute('PRAGMA cache_size')).rows[0]![0])
  const before = await cacheSize()
  await applyMigrations(drizzle(fresh))
  // written through a small page cache (idle memory), the connection's own restored after
  expect(await cacheSize()).toBe(before)
  const sequential = open('sequential')
  await migrate(drizzle(sequential), { migrationsFolder: folder })
  const want = await schemaOf(sequential)
  expect(want.length).toBeGreaterThan(100)
  expect(await schemaOf(fresh)).toEqual(want)
  expect(await recorded(fresh)).toEqual(await recorded(sequential))
  // the one-go path ran: every object the migrations leave (the migrations table aside) came from the bundled schema
  expect(schema!.length).toBe(want.filter((r) => r[1] !== '__drizzle_migrations').length)
  // applied again: nothing to do, nothing changes
  await applyMigrations(drizzle(fresh))
  expect(await schemaOf(fresh)).toEqual(want)
  expect((await recorded(fresh)).length).toBe((await recorded(sequential)).length)
  fresh.close()
  sequential.close()
})

test('an older database upgrades to the same schema as a fresh one', async () => {
  const journal = JSON.parse(readFileSync(join(folder, 'meta/_journal.json'), 'utf8')) as { entries: unknown[] }
  const older = folderWith('older', Math.floor(journal.entries.length / 2))
  const old = open('old')
  await migrate(drizzle(old), { migrationsFolder: older.path })
  expect((await recorded(old)).length).toBe(older.entries)
  await applyMigrations(drizzle(old))
  const fresh = open('fresh-2')
  await applyMigrations(drizzle(fresh))
  expect(await schemaOf(old)).toEqual(await schemaOf(fresh))
  expect((await recorded(old)).map((r) => r.slice(1))).toEqual((await recorded(fresh)).map((r) => r.slice(1)))
  old.close()
  fresh.close()
})

test('a migration written after a database was made fresh applies to it, by drizzle\'s migrator too', async () => {
  const journal = JSON.parse(readFileSync(join(folder, 'meta/_journal.json'), 'utf8')) as { entries: unknown[] }
  const later = folderWith('later', journal.entries.length, { tag: '9999_later', sql: 'CREATE TABLE `later_things` (`id` text PRIMARY KEY NOT NULL);' })
  const fresh = open('fresh-3')
  await applyMigrations(drizzle(fresh))
  await migrate(drizzle(fresh), { migrationsFolder: later.path })
  expect((await fresh.execute(`SELECT name FROM sqlite_master WHERE name = 'later_things'`)).rows.length).toBe(1)
  expect((await recorded(fresh)).length).toBe(later.entries)
  fresh.close()
})

test('a fresh schema that fails part-way writes nothing and leaves the connection as it was; the next start applies it whole', async () => {
  const schema = bundledSchema()!
  // a table the schema creates half-way, there already (as if made by hand): its CREATE fails
  const middle = schema.filter((s) => /^CREATE TABLE/i.test(s))[Math.floor(schema.length / 4)]!
  const name = /^CREATE TABLE [`"]?([^`"\s(]+)/i.exec(middle)![1]!
  const clash = open('clash')
  await clash.execute(`CREATE TABLE "${name}" (x INTEGER)`)
  const cacheSize = Number((await clash.execute('PRAGMA cache_size')).rows[0]![0])
  await expect(applyMigrations(drizzle(clash))).rejects.toThrow(/already exists/)
  const names = (await clash.execute(`SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`)).rows.map((r) => r.name)
  expect(names).toEqual(['__drizzle_migrations', name].sort())
  expect(await recorded(clash)).toEqual([])
  expect(Number((await clash.execute('PRAGMA foreign_keys')).rows[0]![0])).toBe(1)
  expect(Number((await clash.execute('PRAGMA cache_size')).rows[0]![0])).toBe(cacheSize)
  // no transaction left open: the connection writes, and with the table gone the schema applies whole
  await clash.execute(`DROP TABLE "${name}"`)
  await applyMigrations(drizzle(clash))
  const sequential = open('sequential-2')
  await migrate(drizzle(sequential), { migrationsFolder: folder })
  expect(await schemaOf(clash)).toEqual(await schemaOf(sequential))
  clash.close()
  sequential.close()
})
