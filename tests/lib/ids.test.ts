/**
 * Row ids (src/lib/ids.ts, newId): UUIDs of version 7, ordered by the time they were made, so a write
 * transaction's new rows land on the last pages of their id index instead of a page each. What a
 * transaction changes is what sqld logs, serves to every embedded replica and each replica applies
 * (docs/benchmarks.md, "Writes across topologies"): counted here as the WAL frames of one transaction
 * of 64 rows on a table of 20,000, with its id index as every table here has one.
 */
import { afterAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isUuid, newId } from '@/lib/ids'

const dir = mkdtempSync(join(tmpdir(), 'slipway-ids-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('ids are version 7 UUIDs, unique, and later ones sort after earlier ones', async () => {
  const first = Array.from({ length: 2_000 }, newId)
  await Bun.sleep(3)
  const later = Array.from({ length: 2_000 }, newId)
  expect(new Set([...first, ...later]).size).toBe(4_000)
  for (const id of [...first, ...later]) {
    expect(isUuid(id)).toBe(true)
    expect(id[14]).toBe('7')
    expect('89ab').toContain(id[19]!)
  }
  // the time is the first 48 bits
  const ms = parseInt(first[0]!.slice(0, 8) + first[0]!.slice(9, 13), 16)
  expect(Math.abs(ms - Date.now())).toBeLessThan(60_000)
  expect(later.every((id) => first.every((f) => f < id))).toBe(true)
  // 74 random bits: no two ids of the same millisecond share their random part
  expect(new Set(first.map((id) => id.slice(15))).size).toBe(2_000)
})

/** WAL frames written by one transaction inserting `rows` ids into a table that already holds `existing`. */
function framesOfOneTransaction(name: string, id: () => string, existing: number, rows: number): number {
  const db = new Database(join(dir, `${name}.db`))
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA wal_autocheckpoint = 0')
  db.run('CREATE TABLE rows (id TEXT PRIMARY KEY NOT NULL, body TEXT NOT NULL)')
  const insert = db.prepare('INSERT INTO rows (id, body) VALUES (?, ?)')
  db.transaction(() => { for (let i = 0; i < existing; i++) insert.run(id(), 'x'.repeat(40)) })()
  db.run('PRAGMA wal_checkpoint(TRUNCATE)')
  db.transaction(() => { for (let i = 0; i < rows; i++) insert.run(id(), 'x'.repeat(40)) })()
  const [busy, frames] = Object.values(db.query('PRAGMA wal_checkpoint(PASSIVE)').get() as Record<string, number>)
  db.close()
  expect(busy).toBe(0)
  return frames!
}

test('one transaction of new rows changes a few pages of the id index, not one per row', () => {
  const ordered = framesOfOneTransaction('v7', newId, 20_000, 64)
  const random = framesOfOneTransaction('v4', () => crypto.randomUUID(), 20_000, 64)
  // the table's and the index's last pages (with a split or two), their parents and the header page: 8-12 seen
  expect(ordered).toBeLessThanOrEqual(16)
  // a random id puts nearly every row on an index page of its own (20,000 ids fill about 300 pages): 68-81 seen
  expect(random).toBeGreaterThan(40)
})
