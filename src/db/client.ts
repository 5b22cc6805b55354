/**
 * The database: drizzle over one libSQL connection per process, in one of three shapes.
 *
 * - `local`: a file (or `:memory:`). libSQL's native calls are synchronous, and
 *   interactive transactions that overlap in one process fail at once (SQLITE_BUSY on
 *   files, TRANSACTION_ACTIVE in memory). So each process keeps one connection and a
 *   gate: a transaction holds the gate until it commits or rolls back, and every other
 *   statement waits for it. With the gate open a statement runs straight through, so
 *   reads cost nothing extra. Several processes on one file then contend through
 *   SQLite's own lock and busy timeout.
 * - `remote`: a libSQL server (sqld) over HTTP. Write transactions still go through the
 *   gate, one at a time per process: measured against sqld (scripts/bench/replication.ts),
 *   transactions 16 at a time from one process ran at about half the rate without the
 *   gate (379 against 787 per second): the server serialises writers with its own lock
 *   and the losers wait on it. Statements outside a transaction run on their own
 *   streams and need not wait for the gate.
 * - `replica`: an embedded replica (a local file synced from the primary) for reads,
 *   and the same HTTP client to the primary for every write and every transaction. Not
 *   libSQL's own write forwarding: it is a synchronous native call, so each forwarded
 *   statement would stop the event loop for a round trip to the primary (and for as
 *   long as a primary that does not answer takes), and it has no timeout we can set.
 *   After each write the replica pulls (`sync()`: also synchronous, about 0.4 ms plus
 *   1-2 ms per transaction it brings on this machine's disk), so a process reads its own
 *   writes; it also pulls every `DATABASE_SYNC_INTERVAL_MS`. A read that
 *   finds no row on the replica is asked again of the primary, so what another process
 *   created a moment ago (a tenant, a user, a wallet) is found at once; changes to rows
 *   the replica already holds arrive with the next pull.
 *
 * Calls to a server time out after `DATABASE_TIMEOUT_MS`; a server that cannot be
 * reached answers `DatabaseUnavailableError` (503), never a hang.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Client, InStatement, ResultSet, Transaction, TransactionMode } from '@libsql/client'
// The local client only (a file or memory): the client for a server, with its HTTP and
// WebSocket protocol code, loads in openDatabase only when the database is remote or a
// replica. drizzle's libSQL driver is the same for any client it is given.
import { createClient as createLocalClient } from '@libsql/client/sqlite3'
import { disableStatementCache, installStatementCache } from './statement-cache'
import { drizzle } from 'drizzle-orm/libsql/sqlite3'
import type { LibSQLDatabase } from 'drizzle-orm/libsql'
import { ServiceUnavailableError } from '../http/errors'

/**
 * drizzle is given no schema: its relational `db.query.*` API is not used, and with a schema
 * every transaction builds one relational query builder per table (28 tables), which cost
 * more than some of the statements a transaction runs. Queries use the SQL-like builders.
 */
export type Db = LibSQLDatabase
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
/** Either the database or an open transaction: repo functions accept both. */
export type Executor = Db | Tx

class Gate {
  private held = false
  private waiters: Array<() => void> = []
  get open() {
    return !this.held
  }
  async acquire(): Promise<void> {
    if (!this.held) {
      this.held = true
      return
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve))
  }
  release() {
    const next = this.waiters.shift()
    if (next) next()
    else this.held = false
  }
  /** Resolves when no transaction holds the gate (without taking it). */
  async idle(): Promise<void> {
    while (this.held) {
      await new Promise<void>((resolve) => this.waiters.push(() => { resolve(); this.release() }))
    }
  }
}

/** Wraps a libSQL client so that statements never overlap an open transaction of this process. */
function gated(inner: Client, gate: Gate, statementsWait: boolean): Client {
  const wrapTx = (tx: Transaction): Transaction => {
    let released = false
    const done = () => {
      if (!released) {
        released = true
        gate.release()
      }
    }
    return new Proxy(tx, {
      get(target, prop, receiver) {
        if (prop === 'commit' || prop === 'rollback') {
          return async () => {
            try {
              return await (target[prop] as () => Promise<void>).call(target)
            } finally {
              done()
            }
          }
        }
        if (prop === 'close') {
          return () => {
            try {
              target.close()
            } finally {
              done()
            }
          }
        }
        const v = Reflect.get(target, prop, receiver)
        return typeof v === 'function' ? v.bind(target) : v
      },
    })
  }
  return new Proxy(inner, {
    get(target, prop, receiver) {
      switch (prop) {
        case 'execute':
        case 'batch':
        case 'migrate':
        case 'executeMultiple':
          return (...args: unknown[]) => {
            const fn = (target as any)[prop] as (...a: unknown[]) => Promise<unknown>
            if (gate.open || !statementsWait) return fn.apply(target, args)
            return gate.idle().then(() => fn.apply(target, args))
          }
        case 'transaction':
          return async (mode?: TransactionMode) => {
            await gate.acquire()
            try {
              return wrapTx(await target.transaction(mode))
            } catch (e) {
              gate.release()
              throw e
            }
          }
        default: {
          const v = Reflect.get(target, prop, receiver)
          return typeof v === 'function' ? v.bind(target) : v
        }
      }
    },
  })
}

/** The database server (the primary) cannot be reached or did not answer in time. */
export class DatabaseUnavailableError extends ServiceUnavailableError {
  constructor(message: string) {
    super(message, { code: 'DATABASE_UNAVAILABLE' })
  }
}

/** A refused or reset connection, a timeout, or the server's own 5xx: not an answer about the data. */
export function isUnreachable(err: unknown): boolean {
  for (let e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e instanceof DatabaseUnavailableError) return true
    const code = String(e.code ?? '')
    if (/^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ConnectionRefused|ConnectionClosed|SERVER_ERROR|HRANA_WEBSOCKET_ERROR|UND_ERR_\w+)$/.test(code)) return true
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return true
    if (/Unable to connect|fetch failed|WriteDelegation|Replication\(|PrimaryHandshake|socket connection was closed|HTTP status 5\d\d/.test(String(e.message ?? ''))) return true
  }
  return false
}

/**
 * The columns a refused unique index names ("users.scope, users.username_key" from SQLite's
 * "UNIQUE constraint failed: …", on a file or from a server), or '' for any other error. Read
 * from the error or its causes, not from the whole text: drizzle's error quotes the SQL too.
 */
export function uniqueViolation(err: unknown): string {
  for (let e = err as { message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    const m = /UNIQUE constraint failed: ([\w., ]+)/.exec(String(e.message ?? ''))
    if (m) return m[1]!
  }
  return ''
}

/** Rejects after `ms` (the call itself may still finish; its result is dropped). */
function withTimeout<T>(p: Promise<T>, ms: number, what: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([p, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(what()), ms) })]).finally(() => clearTimeout(timer))
}

/**
 * Every call to the server gets a deadline, and a server that cannot be reached turns
 * into DatabaseUnavailableError. `onReach` tells the replica tracker whether it answered.
 */
function guarded(inner: Client, timeoutMs: number, unavailable: string, onReach: (ok: boolean) => void): Client {
  const fail = () => new DatabaseUnavailableError(unavailable)
  // `network: false` for calls the client can complete without the server (opening a
  // transaction sends nothing until its first statement; a rollback of a stream that is gone
  // answers at once): their success says nothing about the primary, so only execute, batch,
  // commit and the like count as having reached it (/health/ready's primaryReachable).
  const call = async <T>(p: () => Promise<T>, network = true): Promise<T> => {
    try {
      const out = await withTimeout(p(), timeoutMs, () => Object.assign(new Error(`no answer from the database server within ${timeoutMs} ms`), { name: 'TimeoutError' }))
      if (network) onReach(true)
      return out
    } catch (err) {
      if (isUnreachable(err)) {
        onReach(false)
        throw fail()
      }
      throw err
    }
  }
  const wrapTx = (tx: Transaction): Transaction => new Proxy(tx, {
    get(target, prop, receiver) {
      if (prop === 'execute' || prop === 'batch' || prop === 'executeMultiple' || prop === 'commit') {
        return (...args: unknown[]) => call(() => (target as any)[prop](...args))
      }
      if (prop === 'rollback') {
        // A transaction on a server that went away is gone with its stream: nothing to undo.
        return () => call(() => target.rollback(), false).catch((err) => {
          if (!(err instanceof DatabaseUnavailableError)) throw err
        })
      }
      const v = Reflect.get(target, prop, receiver)
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'execute' || prop === 'batch' || prop === 'migrate' || prop === 'executeMultiple') {
        return (...args: unknown[]) => call(() => (target as any)[prop](...args))
      }
      if (prop === 'transaction') return async (mode?: TransactionMode) => wrapTx(await call(() => target.transaction(mode), false))
      const v = Reflect.get(target, prop, receiver)
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
}

const statementText = (s: InStatement) => (typeof s === 'string' ? s : s.sql)
const isRead = (s: InStatement) => /^\s*select\b/i.test(statementText(s))

/** What /health/ready and the metrics report about an embedded replica. */
export interface ReplicaState {
  /** `fresh` while the primary answers and pulls succeed; `stale` otherwise */
  state: 'fresh' | 'stale'
  /** milliseconds since the last successful pull (how old the replica's view may be) */
  lagMs: number
  /** the primary's frame the replica last pulled */
  frameNo: number | null
  lastSyncAt: number | null
  primaryReachable: boolean
}

/**
 * Pulls the replica from the primary on an interval and after this process's writes.
 * `sync()` is a synchronous native call, and against a primary that does not answer it
 * holds the event loop for seconds (PrimaryHandshakeTimeout, 3 s here): so the interval
 * pull first asks the primary's /health asynchronously, and pulls only when it answers.
 */
export class ReplicaSync {
  private lastSyncAt: number | null = null
  private frameNo: number | null = null
  private reachable = true
  private timer?: ReturnType<typeof setInterval>
  private pending: Promise<void> | null = null
  private readonly healthUrl: string

  constructor(private readonly replica: Client, syncUrl: string, private readonly intervalMs: number, private readonly timeoutMs: number) {
    this.healthUrl = healthUrlOf(syncUrl)
  }

  /** Pulls now; throws when the primary cannot be reached. */
  syncNow() {
    return this.replica.sync().then((r) => {
      this.lastSyncAt = Date.now()
      this.frameNo = r?.frame_no ?? this.frameNo
      this.reachable = true
    })
  }

  /** After a write of this process: one pull for all the writes that finished in the same turn. */
  afterWrite(): Promise<void> {
    if (!this.pending) {
      this.pending = new Promise<void>((resolve) => setTimeout(() => {
        this.pending = null
        this.syncNow().catch(() => { this.reachable = false }).finally(resolve)
      }))
    }
    return this.pending
  }

  markReach(ok: boolean) {
    this.reachable = ok
  }

  get primaryReachable() {
    return this.reachable
  }

  start() {
    this.timer = setInterval(() => void this.tick(), this.intervalMs)
    this.timer.unref?.()
  }

  private async tick() {
    try {
      const res = await fetch(this.healthUrl, { signal: AbortSignal.timeout(Math.min(this.timeoutMs, 2000)) })
      if (!res.ok) throw new Error(`primary /health answered ${res.status}`)
    } catch {
      this.reachable = false
      return
    }
    await this.syncNow().catch(() => { this.reachable = false })
  }

  status(): ReplicaState {
    const lagMs = this.lastSyncAt === null ? -1 : Date.now() - this.lastSyncAt
    // Fresh: the primary answers and the last pull is within a few intervals.
    const fresh = this.reachable && this.lastSyncAt !== null && lagMs <= Math.max(3 * this.intervalMs, 5000)
    return { state: fresh ? 'fresh' : 'stale', lagMs, frameNo: this.frameNo, lastSyncAt: this.lastSyncAt, primaryReachable: this.reachable }
  }

  stop() {
    if (this.timer) clearInterval(this.timer)
  }
}

/** `libsql://host` is HTTPS (or HTTP with `?tls=0`); `ws(s)://` the same host over HTTP(S). */
function healthUrlOf(syncUrl: string): string {
  const u = new URL(syncUrl)
  const tls = u.searchParams.get('tls')
  if (u.protocol === 'libsql:') u.protocol = tls === '0' ? 'http:' : 'https:'
  else if (u.protocol === 'ws:') u.protocol = 'http:'
  else if (u.protocol === 'wss:') u.protocol = 'https:'
  return `${u.protocol}//${u.host}/health`
}

/**
 * The embedded replica's client: reads outside a transaction from the local replica,
 * everything else on the primary, then a pull so this process reads what it wrote.
 */
function replicated(replica: Client, primary: Client, sync: ReplicaSync): Client {
  const afterWrite = async <T>(p: Promise<T>): Promise<T> => {
    const out = await p
    await sync.afterWrite()
    return out
  }
  const read = async (stmt: InStatement): Promise<ResultSet> => {
    const local = await replica.execute(stmt)
    if (local.rows.length || !sync.primaryReachable) return local
    // Not on the replica (yet): created elsewhere since the last pull, or not at all.
    try {
      return await primary.execute(stmt)
    } catch (err) {
      if (err instanceof DatabaseUnavailableError) return local
      throw err
    }
  }
  return new Proxy(primary, {
    get(target, prop, receiver) {
      switch (prop) {
        case 'execute':
          return (stmt: InStatement, args?: unknown) => {
            const s = args === undefined ? stmt : { sql: statementText(stmt), args } as InStatement
            return isRead(s) ? read(s) : afterWrite(primary.execute(s))
          }
        case 'batch':
          return (stmts: InStatement[], mode?: TransactionMode) => (stmts.every(isRead) ? replica.batch(stmts, mode) : afterWrite(primary.batch(stmts, mode)))
        case 'migrate':
          return (stmts: InStatement[]) => afterWrite(primary.migrate(stmts))
        case 'executeMultiple':
          return (sqlText: string) => afterWrite(primary.executeMultiple(sqlText))
        // Transactions pull in Database.write, after the gate is free (see openDatabase).
        case 'transaction':
          return (mode?: TransactionMode) => primary.transaction(mode)
        case 'sync':
          return () => replica.sync()
        case 'close':
          return () => {
            sync.stop()
            replica.close()
            primary.close()
          }
        default: {
          const v = Reflect.get(target, prop, receiver)
          return typeof v === 'function' ? v.bind(target) : v
        }
      }
    },
  })
}

export type DatabaseMode = 'local' | 'remote' | 'replica'

export interface Database {
  db: Db
  client: Client
  mode: DatabaseMode
  /** the embedded replica's pulls (replica mode only) */
  replica?: ReplicaSync
  /** Runs `fn` in one write transaction (BEGIN IMMEDIATE); rolled back whole if it throws. */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>
  /**
   * Whether a write of one statement may run on `db` as an autocommit statement, without a
   * transaction of its own: true on a local file (or memory), where every statement waits
   * for this process's open transaction (the gate) and SQLite makes the one statement
   * atomic; false against a server, where such a statement overlapping a transaction on
   * another stream was answered SQLITE_BUSY by sqld (1 in 3,000 signed requests), so
   * writes there always go through `write`.
   */
  autocommitWrites: boolean
  /** A value built once for this connection, such as a prepared statement that a hot path runs on every request. */
  memo<T>(key: string, build: () => T): T
  close(): void
}

export interface DatabaseOptions {
  url: string
  authToken?: string
  syncUrl?: string
  /** replica mode: pull from the primary this often */
  syncIntervalMs?: number
  /** remote and replica modes: a call to the server fails (503) after this long */
  timeoutMs?: number
  /** applies the schema migrations (embedded at build time under Bun; read from drizzle/ under Deno) */
  migrate: (db: Db) => Promise<void>
  /** local file mode: copy the write-ahead log into the database this often (default CHECKPOINT_INTERVAL_MS) */
  checkpointIntervalMs?: number
}

/** A local file's write-ahead log is copied into the database file this often (see checkpointEvery). */
export const CHECKPOINT_INTERVAL_MS = 1000
/** SQLite's own checkpoint, inside a commit, only when the log reaches this many pages (40 MB). */
export const AUTOCHECKPOINT_PAGES = 10_000

/**
 * Checkpoints a local file's write-ahead log from a timer, not from commits. By default
 * SQLite copies the log into the database inside the commit that takes it past 1,000 pages
 * (4 MB), several times a second under writes, and a page written by many transactions
 * (an index's last page, a table's) is copied again each time. Once a second copies each
 * page once per second however often it was written. Measured with registrations (the hash
 * replaced by a timer, so the database work shows): 5% less CPU per registration and 10%
 * more registrations per second; a checkpoint then took about 20 ms for 5,000 pages, once
 * a second, where SQLite's took the same time in smaller pieces, several times a second.
 * The checkpoint is PASSIVE (it never waits for a reader or a writer) and goes through the
 * gate like any statement, between transactions. SQLite's own checkpoint stays as a
 * bound, at AUTOCHECKPOINT_PAGES: should the timer fall behind (writes faster than 40 MB
 * a second, or another process holding a reader on the file), the log stops growing there.
 * A checkpoint that fails (another process checkpointing the same file) is left to the next.
 */
async function checkpointEvery(raw: Client, gated: Client, intervalMs: number) {
  await raw.execute(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`)
  let running = false
  const timer = setInterval(() => {
    if (running) return
    running = true
    gated.execute('PRAGMA wal_checkpoint(PASSIVE)').catch(() => {}).finally(() => { running = false })
  }, intervalMs)
  // Deno's timers are numbers, without unref
  ;(timer as { unref?: () => void }).unref?.()
  return timer
}

/**
 * Migrations against a server: several processes may start at once on a fresh primary.
 * Each migrator applies its pending set in one batch (a transaction), so a process
 * that lost the race finds its batch refused (the tables exist, or the server's write
 * lock is held) and, asked again, finds nothing left to apply. It waits and asks again
 * instead of failing, within a bound.
 */
async function migrateRacing(migrate: () => Promise<void>, boundMs = 30_000) {
  const deadline = Date.now() + boundMs
  for (;;) {
    try {
      return await migrate()
    } catch (err) {
      const cause = (err as { cause?: unknown })?.cause
      if (cause instanceof DatabaseUnavailableError) throw cause
      const text = `${(err as Error)?.message ?? ''} ${((err as { cause?: Error })?.cause)?.message ?? ''}`
      if (Date.now() > deadline || !/already exists|duplicate column|SQLITE_BUSY|database is locked|UNIQUE constraint failed: __drizzle_migrations/i.test(text)) throw err
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100))
    }
  }
}

function memoizer() {
  const memos = new Map<string, unknown>()
  return <T>(key: string, build: () => T): T => {
    if (!memos.has(key)) memos.set(key, build())
    return memos.get(key) as T
  }
}

/** Runs `fn` again while it fails with SQLITE_BUSY, for up to `ms` (start-up only: never inside a request). */
async function whileBusy<T>(fn: () => Promise<T>, ms: number): Promise<T> {
  const end = Date.now() + ms
  for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
    try {
      return await fn()
    } catch (err) {
      if (!/SQLITE_BUSY/.test(String((err as { code?: string }).code ?? (err as Error).message)) || Date.now() + wait > end) throw err
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
  }
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const isFile = opts.url.startsWith('file:')
  if (isFile) {
    const path = opts.url.slice('file:'.length).split('?')[0]!
    if (path && path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  }
  const mode: DatabaseMode = opts.syncUrl ? 'replica' : isFile || opts.url === ':memory:' ? 'local' : 'remote'
  const timeoutMs = opts.timeoutMs ?? 5000
  // a local file runs libSQL's native statements in this process: reuse them (see statement-cache.ts)
  if (mode === 'local') installStatementCache()
  if (mode === 'replica') disableStatementCache()
  if (mode === 'local') {
    const raw = createLocalClient({ url: opts.url, concurrency: 1 })
    // Per-connection settings; the single connection keeps them for its life. Switching to WAL
    // takes a lock another process may hold (one still writing, or recovering the log after a
    // kill): SQLite answers SQLITE_BUSY at once where waiting could deadlock, so try again.
    await raw.execute('PRAGMA busy_timeout = 5000')
    if (opts.url !== ':memory:' && !opts.url.includes(':memory:')) await whileBusy(() => raw.execute('PRAGMA journal_mode = WAL'), 10_000)
    await raw.execute('PRAGMA foreign_keys = ON')
    await raw.execute('PRAGMA synchronous = NORMAL')
    const client = gated(raw, new Gate(), true)
    const db = drizzle(client)
    await opts.migrate(db)
    const checkpoints = opts.url.includes(':memory:') ? undefined : await checkpointEvery(raw, client, opts.checkpointIntervalMs ?? CHECKPOINT_INTERVAL_MS)
    return {
      db, client, mode, write: (fn) => db.transaction(fn), autocommitWrites: true, memo: memoizer(),
      close: () => {
        clearInterval(checkpoints)
        raw.close()
      },
    }
  }

  // A server: sqld enables foreign keys on its connections, and journal mode, busy
  // timeout and synchronous are its business (an embedded replica refuses them).
  const primaryUrl = mode === 'replica' ? opts.syncUrl! : opts.url
  const { createClient } = await import('@libsql/client')
  let sync: ReplicaSync | undefined
  const httpFetch = (req: Request) => fetch(req, { signal: AbortSignal.timeout(timeoutMs) })
  const primary = guarded(
    createClient({ url: primaryUrl, authToken: opts.authToken, fetch: httpFetch }),
    timeoutMs,
    mode === 'replica'
      ? 'The primary database cannot be reached: this replica answers reads, but changes are refused until the primary is back'
      : 'The database server cannot be reached',
    (ok) => sync?.markReach(ok),
  )
  let client: Client
  if (mode === 'replica') {
    const replica = createClient({ url: opts.url, authToken: opts.authToken, syncUrl: opts.syncUrl })
    sync = new ReplicaSync(replica, opts.syncUrl!, opts.syncIntervalMs ?? 1000, timeoutMs)
    client = replicated(replica, primary, sync)
  } else {
    client = primary
  }
  const gatedClient = gated(client, new Gate(), false)
  // Migrations on the primary itself, never through a replica that may not have pulled yet.
  await migrateRacing(() => opts.migrate(drizzle(primary)))
  if (sync) {
    await sync.syncNow()
    sync.start()
  }
  const db = drizzle(gatedClient)
  const replica = sync
  // A replica pulls after the transaction, outside the gate: the next transaction can
  // start meanwhile, and the commits that finished in the same turn share one pull.
  // drizzle wraps a statement's error in DrizzleQueryError: callers of write() get the 503 itself.
  const transaction = <T>(fn: (tx: Tx) => Promise<T>) => db.transaction(fn).catch((err: unknown) => {
    throw (err as { cause?: unknown })?.cause instanceof DatabaseUnavailableError ? (err as { cause: unknown }).cause : err
  })
  const write: Database['write'] = replica
    ? async (fn) => {
      const out = await transaction(fn)
      await replica.afterWrite()
      return out
    }
    : transaction
  return { db, client: gatedClient, mode, replica, write, autocommitWrites: false, memo: memoizer(), close: () => client.close() }
}

export type { InStatement }
