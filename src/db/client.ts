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
 *   and the losers wait on it. Statements outside a transaction need not wait for the gate;
 *   reads among them run on a few streams held open (held-streams.ts).
 * - `replica`: an embedded replica (a local file synced from the primary) for reads,
 *   and the same HTTP client to the primary for every write and every transaction. libSQL's
 *   embedded replica only pulls (replica.ts, `openPuller`); reads go through a read-only client
 *   on its file and, for the credential reads, the native reader (native-read.ts). Not
 *   libSQL's own write forwarding: it is a synchronous native call, so each forwarded
 *   statement would stop the event loop for a round trip to the primary (and for as
 *   long as a primary that does not answer takes), and it has no timeout we can set.
 *   A write does not wait for a pull (by default the synchronous `sync()`, which holds the event loop while it
 *   runs; with DATABASE_SYNC_MAX_BEHIND on libSQL's thread, and then a write waits only while that many of this
 *   process's writes are not yet pulled: replica.ts, beforeWrite): a read of a table this process wrote since
 *   the last pull pulls first, one pull for every read waiting then, so a process reads its own
 *   writes (replica.ts, `beforeRead`; read-your-writes.ts); the credential check of a request
 *   that only creates a wallet waits for none. It also pulls every `DATABASE_SYNC_INTERVAL_MS`. A read that
 *   finds no row on the replica is asked again of the primary, so what another process
 *   created a moment ago (a tenant, a user, a wallet) is found at once; changes to rows
 *   the replica already holds arrive with the next pull.
 *
 * Calls to a server time out after `DATABASE_TIMEOUT_MS`, and a whole write a little before it (writeBudgetMs); a server
 * that cannot be reached answers `DatabaseUnavailableError` (503), never a hang. Writes in
 * flight per process are bounded (limiter.ts): past the bound a write waits briefly, then
 * answers 503 `DATABASE_BUSY` with `retry-after`.
 *
 * Here: the shapes put together (openDatabase). Beside it: the gate (gate.ts), a local
 * file's checkpoints and start-up retries (local-file.ts), the server's deadlines and racing
 * migrations (remote.ts), the embedded replica (replica.ts), reading errors (errors.ts).
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Client, InStatement } from '@libsql/client'
// The local client only (a file or memory): the client for a server, with its HTTP and
// WebSocket protocol code, loads in openDatabase only when the database is remote or a
// replica. drizzle's libSQL driver is the same for any client it is given.
import { createClient as createLocalClient } from '@libsql/client/sqlite3'
import { disableStatementCache, installStatementCache } from './statement-cache'
import { drizzle } from 'drizzle-orm/libsql/sqlite3'
import { DatabaseUnavailableError, writeBudgetMs } from './errors'
import { requestStart } from './deadline'
import { Gate, gated } from './gate'
import { isBusy, markingBegin, refusedAtBegin } from './busy'
import { CHECKPOINT_INTERVAL_MS, checkpointEvery, whileBusy } from './local-file'
import { DEFAULT_MAX_WRITES, DEFAULT_WRITE_WAIT_MS, WriteLimiter } from './limiter'
import { GroupCommit } from './group-commit'
import { guarded, migrateRacing, withTimeout } from './remote'
import { openPuller, ReplicaSync } from './replica'
import { replicated } from './replicated'
import { ledgered, WriteLedger } from './read-your-writes'
import { lazyReader } from './native-read'

export { DatabaseBusyError, DatabaseUnavailableError, isUnreachable, uniqueViolation, writeBudgetMs } from './errors'
export { DEFAULT_MAX_WRITES, DEFAULT_WRITE_WAIT_MS, WriteLimiter } from './limiter'
export { AUTOCHECKPOINT_PAGES, CHECKPOINT_INTERVAL_MS } from './local-file'
export { ReplicaSync, type ReplicaState } from './replica'
export type { Database, DatabaseMode, DatabaseOptions, Db, Executor, Tx } from './database'
import type { Database, DatabaseMode, DatabaseOptions, Tx } from './database'


/** write groups in flight per process on a server (on an edge: 1, below) */
export const DEFAULT_WRITE_GROUPS = 2
/**
 * An embedded replica's writes not yet pulled before its next write waits for a pull (DATABASE_SYNC_MAX_BEHIND; replica.ts,
 * beforeWrite). 0, the default: the synchronous pull, unbounded. Not on by default: with it, a fresh edge started after a
 * write burst did not finish its first pull within 20 s in tests/replication/write-load.test.ts (docs/benchmarks.md).
 */
export const DEFAULT_SYNC_MAX_BEHIND = 0


function memoizer() {
  const memos = new Map<string, unknown>()
  // one lookup on the hot path (a credential read asks on every request)
  return <T>(key: string, build: () => T): T => {
    const kept = memos.get(key)
    if (kept !== undefined || memos.has(key)) return kept as T
    const made = build()
    memos.set(key, made)
    return made
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
    const client = gated(raw, new Gate(), true, true)
    const db = drizzle(client)
    await opts.migrate(db)
    const inMemory = opts.url === ':memory:' || opts.url.includes(':memory:')
    const checkpoints = inMemory ? undefined : await checkpointEvery(raw, client, opts.checkpointIntervalMs ?? CHECKPOINT_INTERVAL_MS)
    const reader = inMemory ? undefined : lazyReader(opts.url.slice('file:'.length).split('?')[0]!)
    const limiter = new WriteLimiter(opts.maxWrites ?? DEFAULT_MAX_WRITES, Math.min(opts.writeWaitMs ?? DEFAULT_WRITE_WAIT_MS, timeoutMs))
    return {
      db, client, mode, limiter, autocommitWrites: true, memo: memoizer(), reader: reader?.get,
      write: (fn) => limiter.run(() => db.transaction(fn)),
      writeBatch: (stmts) => limiter.run(() => client.batch(stmts, 'write')),
      close: () => {
        clearInterval(checkpoints)
        reader?.close()
        raw.close()
      },
    }
  }

  // A server: sqld enables foreign keys on its connections, and journal mode, busy
  // timeout and synchronous are its business (an embedded replica refuses them).
  const primaryUrl = mode === 'replica' ? opts.syncUrl! : opts.url
  // loaded for a server or a replica only: a start on a file loads no Hrana client (tests/ops/lazy-loading)
  const [{ createClient }, { onHeldStreams, StreamPool }] = await Promise.all([import('@libsql/client'), import('./held-streams')])
  let sync: ReplicaSync | undefined
  const httpFetch = (req: Request) => fetch(req, { signal: AbortSignal.timeout(timeoutMs) })
  const unavailable = mode === 'replica'
    ? 'The primary database cannot be reached: this replica answers reads, but changes are refused until the primary is back'
    : 'The database server cannot be reached'
  // reads on a few streams held open (held-streams.ts); write batches and interactive transactions on streams of their own
  const http = createClient({ url: primaryUrl, authToken: opts.authToken, fetch: httpFetch })
  const base = opts.heldStreams === false ? http : onHeldStreams(http, new StreamPool({ url: primaryUrl, authToken: opts.authToken, timeoutMs, protocol: 'http', fetch: httpFetch }))
  const primary = guarded(base, timeoutMs, unavailable, (ok) => sync?.markReach(ok))
  let client: Client
  const ledger = new WriteLedger()
  // A replica's file: pulled into by libSQL's embedded replica (the puller), read through connections of its own.
  const replicaPath = mode === 'replica' ? opts.url.slice('file:'.length).split('?')[0]! : undefined
  // off the event loop, bounded by how far the pulls are behind this process's writes; 0: the synchronous pull, unbounded (replica.ts)
  const maxBehind = opts.syncMaxBehind ?? DEFAULT_SYNC_MAX_BEHIND
  const puller = replicaPath ? await openPuller(replicaPath, opts.syncUrl!, opts.authToken, maxBehind > 0) : undefined
  if (puller) sync = new ReplicaSync(puller.pull, opts.syncUrl!, opts.syncIntervalMs ?? 1000, timeoutMs, maxBehind)
  // Migrations on the primary itself, never through a replica that may not have pulled yet.
  await migrateRacing(() => opts.migrate(drizzle(primary)))
  // what a write to a table may change beyond it (cascades, triggers), for what is kept in memory against the ledger
  if (mode === 'remote') await ledger.learn(primary)
  let reader: ReturnType<typeof lazyReader> | undefined
  if (sync && replicaPath) {
    await sync.syncNow()
    // The replica's reads: a plain client on its file (read-only: nothing but a pull may write it), and the native reader.
    const local = createLocalClient({ url: `file:${replicaPath}`, concurrency: 1 })
    await local.execute('PRAGMA busy_timeout = 5000')
    await local.execute('PRAGMA query_only = 1')
    reader = lazyReader(replicaPath, true)
    await sync.learnSchema(local)
    sync.start()
    client = replicated(local, primary, sync, () => {
      reader?.close()
      // a pull on libSQL's thread still running finishes first
      void sync!.settled().then(() => puller!.close())
    })
  } else {
    client = ledgered(primary, ledger)
  }
  const gatedClient = gated(markingBegin(client), new Gate(), false)
  const db = drizzle(gatedClient)
  const replica = sync
  // No write waits past DATABASE_TIMEOUT_MS in all, counted from its request's start (deadline.ts) or its own, its wait for a
  // place included, and the rest of the request has room left (writeBudgetMs): a write still waiting at its deadline
  // answers 503 with retry-after, whatever it waits for (a place, the gate, the group commit's line, sqld).
  const budgetMs = writeBudgetMs(timeoutMs)
  const limiter = new WriteLimiter(opts.maxWrites ?? DEFAULT_MAX_WRITES, Math.min(opts.writeWaitMs ?? DEFAULT_WRITE_WAIT_MS, budgetMs))
  const deadlineOf = () => (requestStart() ?? Date.now()) + budgetMs
  // the same answer as a server that cannot be reached: from here, one that does not answer in time is the same thing
  const late = () => new DatabaseUnavailableError(unavailable)
  // drizzle wraps a statement's error in DrizzleQueryError: callers of write() get the 503 itself.
  const transaction = <T>(fn: (tx: Tx) => Promise<T>) => db.transaction(fn).catch((err: unknown) => {
    throw (err as { cause?: unknown })?.cause instanceof DatabaseUnavailableError ? (err as { cause: unknown }).cause : err
  })
  // A replica does not pull after a write: the next read of this process that could see it pulls first (replica.ts).
  // A replica counts the transaction's writes when it commits (replica.ts).
  const write: Database['write'] = (fn) => {
    const deadline = deadlineOf()
    // one still waiting for the gate (this process's one transaction at a time) at its deadline never starts: its caller has had its 503
    const bounded = (tx: Tx) => (Date.now() >= deadline ? Promise.reject(late()) : fn(tx))
    // refused sqld's write lock at its BEGIN (busy.ts), it wrote nothing: run again while time is left, then 503
    const run = async () => {
      // an edge whose pulls are too far behind its writes waits for one first (replica.ts, beforeWrite)
      if (replica && !(await replica.beforeWrite(deadline))) throw late()
      for (let attempt = 0; ; attempt++) {
        try {
          return await transaction(bounded)
        } catch (err) {
          if (!refusedAtBegin(err)) throw err
          if (Date.now() + 20 * (attempt + 1) >= deadline) throw late()
          await new Promise((r) => setTimeout(r, 5 + Math.random() * 10 * (attempt + 1)))
        }
      }
    }
    return limiter.run(() => withTimeout(run(), Math.max(1, deadline - Date.now()), late), deadline - Date.now())
  }
  // A batch is one request: refused whole by sqld's write lock (SQLITE_BUSY) it wrote nothing, so it is sent again while time is left.
  const sendBatch = async (stmts: InStatement[], deadline: number) => {
    if (replica && !(await replica.beforeWrite(deadline))) throw late()
    for (let attempt = 0; ; attempt++) {
      try {
        return await withTimeout(gatedClient.batch(stmts, 'write'), Math.max(1, deadline - Date.now()), late)
      } catch (err) {
        if (!isBusy(err)) throw err
        if (Date.now() + 20 * (attempt + 1) >= deadline) throw late()
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 10 * (attempt + 1)))
      }
    }
  }
  // Concurrent batches of this process go as one (group-commit.ts), within the deadline; a batch still in line at it is not sent.
  // An edge sends one group at a time: larger groups, so fewer transactions on the primary, and each is one that every edge pulls
  // and applies at the injector's cost per transaction (replica.ts, openPuller). Executions on 3 edges: 1.61-2.58 + 1.15-1.28 ms
  // of CPU per execution (edges + sqld) against 2.24-3.07 + 1.53-1.70 with two groups in flight (docs/benchmarks.md, "Writes across topologies").
  const groups = new GroupCommit(sendBatch, opts.writeGroups ?? (sync ? 1 : DEFAULT_WRITE_GROUPS), undefined, late)
  const writeBatch: Database['writeBatch'] = (stmts) => {
    const deadline = deadlineOf()
    return limiter.run(() => withTimeout(groups.run(stmts, deadline), Math.max(1, deadline - Date.now()), late), deadline - Date.now())
  }
  // Concurrent read batches of this process go as one too: a read group that fails is sent again as its members (group-commit.ts).
  const readGroups = new GroupCommit((stmts) => gatedClient.batch(stmts, 'deferred'), opts.writeGroups ?? DEFAULT_WRITE_GROUPS, undefined, late)
  const readBatch = mode === 'remote' ? (stmts: InStatement[]) => readGroups.run(stmts) : undefined
  const writeLedger = mode === 'remote' ? ledger : undefined
  const replicaReads = replica ? { ready: (sql: string) => replica.readyFor(sql) } : undefined
  return {
    db, client: gatedClient, mode, replica, write, writeBatch, readBatch, limiter, autocommitWrites: false, writeLedger, memo: memoizer(), reader: reader?.get, replicaReads,
    close: () => client.close(),
  }
}

export type { InStatement }
