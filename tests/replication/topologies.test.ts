/**
 * The database shapes against a real libSQL server (sqld): a remote primary, embedded
 * replicas, migrations when several processes start at once, and a server that does
 * not answer (a 503 within DATABASE_TIMEOUT_MS, not a hang).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { eq, sql } from 'drizzle-orm'
import { ConfigError, loadConfig } from '@/config'
import { DatabaseUnavailableError, openDatabase, type Database } from '@/db/client'
import { applyMigrations } from '@/db/migrate'
import { bundledMigrations } from '@/db/migrations-macro'
import { tenants } from '@/db/schema'
import { Api } from '@tests/helpers/client'
import { PROCESS_ADMIN } from '@tests/helpers/process'
import { startSqld, type Sqld } from '@tests/helpers/sqld'
import { sqldProxy } from '@tests/helpers/sqld-proxy'
import { startEdge, startOnPrimary } from './helpers'

const tenantRow = (id: string) => ({ id, name: id, apiKey: `pk_${id}`, apiSecretSealed: 'x', settings: {}, status: 'active' as const, createdAt: 1, updatedAt: 1 })

describe('configuration of the shapes', () => {
  const key = Buffer.alloc(32, 1).toString('base64')
  test('an embedded replica needs a local file and MASTER_KEY; interval and timeout are whole numbers in range', () => {
    const ok = loadConfig({ DATABASE_URL: 'file:/data/replica.db', DATABASE_SYNC_URL: 'http://primary:8080', MASTER_KEY: key, DATABASE_SYNC_INTERVAL_MS: '250', DATABASE_TIMEOUT_MS: '2000' })
    expect(ok).toMatchObject({ databaseSyncUrl: 'http://primary:8080', databaseSyncIntervalMs: 250, databaseTimeoutMs: 2000 })
    expect(loadConfig({})).toMatchObject({ databaseSyncIntervalMs: 1000, databaseTimeoutMs: 5000 })
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env)
        return []
      } catch (err) {
        return (err as ConfigError).problems
      }
    }
    expect(problems({ DATABASE_URL: 'file:/data/replica.db', DATABASE_SYNC_URL: 'http://primary:8080' })).toEqual(['DATABASE_SYNC_URL needs MASTER_KEY: every process sharing the primary must seal with the same key'])
    expect(problems({ DATABASE_URL: 'http://primary:8080', DATABASE_SYNC_URL: 'http://primary:8080', MASTER_KEY: key })[0]).toContain('needs DATABASE_URL to be a local file')
    expect(problems({ DATABASE_SYNC_INTERVAL_MS: '10' })[0]).toContain('DATABASE_SYNC_INTERVAL_MS (50-3600000)')
    expect(problems({ DATABASE_TIMEOUT_MS: 'soon' })[0]).toBe('DATABASE_TIMEOUT_MS: "soon" is not a whole number')
  })
})

describe('the sqld helper', () => {
  test('starts a server that answers /health, and stop() leaves nothing behind', async () => {
    const before = new Set(readdirSync(tmpdir()))
    const s = await startSqld()
    expect((await fetch(`${s.url}/health`)).ok).toBe(true)
    expect(existsSync(s.dir)).toBe(true)
    await s.stop()
    expect(existsSync(s.dir)).toBe(false)
    await expect(fetch(`${s.url}/health`)).rejects.toThrow()
    expect(readdirSync(tmpdir()).filter((f) => !before.has(f) && f.startsWith('slipway-sqld-'))).toEqual([])
  })
})

describe('in process, against one primary', () => {
  let sqld: Sqld
  const open: Database[] = []
  beforeAll(async () => {
    sqld = await startSqld()
  })
  afterAll(async () => {
    for (const d of open) d.close()
    await sqld.stop()
  })
  const openAt = async (url: string, syncUrl?: string, extra: { syncIntervalMs?: number; timeoutMs?: number } = {}) => {
    const d = await openDatabase({ url, syncUrl, migrate: applyMigrations, ...extra })
    open.push(d)
    return d
  }

  test('remote: migrations on the server, write transactions and reads', async () => {
    const remote = await openAt(sqld.url)
    expect(remote.mode).toBe('remote')
    const applied = await createClient({ url: sqld.url }).execute('select count(*) as n from __drizzle_migrations')
    expect(Number(applied.rows[0]!.n)).toBe(bundledMigrations().length)
    await remote.write((tx) => tx.insert(tenants).values(tenantRow('remote1')))
    expect((await remote.db.select().from(tenants).all()).map((t) => t.id)).toContain('remote1')
    // A failing transaction leaves nothing.
    await expect(remote.write(async (tx) => {
      await tx.insert(tenants).values(tenantRow('remote2'))
      throw new Error('no')
    })).rejects.toThrow('no')
    expect((await remote.db.select().from(tenants).all()).map((t) => t.id)).not.toContain('remote2')
  })

  test('replica: opens (no PRAGMA it refuses is sent), own writes read back at once, others\' new rows found at once', async () => {
    const dir = mkdtempSync(join(sqld.dir, 'r-'))
    // a long interval: only the pull after a write and the primary fallback can explain what is seen
    const a = await openAt(`file:${dir}/a.db`, sqld.url, { syncIntervalMs: 60_000 })
    const b = await openAt(`file:${dir}/b.db`, sqld.url, { syncIntervalMs: 60_000 })
    expect(a.mode).toBe('replica')
    await a.write((tx) => tx.insert(tenants).values(tenantRow('rep1')))
    expect((await a.db.select().from(tenants).all()).map((t) => t.id)).toContain('rep1')
    // b has not pulled: a lookup that finds nothing locally is asked of the primary
    const one = await b.db.select().from(tenants).where(eq(tenants.id, 'rep1')).get()
    expect(one?.id).toBe('rep1')
    // a change to a row b already holds arrives with b's next pull
    await b.client.sync()
    await a.write((tx) => tx.update(tenants).set({ name: 'renamed' }).where(sql`id = 'rep1'`))
    expect((await a.db.select().from(tenants).where(eq(tenants.id, 'rep1')).get())?.name).toBe('renamed')
    expect((await b.db.select().from(tenants).where(eq(tenants.id, 'rep1')).get())?.name).toBe('rep1')
    await b.replica!.syncNow()
    expect((await b.db.select().from(tenants).where(eq(tenants.id, 'rep1')).get())?.name).toBe('renamed')
    expect(b.replica!.status()).toMatchObject({ state: 'fresh', primaryReachable: true })
  })

  test('the interval pull brings others\' changes without any write here', async () => {
    const dir = mkdtempSync(join(sqld.dir, 'r-'))
    const a = await openAt(`file:${dir}/a.db`, sqld.url, { syncIntervalMs: 100 })
    const remote = await openAt(sqld.url)
    await a.db.select().from(tenants).all()
    await remote.write((tx) => tx.insert(tenants).values(tenantRow('interval1')))
    await Bun.sleep(400)
    // a count always has a row, so the primary is never asked: this is the replica's own data
    const [row] = await a.db.select({ n: sql<number>`count(*)` }).from(tenants).where(sql`id = 'interval1'`)
    expect(Number(row!.n)).toBe(1)
  })

  test('a server that stops answering mid-life: writes and reads fail with 503 within the timeout, and work again once it answers', async () => {
    // a proxy in front of sqld that can stop answering (a primary behind a broken network; HTTP and WebSocket)
    const proxy = sqldProxy(sqld.url)
    try {
      // 1 s: long enough for a write through the proxy on a busy machine (400 ms failed beside three other test files)
      const timeoutMs = 1000
      const d = await openAt(`http://127.0.0.1:${proxy.port}`, undefined, { timeoutMs })
      await d.write((tx) => tx.insert(tenants).values(tenantRow('hang1')))
      proxy.hang = true
      const t0 = performance.now()
      const err = await d.write((tx) => tx.insert(tenants).values(tenantRow('hang2'))).catch((e) => e)
      expect(err).toBeInstanceOf(DatabaseUnavailableError)
      expect(err.message).toBe('The database server cannot be reached')
      const readErr = await d.db.select().from(tenants).all().catch((e) => e)
      expect(readErr.cause ?? readErr).toBeInstanceOf(DatabaseUnavailableError)
      // the write and the read each within the timeout (1.2 s for the rest, as with 400 ms and 2 s before)
      expect(performance.now() - t0).toBeLessThan(2 * timeoutMs + 1200)
      proxy.hang = false
      await d.write((tx) => tx.insert(tenants).values(tenantRow('hang3')))
      const ids = (await d.db.select().from(tenants).all()).map((t) => t.id)
      expect(ids).toContain('hang3')
      expect(ids).not.toContain('hang2')
    } finally {
      proxy.stop()
    }
  })

  test('a server that does not answer: 503 DatabaseUnavailableError within DATABASE_TIMEOUT_MS', async () => {
    // accepts connections and never answers
    const hang = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Promise<Response>(() => {}) })
    try {
      const t0 = performance.now()
      const err = await openDatabase({ url: `http://127.0.0.1:${hang.port}`, migrate: applyMigrations, timeoutMs: 300 }).catch((e) => e)
      expect(err).toBeInstanceOf(DatabaseUnavailableError)
      expect(err.status).toBe(503)
      expect(performance.now() - t0).toBeLessThan(2000)
    } finally {
      hang.stop(true)
    }
  })
})

describe('processes starting together on a fresh primary', () => {
  let sqld: Sqld
  beforeAll(async () => {
    sqld = await startSqld()
  })
  afterAll(async () => {
    await sqld.stop()
  })

  test('four connections opened at once (remote and replicas): all open, migrations applied once', async () => {
    const fresh = await startSqld()
    try {
      const dir = mkdtempSync(join(fresh.dir, 'r-'))
      const dbs = await Promise.all([
        openDatabase({ url: fresh.url, migrate: applyMigrations }),
        openDatabase({ url: fresh.url, migrate: applyMigrations }),
        openDatabase({ url: `file:${dir}/a.db`, syncUrl: fresh.url, migrate: applyMigrations }),
        openDatabase({ url: `file:${dir}/b.db`, syncUrl: fresh.url, migrate: applyMigrations }),
      ])
      const applied = await createClient({ url: fresh.url }).execute('select hash from __drizzle_migrations')
      expect(applied.rows.map((r) => r.hash)).toEqual(bundledMigrations().map((m) => m.hash))
      for (const d of dbs) {
        expect(Number((await d.db.select({ n: sql<number>`count(*)` }).from(tenants))[0]!.n)).toBe(0)
        d.close()
      }
    } finally {
      await fresh.stop()
    }
  })

  test('three processes (two edges, one on the primary) start at once: migrations run once, all serve', async () => {
    const procs = await Promise.all([startEdge(sqld), startEdge(sqld), startOnPrimary(sqld, { SLIPWAY_ROLE: 'worker' })])
    try {
      const applied = await createClient({ url: sqld.url }).execute('select count(*) as n from __drizzle_migrations')
      expect(Number(applied.rows[0]!.n)).toBe(bundledMigrations().length)
      // /health answers while a process still makes its bootstrap admin; every other request
      // waits for it, so once each has answered one, all three have tried.
      for (const p of procs.slice(0, 2)) {
        const login = await new Api(p.url).post('/v1/auth/admin/login', PROCESS_ADMIN)
        expect(login.status).toBe(200)
      }
      expect((await new Api(procs[2]!.url).get('/health/ready')).body.checks).toEqual({ database: 'ok', queue: 'ok' })
      // one bootstrap admin although three processes tried to create it
      const admins = await createClient({ url: sqld.url }).execute("select count(*) as n from users where role = 'admin'")
      expect(Number(admins.rows[0]!.n)).toBe(1)
      expect((await new Api(procs[0]!.url).get('/health/ready')).body).toMatchObject({ checks: { database: 'ok', replica: 'ok' }, replica: { state: 'fresh', primaryReachable: true } })
    } finally {
      await Promise.all(procs.map((p) => p.stop()))
    }
  }, 60_000)
})
