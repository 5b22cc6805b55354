/**
 * The embedded replica (see client.ts, `replica`): its pulls from the primary, whether the
 * primary answers, and the client that reads locally and writes on the primary.
 */
import type { Client, InStatement, ResultSet, Transaction, TransactionMode } from '@libsql/client'
import Database from 'libsql'
import { DatabaseUnavailableError } from './errors'
import { recordedTransaction, WriteLedger } from './read-your-writes'

/** One pull: what the primary committed since the last one, brought into the replica's file. */
export type Pull = () => Promise<{ frames_synced?: number; frame_no?: number | null } | undefined>

/**
 * The replica's puller: libSQL's embedded replica opened on the file and used for nothing but
 * its pulls; reads go through connections of their own on the same file (client.ts), which see
 * each pull once it has committed (a replica's file is a WAL file; a pull commits the primary's
 * frames into its log, one SQLite transaction for each of the primary's).
 *
 * The pull is libSQL's synchronous `sync()`: it holds the event loop while it runs, and so holds
 * this edge's writes back while it catches up. A pull off the event loop (the promise API's `sync`
 * on this database) was measured and not kept: the edge then wrote faster than its pulls could
 * bring the frames back (each transaction pulled opens a connection and commits), every pull ran
 * longer than the last, and 3 edges under a bound of 4 writes collapsed (docs/benchmarks.md).
 */
export function openPuller(path: string, syncUrl: string, authToken?: string): { pull: Pull; close(): void } {
  const db = new (Database as unknown as new (path: string, opts: object) => NativeReplica)(path, { syncUrl, authToken })
  return { pull: async () => db.sync(), close: () => db.close() }
}

interface NativeReplica {
  sync(): Awaited<ReturnType<Pull>>
  close(): void
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
 * Pulls the replica from the primary on an interval, and before a read that follows this
 * process's writes (`beforeRead`).
 * A pull against a primary that does not answer waits for seconds (PrimaryHandshakeTimeout,
 * 3 s here; the whole event loop, where the pull is the synchronous one): so the interval pull
 * first asks the primary's /health, and pulls only when it answers.
 */
export class ReplicaSync {
  private lastSyncAt: number | null = null
  private frameNo: number | null = null
  private reachable = true
  private timer?: ReturnType<typeof setInterval>
  private readonly healthUrl: string

  constructor(private readonly pull: Pull, syncUrl: string, private readonly intervalMs: number, private readonly timeoutMs: number) {
    this.healthUrl = healthUrlOf(syncUrl)
  }

  /** What a write may change beyond its table (cascades, triggers), from the replica's schema (`local`: a reader of its file): after the first pull. */
  learnSchema(local: Client) {
    return this.ledger.learn(local)
  }

  /** Pulls now; throws when the primary cannot be reached. */
  syncNow(): ReturnType<Pull> {
    const upTo = this.ledger.seq
    return this.pull().then((r) => {
      this.pulled = Math.max(this.pulled, upTo)
      this.lastSyncAt = Date.now()
      this.frameNo = r?.frame_no ?? this.frameNo
      this.reachable = true
      return r
    })
  }

  /** Whether a read of `stmt` may run on the replica now, without a pull first (see `beforeRead`). */
  readyFor(stmt: InStatement): boolean {
    return this.pulled >= this.ledger.needs(stmt) || !this.reachable
  }

  /**
   * Read-your-writes without a pull after every write: each write of this process that
   * finished is numbered (the ledger, read-your-writes.ts); a pull records the number reached
   * when it began (`pulled`), since it brings everything the primary had committed by then. A
   * read waits for a pull begun after the last write to the tables it reads (one pull serves
   * every read waiting then); other reads read at once. Under a write load, the pulls run at
   * the pace the reads that need them ask, never one per write.
   */
  readonly ledger = new WriteLedger()
  private pulled = 0
  private pulling: Promise<void> | null = null

  /** Before a read on the replica: pulls first if this process wrote to a table it reads since the last pull began. */
  async beforeRead(stmt: InStatement): Promise<void> {
    const need = this.ledger.needs(stmt)
    while (this.pulled < need && this.reachable) {
      this.pulling ??= new Promise<void>((resolve) => setTimeout(() => {
        this.syncNow().catch(() => { this.reachable = false }).finally(() => {
          this.pulling = null
          resolve()
        })
      }))
      await this.pulling
    }
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
 * The embedded replica's client: reads outside a transaction from the local replica (`replica`:
 * a read-only client on its file; after a pull when this process wrote since the last one),
 * everything else on the primary.
 */
export function replicated(replica: Client, primary: Client, sync: ReplicaSync, onClose: () => void = () => {}): Client {
  const afterWrite = async <T>(p: Promise<T>, stmts?: InStatement[]): Promise<T> => {
    const out = await p
    if (stmts) sync.ledger.written(stmts)
    else sync.ledger.writtenAny()
    return out
  }
  // a transaction's statements, counted as one write once it commits
  const recorded = (tx: Transaction) => recordedTransaction(tx, (committed, stmts) => afterWrite(committed, stmts))
  const read = async (stmt: InStatement): Promise<ResultSet> => {
    await sync.beforeRead(stmt)
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
            return isRead(s) ? read(s) : afterWrite(primary.execute(s), [s])
          }
        case 'batch':
          return (stmts: InStatement[], mode?: TransactionMode) => (stmts.every(isRead)
            ? Promise.all(stmts.map((s) => sync.beforeRead(s))).then(() => replica.batch(stmts, mode))
            : afterWrite(primary.batch(stmts, mode), stmts))
        case 'migrate':
          return (stmts: InStatement[]) => afterWrite(primary.migrate(stmts))
        case 'executeMultiple':
          return (sqlText: string) => afterWrite(primary.executeMultiple(sqlText))
        // A transaction counts as one write once it has committed, with the tables its statements wrote.
        case 'transaction':
          return async (mode?: TransactionMode) => recorded(await primary.transaction(mode))
        case 'sync':
          return () => sync.syncNow()
        case 'close':
          return () => {
            sync.stop()
            replica.close()
            primary.close()
            onClose()
          }
        default: {
          const v = Reflect.get(target, prop, receiver)
          return typeof v === 'function' ? v.bind(target) : v
        }
      }
    },
  })
}
