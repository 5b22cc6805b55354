/**
 * A local file's write-ahead log is copied into the database by a timer, between
 * transactions, not by the commit that takes the log past SQLite's default 1,000 pages
 * (src/db/local-file.ts, checkpointEvery).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { AUTOCHECKPOINT_PAGES, openDatabase, type Database } from '@/db/client'

let dir: string
let database: Database
const file = () => join(dir, 'wal.db')

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'slipway-wal-'))
  database = await openDatabase({ url: `file:${file()}`, migrate: async () => {}, checkpointIntervalMs: 200 })
  await database.client.execute('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
})
afterAll(() => {
  database.close()
  rmSync(dir, { recursive: true, force: true })
})

test('SQLite\'s own checkpoint waits for AUTOCHECKPOINT_PAGES; the timer copies the log once a period', async () => {
  const setting = await database.client.execute('PRAGMA wal_autocheckpoint')
  expect(Number(Object.values(setting.rows[0]!)[0])).toBe(AUTOCHECKPOINT_PAGES)
  // Let a checkpoint of the table's creation pass, then write about 100 pages in one transaction.
  await Bun.sleep(450)
  const before = statSync(file()).size
  await database.write(async (tx) => {
    for (let i = 0; i < 400; i++) await tx.run(sql`INSERT INTO notes (body) VALUES (${'x'.repeat(1000)})`)
  })
  // The pages are in the log, not yet in the database file: no commit copied them.
  expect(statSync(file()).size).toBe(before)
  expect(statSync(file() + '-wal').size).toBeGreaterThan(400 * 1000)
  const deadline = Date.now() + 3000
  while (statSync(file()).size === before && Date.now() < deadline) await Bun.sleep(50)
  expect(statSync(file()).size).toBeGreaterThan(before + 400 * 1000)
  const rows = await database.client.execute('SELECT count(*) AS n FROM notes')
  expect(Number(rows.rows[0]!.n)).toBe(400)
})
