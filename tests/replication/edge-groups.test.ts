/**
 * An edge sends its write batches one group at a time (src/db/client.ts, GroupCommit): every write
 * transaction on the primary is one that each edge pulls and applies at the injector's cost per
 * transaction (src/db/replica.ts, openPuller), so an edge makes its groups as large as its load
 * allows. A server's process (topology b) keeps two groups in flight. Against a real sqld, Hrana
 * requests counted where the HTTP client sends them (`fetch`; an embedded replica pulls natively, over
 * HTTP/2, past any HTTP proxy); 40 batches made in one turn of the event loop, so the count does not
 * depend on timing: with one group in flight the first batch goes alone and the 39 others wait for
 * it and go as one (2 requests); with two, the second goes alone too (3).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { openDatabase, type Database } from '@/db/client'
import { startSqld, type Sqld } from '@tests/helpers/sqld'

/** Counts the Hrana requests (POSTs to a pipeline or cursor) this process sends through `fetch`, which the HTTP client calls. */
function counting() {
  const state = { requests: 0, restore: () => {} }
  const real = globalThis.fetch
  globalThis.fetch = Object.assign((input: Request | string | URL, init?: RequestInit) => {
    const url = typeof input === 'string' || input instanceof URL ? String(input) : input.url
    if (/\/v[23]\/(pipeline|cursor)$/.test(new URL(url).pathname)) state.requests++
    return real(input, init)
  }, real)
  state.restore = () => { globalThis.fetch = real }
  return state
}

let sqld: Sqld
let proxy: ReturnType<typeof counting>
const opened: Database[] = []
beforeAll(async () => {
  sqld = await startSqld()
  await createClient({ url: sqld.url }).execute('create table g (k text primary key, n integer not null)')
  proxy = counting()
})
afterAll(async () => {
  for (const d of opened) d.close()
  proxy?.restore()
  await sqld?.stop()
})

/** Requests the proxy saw for 40 write batches made at once; every batch answered with its own results and written. */
async function requestsFor40(d: Database, prefix: string): Promise<number> {
  const before = proxy.requests
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => d.writeBatch([
    { sql: 'insert into g (k, n) values (?, ?)', args: [`${prefix}${i}`, i] },
    { sql: 'select n from g where k = ?', args: [`${prefix}${i}`] },
  ])))
  answers.forEach((a, i) => expect(a[1]!.rows[0]!.n).toBe(i))
  const sent = proxy.requests - before
  const rows = await createClient({ url: sqld.url }).execute({ sql: 'select count(*) as n from g where k like ?', args: [`${prefix}%`] })
  expect(rows.rows[0]!.n).toBe(40)
  return sent
}

test('an edge sends its write batches one group at a time', async () => {
  const dir = mkdtempSync(join(sqld.dir, 'edge-'))
  const edge = await openDatabase({ url: `file:${join(dir, 'replica.db')}`, syncUrl: sqld.url, migrate: async () => {}, maxWrites: 64, syncIntervalMs: 600_000 })
  opened.push(edge)
  expect(edge.mode).toBe('replica')
  expect(await requestsFor40(edge, 'edge')).toBe(2)
})

test('a process on the server keeps two groups in flight', async () => {
  const remote = await openDatabase({ url: sqld.url, migrate: async () => {}, maxWrites: 64 })
  opened.push(remote)
  expect(remote.mode).toBe('remote')
  expect(await requestsFor40(remote, 'remote')).toBe(3)
})
