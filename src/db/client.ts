/**
 * The database: drizzle over one libSQL connection per process.
 *
 * libSQL's native calls are synchronous, and interactive transactions that overlap
 * in one process fail at once (SQLITE_BUSY on files, TRANSACTION_ACTIVE in memory).
 * So each process keeps one connection and a gate: a transaction holds the gate
 * until it commits or rolls back, and every other statement waits for it. With the
 * gate open a statement runs straight through, so reads cost nothing extra. Several
 * processes on one file then contend through SQLite's own lock and busy timeout.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { createClient, type Client, type InStatement, type Transaction, type TransactionMode } from '@libsql/client'
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql'
import * as schema from './tables'

export type Schema = typeof schema
export type Db = LibSQLDatabase<Schema>
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
function gated(inner: Client, gate: Gate): Client {
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
            if (gate.open) return fn.apply(target, args)
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

export interface Database {
  db: Db
  client: Client
  /** Runs `fn` in one write transaction (BEGIN IMMEDIATE); rolled back whole if it throws. */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>
  /** A value built once for this connection, such as a prepared statement that a hot path runs on every request. */
  memo<T>(key: string, build: () => T): T
  close(): void
}

export interface DatabaseOptions {
  url: string
  authToken?: string
  syncUrl?: string
  /** applies the schema migrations (embedded at build time under Bun; read from drizzle/ under Deno) */
  migrate: (db: Db) => Promise<void>
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const isFile = opts.url.startsWith('file:')
  if (isFile) {
    const path = opts.url.slice('file:'.length).split('?')[0]!
    if (path && path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  }
  const raw = createClient({
    url: opts.url,
    authToken: opts.authToken,
    syncUrl: opts.syncUrl,
    concurrency: 1,
  })
  const local = isFile || opts.url === ':memory:'
  if (local) {
    // Per-connection settings; the single connection keeps them for its life.
    if (opts.url !== ':memory:' && !opts.url.includes(':memory:')) await raw.execute('PRAGMA journal_mode = WAL')
    await raw.execute('PRAGMA foreign_keys = ON')
    await raw.execute('PRAGMA busy_timeout = 5000')
    await raw.execute('PRAGMA synchronous = NORMAL')
  }
  const client = gated(raw, new Gate())
  const db = drizzle(client, { schema })
  await opts.migrate(db)
  const memos = new Map<string, unknown>()
  return {
    db,
    client,
    write: (fn) => db.transaction(fn),
    memo: <T>(key: string, build: () => T): T => {
      if (!memos.has(key)) memos.set(key, build())
      return memos.get(key) as T
    },
    close: () => raw.close(),
  }
}

export { schema }
export type { InStatement }
