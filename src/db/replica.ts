/**
 * The embedded replica (see client.ts, `replica`): its pulls from the primary, and whether the
 * primary answers. The client that reads locally and writes on the primary: replicated.ts.
 */
import type { Client, InStatement } from '@libsql/client'
import Database from 'libsql'
import { WriteLedger } from './read-your-writes'

/** One pull: what the primary committed since the last one, brought into the replica's file. */
export type Pull = () => Promise<{ frames_synced?: number; frame_no?: number | null } | undefined>

/**
 * The replica's puller: libSQL's embedded replica opened on the file and used for nothing but
 * its pulls; reads go through connections of their own on the same file (client.ts), which see
 * each pull once it has committed (a replica's file is a WAL file; a pull commits the primary's
 * frames into its log, one SQLite transaction for each of the primary's).
 *
 * What a pull costs is set by libSQL's injector (libsql-replication, `SqliteInjector`): for each of
 * the primary's transactions it brings, a new connection on the file (its schema read again), a
 * transaction, and two fsyncs (the log and its folder), about 0.5-1 ms of CPU and 1-20 ms of wall time
 * on this machine's disk (scripts/bench/pull-cost.ts). None of that can be set from here.
 *
 * `offLoop` (DATABASE_SYNC_MAX_BEHIND set): the pull runs on libSQL's own thread (the promise API's `sync`), so the
 * event loop serves requests while the injector waits on its fsyncs; the writes of this process are
 * then bounded by how far its pulls are behind them (`ReplicaSync`, `maxBehind`), or an edge writes
 * faster than it pulls and every pull runs longer than the last. Otherwise (the default) the synchronous
 * `sync()`, which holds the event loop (and so this edge's writes) while it runs.
 */
export async function openPuller(path: string, syncUrl: string, authToken?: string, offLoop = true): Promise<{ pull: Pull; close(): void }> {
  const db = new (Database as unknown as new (path: string, opts: object) => NativeReplica)(path, { syncUrl, authToken })
  if (!offLoop) return { pull: async () => db.sync(), close: () => db.close() }
  // The promise API's `sync` on the same native database (both load the one addon; scripts/build.ts embeds it for both):
  // its own constructor passes libsql 0.5.29's native open one argument short and fails.
  const asyncSync = ((await import('libsql/promise')).default.prototype as unknown as { sync(this: NativeReplica): ReturnType<Pull> }).sync
  return { pull: () => asyncSync.call(db), close: () => db.close() }
}

interface NativeReplica {
  sync(): Awaited<ReturnType<Pull>>
  close(): void
}

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
  /** pulls made, WAL frames they brought, and the time they took (ms), since start */
  pulls: number
  framesPulled: number
  pullMs: number
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
  private pulls = 0
  private framesPulled = 0
  private pullMs = 0
  private timer?: ReturnType<typeof setInterval>
  private readonly healthUrl: string

  /**
   * `maxBehind`: with a pull off the event loop (openPuller), how many writes of this process may be
   * on the primary and not yet pulled before its next write waits for a pull (0: no bound, for the
   * synchronous pull, which holds the writes itself while it runs). See `beforeWrite`.
   */
  constructor(private readonly pull: Pull, syncUrl: string, private readonly intervalMs: number, private readonly timeoutMs: number,
    private readonly maxBehind = 0) {
    this.healthUrl = healthUrlOf(syncUrl)
  }

  /** What a write may change beyond its table (cascades, triggers), from the replica's schema (`local`: a reader of its file): after the first pull. */
  learnSchema(local: Client) {
    return this.ledger.learn(local)
  }

  /** Pulls now; throws when the primary cannot be reached. */
  syncNow(): ReturnType<Pull> {
    const upTo = this.ledger.seq
    const t0 = performance.now()
    return this.pull().then((r) => {
      this.pulls++
      this.pullMs += performance.now() - t0
      this.framesPulled += r?.frames_synced ?? 0
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

  /** The pull running, or one begun on the next turn of the event loop (so that everything waiting now shares it). */
  private pullShared(): Promise<void> {
    this.pulling ??= new Promise<void>((resolve) => setTimeout(() => {
      this.syncNow().catch(() => { this.reachable = false }).finally(() => {
        this.pulling = null
        resolve()
      })
    }))
    return this.pulling
  }

  /** Before a read on the replica: pulls first if this process wrote to a table it reads since the last pull began. */
  async beforeRead(stmt: InStatement): Promise<void> {
    const need = this.ledger.needs(stmt)
    while (this.pulled < need && this.reachable) await this.pullShared()
  }

  /**
   * Before a write of this process is sent (`maxBehind` set): the bound on how far this replica's pulls
   * are behind its own writes. A pull brings every transaction the primary committed since the last
   * one, each at a cost of its own (openPuller), and each edge pulls the writes of every edge: with
   * pulls off the event loop and nothing holding the writes, an edge under load wrote faster than it
   * pulled, each pull took longer than the last, and 3 edges collapsed (docs/benchmarks.md). So while
   * `maxBehind` or more of this process's writes are not yet pulled, a write waits for the pull running
   * (or starts one): the edges write at the pace they pull, whatever the others write. Counted in this
   * process's transactions, not frames: a pulled transaction's cost is mostly its own (a connection, a
   * commit, two fsyncs), whatever its size. False when the deadline came first: the write was not sent.
   */
  async beforeWrite(deadline: number): Promise<boolean> {
    while (this.maxBehind && this.ledger.seq - this.pulled >= this.maxBehind && this.reachable) {
      const left = deadline - Date.now()
      if (left <= 0) return false
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([this.pullShared(), new Promise<void>((r) => { timer = setTimeout(r, left) })])
      clearTimeout(timer)
    }
    return true
  }

  /** After a write of this process: past half the bound, a pull begins in the background, so that writes seldom wait for one. */
  wrote() {
    if (this.maxBehind && !this.pulling && this.ledger.seq - this.pulled >= this.maxBehind / 2 && this.reachable) void this.pullShared()
  }

  /** Once the pull running (if any) has finished. */
  settled(): Promise<void> {
    return this.pulling ?? Promise.resolve()
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
    await this.pullShared()
  }

  status(): ReplicaState {
    const lagMs = this.lastSyncAt === null ? -1 : Date.now() - this.lastSyncAt
    // Fresh: the primary answers and the last pull is within a few intervals.
    const fresh = this.reachable && this.lastSyncAt !== null && lagMs <= Math.max(3 * this.intervalMs, 5000)
    return {
      state: fresh ? 'fresh' : 'stale', lagMs, frameNo: this.frameNo, lastSyncAt: this.lastSyncAt, primaryReachable: this.reachable,
      pulls: this.pulls, framesPulled: this.framesPulled, pullMs: this.pullMs,
    }
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
