/**
 * /health/ready's primaryReachable on an embedded replica counts only calls that reach the
 * primary: opening a transaction and rolling it back complete without the network, so a write
 * that failed on a stopped primary once left the replica reporting the primary reachable.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { openDatabase, type Database } from '@/db/client'
import { applyMigrations } from '@/db/migrate'
import { startSqld, type Sqld } from '@tests/helpers/sqld'

let sqld: Sqld
let db: Database
const dir = mkdtempSync(join(tmpdir(), 'slipway-reach-'))
beforeAll(async () => {
  sqld = await startSqld()
  // an hour between pulls: nothing but the calls below changes what the replica knows
  db = await openDatabase({ url: `file:${join(dir, 'replica.db')}`, syncUrl: sqld.url, syncIntervalMs: 3_600_000, timeoutMs: 1500, migrate: applyMigrations })
})
afterAll(async () => {
  db?.close()
  await sqld?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Each step gets its own deadline, so a hang says which step it was. */
function step<T>(name: string, p: Promise<T>, ms = 8000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([p, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${name}: no answer within ${ms} ms`)), ms) })]).finally(() => clearTimeout(timer))
}

test('a write transaction that fails on a stopped primary leaves it reported unreachable (its rollback is not a reach)', async () => {
  await step('first write', db.write((tx) => tx.run(sql`create table if not exists reach_probe (id integer primary key)`)))
  expect(db.replica!.status().primaryReachable).toBe(true)
  await step('halt', sqld.halt())
  const err = await step('write on the stopped primary', db.write((tx) => tx.run(sql`insert into reach_probe (id) values (1)`)).catch((e) => e))
  expect(err).toBeInstanceOf(Error)
  expect(db.replica!.status().primaryReachable).toBe(false)
  // and again: a second failed write does not flip it back either
  await step('second write on the stopped primary', db.write((tx) => tx.run(sql`insert into reach_probe (id) values (2)`)).catch(() => {}))
  expect(db.replica!.status()).toMatchObject({ primaryReachable: false, state: 'stale' })
  await step('restart', sqld.restart(), 12_000)
  await step('write after the restart', db.write((tx) => tx.run(sql`insert into reach_probe (id) values (3)`)))
  expect(db.replica!.status().primaryReachable).toBe(true)
  // each failed write may wait DATABASE_TIMEOUT_MS (1.5 s here) and sqld restarts: more than bun's 5 s default under a loaded suite
}, 30_000)
