/**
 * The database handle's types: what `openDatabase` (client.ts) returns and takes.
 */
import type { Client, InStatement, ResultSet } from '@libsql/client'
import type { LibSQLDatabase } from 'drizzle-orm/libsql'
import type { WriteLimiter } from './limiter'
import type { ReplicaSync } from './replica'
import type { WriteLedger } from './read-your-writes'
import type { NativeReader } from './native-read'

/**
 * drizzle is given no schema: its relational `db.query.*` API is not used, and with a schema
 * every transaction builds one relational query builder per table (28 tables), which cost
 * more than some of the statements a transaction runs. Queries use the SQL-like builders.
 */
export type Db = LibSQLDatabase
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
/** Either the database or an open transaction: repo functions accept both. */
export type Executor = Db | Tx

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
   * Statements known up front as one write transaction in one request (`client.batch(stmts,
   * 'write')`): all of them or none; no statement sees another's answer before it runs, so
   * checks are conditions inside the statements or the tables' constraints. One round trip to
   * a server, where `write` takes one per statement. Results in order.
   */
  writeBatch(stmts: InStatement[]): Promise<ResultSet[]>
  /**
   * On a server (topology b): reads known up front (`readAll`, batch.ts), sent with the concurrent reads of this
   * process's other requests as one read batch (group-commit.ts), each answered with its own results: each request
   * costs sqld CPU of its own whatever it reads (docs/benchmarks.md). Absent elsewhere (reads are local).
   */
  readBatch?: (stmts: InStatement[]) => Promise<ResultSet[]>
  /** the bound on this process's writes in flight (`write` and `writeBatch`) */
  limiter: WriteLimiter
  /**
   * Whether a write of one statement may run on `db` as an autocommit statement, without a
   * transaction of its own: true on a local file (or memory), where every statement waits
   * for this process's open transaction (the gate) and SQLite makes the one statement
   * atomic; false against a server, where such a statement overlapping a transaction on
   * another stream was answered SQLITE_BUSY by sqld (1 in 3,000 signed requests), so
   * writes there always go through `write`.
   */
  autocommitWrites: boolean
  /**
   * On a server (topology b): this process's finished writes, numbered per table (read-your-writes.ts), so a read kept
   * in memory (the bearer check's, callers.ts) is dropped when this process writes its tables. Absent elsewhere.
   */
  writeLedger?: WriteLedger
  /** A value built once for this connection, such as a prepared statement that a hot path runs on every request. */
  memo<T>(key: string, build: () => T): T
  /**
   * A local file's second connection, for the credential reads every request makes (src/db/native-read.ts):
   * libSQL's native driver, synchronous, reading the last committed state. On an embedded replica, a read-only
   * connection on the replica's file, with `replicaReads`. Absent in memory and on a server.
   */
  reader?: () => NativeReader
  /**
   * On an embedded replica, what a native read on `reader` respects (native-read.ts): `ready(sql)` is false while the
   * read must wait for a pull (this process wrote its tables since the last one began), and a row not found there is
   * asked again through `db` (the replica after a pull if needed, then the primary), as every replica read is.
   */
  replicaReads?: { ready(sql: string): boolean }
  close(): void
}

export interface DatabaseOptions {
  url: string
  authToken?: string
  syncUrl?: string
  /** replica mode: pull from the primary this often */
  syncIntervalMs?: number
  /** replica mode: this process's writes not yet pulled before its next write waits for a pull; 0 pulls on the event loop, unbounded */
  syncMaxBehind?: number
  /** remote and replica modes: a call to the server fails (503) after this long */
  timeoutMs?: number
  /** applies the schema migrations (embedded at build time under Bun; read from drizzle/ under Deno) */
  migrate: (db: Db) => Promise<void>
  /** local file mode: copy the write-ahead log into the database this often (default CHECKPOINT_INTERVAL_MS) */
  checkpointIntervalMs?: number
  /** writes in flight per process (DATABASE_MAX_WRITES); past it a write waits `writeWaitMs` for a place, then 503 DATABASE_BUSY */
  maxWrites?: number
  writeWaitMs?: number
  /** against a server: write batches in flight at once; the batches of concurrent requests waiting meanwhile go as one (group commit) */
  writeGroups?: number
  /** against a server: statements and batches on held streams (held-streams.ts; default true), or each on a stream of its own */
  heldStreams?: boolean
}
