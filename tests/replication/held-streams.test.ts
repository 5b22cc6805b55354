/**
 * Held streams to sqld (src/db/held-streams.ts), in topology (b): reads go on a few Hrana streams kept open (over HTTP,
 * each request carrying its stream's baton), not on a stream (a fresh sqld connection) each; writes keep a stream each.
 * What must hold: few streams for many reads; a failed batch, or a statement that leaves its connection inside a
 * transaction, does not poison the next batch on the pool; a sqld restarted under held streams is reached again, and
 * answers 503 while down; a write whose answer was lost is answered 503 and never sent again (it ran once). Requests and
 * streams counted by a proxy (tests/helpers/sqld-proxy.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createClient, type Client } from '@libsql/client'
import { openDatabase, DatabaseUnavailableError, type Database } from '@/db/client'
import { StreamPool, webSocketUrl } from '@/db/held-streams'
import { startSqld, type Sqld } from '@tests/helpers/sqld'
import { sqldProxy, type SqldProxy } from '@tests/helpers/sqld-proxy'

let sqld: Sqld
let proxy: SqldProxy
let d: Database
let pool: StreamPool
let direct: Client
const ins = (k: string) => ({ sql: 'insert into h (k) values (?)', args: [k] })
const count = async (k: string) => Number((await direct.execute({ sql: 'select count(*) as n from h where k = ?', args: [k] })).rows[0]!.n)

beforeAll(async () => {
  sqld = await startSqld()
  direct = createClient({ url: sqld.url })
  await direct.batch(['create table h (k text not null)', 'create unique index h_k on h (k) where k like \'u%\''], 'write')
  proxy = sqldProxy(sqld.url)
  // 2 s: room for a call through the proxy on a loaded machine; the lost answer below waits for it
  d = await openDatabase({ url: proxy.url, migrate: async () => {}, timeoutMs: 2000 })
  // the pool itself, for writes on held streams (openDatabase sends only its reads there)
  pool = new StreamPool({ url: proxy.url, timeoutMs: 2000 })
})
afterAll(async () => {
  d?.close()
  pool?.close()
  direct?.close()
  proxy?.stop()
  await sqld?.stop()
})

describe('held streams to sqld', () => {
  test('the WebSocket URL of the server, whatever form it was given in', () => {
    expect(webSocketUrl('http://127.0.0.1:8080')).toBe('ws://127.0.0.1:8080/')
    expect(webSocketUrl('https://db.example.com')).toBe('wss://db.example.com/')
    expect(webSocketUrl('libsql://db.example.com')).toBe('wss://db.example.com/')
    expect(webSocketUrl('libsql://127.0.0.1:8080?tls=0')).toBe('ws://127.0.0.1:8080/')
    expect(webSocketUrl('ws://127.0.0.1:8080')).toBe('ws://127.0.0.1:8080/')
  })

  test('many reads, one after another, run on a stream or two held open; writes on a stream each', async () => {
    const [requests, streams] = [proxy.requests, proxy.streams]
    for (let i = 0; i < 20; i++) {
      await d.client.execute({ sql: 'select count(*) from h where k = ?', args: [`many${i}`] })
      await d.readBatch!([{ sql: 'select k from h where k = ?', args: [`many${i}b`] }])
    }
    expect(proxy.requests - requests).toBeGreaterThanOrEqual(40)
    // one stream would do for calls one at a time; a call never waits behind another on a stream, so a few at most
    expect(proxy.streams - streams).toBeLessThanOrEqual(3)
    const before = proxy.streams
    for (let i = 0; i < 5; i++) await d.writeBatch([ins(`many${i}`)])
    expect(proxy.streams - before).toBe(5)
    expect(await count('many4')).toBe(1)
  })

  test('a failed batch wrote nothing and does not poison the next one; nor does a stream left inside a transaction', async () => {
    await pool.batch([ins('u-taken')], 'write')
    const err = await pool.batch([ins('fail-1'), ins('u-taken')], 'write').catch((e) => e)
    expect(String(err?.message)).toMatch(/UNIQUE constraint failed/)
    await pool.batch([ins('after-fail')], 'write')
    expect(await count('fail-1')).toBe(0)
    expect(await count('after-fail')).toBe(1)

    // a statement that leaves its connection inside a transaction: its stream is not used again
    const streams = proxy.streams
    await pool.execute('BEGIN')
    await pool.batch([ins('after-begin')], 'write')
    const rows = await pool.batch([{ sql: 'select k from h where k = ?', args: ['after-begin'] }])
    expect(rows[0]!.rows.length).toBe(1)
    // committed: another connection sees it
    expect(await count('after-begin')).toBe(1)
    expect(proxy.streams).toBeGreaterThan(streams)
  })

  test('an answer lost on the way back: the write fails unanswered (a 503 through the database) and is not sent again (it ran once); the next works', async () => {
    await pool.batch([ins('before-loss')], 'write')
    proxy.lose = true
    const err = await pool.batch([ins('lost-answer')], 'write').catch((e) => e)
    proxy.lose = false
    expect(err?.name).toBe('TimeoutError')
    await pool.batch([ins('after-loss')], 'write')
    expect(await count('after-loss')).toBe(1)
    // sqld ran it when it arrived, once: nothing sent it again
    expect(await count('lost-answer')).toBe(1)
  })
})

describe('held streams when sqld restarts', () => {
  let own: Sqld
  let db: Database
  beforeAll(async () => {
    own = await startSqld()
    await createClient({ url: own.url }).execute('create table h (k text not null)')
    db = await openDatabase({ url: own.url, migrate: async () => {}, timeoutMs: 2000 })
  })
  afterAll(async () => {
    db?.close()
    await own?.stop()
  })

  test('its streams closed: 503 while it is down, then new streams; reads and writes answered again', async () => {
    const one = { sql: 'insert into h (k) values (?)', args: ['r1'] }
    await db.writeBatch([one])
    expect((await db.readBatch!([{ sql: 'select count(*) as n from h', args: [] }]))[0]!.rows[0]!.n).toBe(1)
    await own.halt()
    expect(await db.writeBatch([{ sql: 'insert into h (k) values (?)', args: ['down'] }]).catch((e) => e)).toBeInstanceOf(DatabaseUnavailableError)
    expect(await db.readBatch!([{ sql: 'select count(*) as n from h', args: [] }]).catch((e) => e)).toBeInstanceOf(DatabaseUnavailableError)
    await own.restart()
    await db.writeBatch([{ sql: 'insert into h (k) values (?)', args: ['r2'] }])
    const rows = (await db.client.execute('select k from h order by k')).rows.map((r) => r.k)
    expect(rows).toEqual(['r1', 'r2'])
  })

  test('restarted between two writes: the held stream\'s baton is refused before anything runs, and the write goes on a new stream, once', async () => {
    const p = new StreamPool({ url: own.url, timeoutMs: 2000 })
    try {
      await p.batch([{ sql: 'insert into h (k) values (?)', args: ['s1'] }], 'write')
      await own.halt()
      await own.restart()
      await p.batch([{ sql: 'insert into h (k) values (?)', args: ['s2'] }], 'write')
      const rows = (await db.client.execute({ sql: 'select k from h where k like ? order by k', args: ['s%'] })).rows.map((r) => r.k)
      expect(rows).toEqual(['s1', 's2'])
    } finally {
      p.close()
    }
  })
})
