/**
 * Held streams to a libSQL server (the primary). The database sends its reads outside interactive transactions here
 * (`onHeldStreams`, below); the pool runs write batches as safely, but writes keep a stream each for now.
 *
 * @libsql/client opens a Hrana stream for every `execute` and `batch` and closes it with the same request, and sqld
 * makes a connection for every stream: it opens the database file and reads the whole schema before it runs a
 * statement, then drops it. That cost sqld about 1.8-2 ms of CPU per request with Slipway's schema, against 0.2 ms for a
 * one-read batch and 0.3-0.6 ms for a two-insert write batch on a stream kept open (docs/benchmarks.md,
 * "What sqld charges per request"). So here a few streams stay open (Hrana over HTTP, each request carrying its
 * stream's baton; WebSocket costs less per request but answered
 * slower at the tail under a write load: same page, "HTTP or WebSocket"), and each call takes one for itself while it
 * runs: nothing waits behind another call on a stream, so no call is sent later than it would have been on its own.
 *
 * - A batch runs as @libsql/client runs it (BEGIN, the statements each on the last one's success, COMMIT, and a
 *   ROLLBACK if the COMMIT did not run): a failed batch leaves no transaction open. A stream that saw any error is
 *   closed all the same (sqld then drops its connection, whatever state it was in), and so is one after a statement
 *   that may leave its connection inside a transaction (BEGIN, SAVEPOINT, several statements in one text).
 * - A stream sqld no longer has (idle past its expiry, about 10 s over HTTP, or sqld restarted): sqld refuses its
 *   baton before running anything, so the call goes again on a new stream. Streams idle for half the expiry are
 *   replaced before use.
 * - A call whose request may have reached sqld but got no answer (the connection broke, no answer within `timeoutMs`)
 *   has an unknown outcome: it fails as a server that cannot be reached (503), as before, and is not sent again,
 *   except a read (SELECTs only), sent once more when the client under it failed.
 *
 * Interactive transactions (`database.write`) keep @libsql/client's stream of their own, unchanged.
 */
import * as hrana from '@libsql/hrana-client'
import { LibsqlError, type Client, type InStatement, type ResultSet, type TransactionMode } from '@libsql/client'

/** Streams kept open between calls (one sqld connection each); more are opened while more calls run at once. */
export const MAX_IDLE_STREAMS = 8
/** Over WebSocket, a stream unused this long is replaced (sqld kept an idle one 25 s and more here). */
export const STREAM_IDLE_MS = 20_000
/** Over HTTP sqld drops a stream idle for about 10 s (its baton then answers STREAM_EXPIRED): one idle for half that is replaced. */
export const HTTP_STREAM_IDLE_MS = 5_000

const BEGIN: Record<TransactionMode, string> = { write: 'BEGIN IMMEDIATE', read: 'BEGIN TRANSACTION READONLY', deferred: 'BEGIN DEFERRED' }

export interface StreamPoolOptions {
  /** the server's URL as the client is given it (http:, https:, libsql:, ws: or wss:) */
  url: string
  authToken?: string
  timeoutMs: number
  maxIdle?: number
  /** Hrana over HTTP (a baton per stream, each request its own; the default) or over WebSocket (one socket, the streams on it) */
  protocol?: 'ws' | 'http'
  /** HTTP: the fetch to send with (its deadline) */
  fetch?: (req: Request) => Promise<Response>
}

/** The WebSocket URL of a server given as http(s)://, libsql:// (TLS unless `?tls=0`) or ws(s)://: sqld serves both on one port. */
export function webSocketUrl(url: string): string {
  // a scheme swapped as text: the URL parser will not turn `libsql:` (not a special scheme) into `ws:`
  const tls = new URL(url).searchParams.get('tls')
  const swapped = url.replace(/^libsql:/, tls === '0' ? 'ws:' : 'wss:').replace(/^http:/, 'ws:').replace(/^https:/, 'wss:')
  const u = new URL(swapped)
  u.search = ''
  return u.toString()
}

/** The HTTP URL of the same server. */
const httpUrl = (url: string) => webSocketUrl(url).replace(/^ws/, 'http')

/** The server says the stream is not there (expired, or sqld restarted since): nothing of the request ran. */
const streamGone = (err: unknown) => (err instanceof hrana.ResponseError && err.code === 'STREAM_EXPIRED')
  || (err instanceof hrana.HttpServerError && err.status === 400 && /baton/i.test(err.message))

const textOf = (s: InStatement) => (typeof s === 'string' ? s : Array.isArray(s) ? String(s[0]) : s.sql)
const isSelect = (s: InStatement) => /^\s*select\b/i.test(textOf(s))
/** A statement that leaves its connection inside a transaction (or may: several statements in one text): its stream is not kept. */
const opensTransaction = (s: InStatement) => /^\s*(begin|savepoint)\b|;\s*\S/i.test(textOf(s))

export class StreamPool {
  private socket?: hrana.Client
  private version?: Promise<number>
  private answeredAt = 0
  private idle: Array<{ stream: hrana.Stream; at: number }> = []
  private shut = false
  /** streams and sockets opened since start (tests and benches) */
  opened = { streams: 0, sockets: 0 }

  private readonly idleMs: number

  constructor(private readonly opts: StreamPoolOptions) {
    this.idleMs = opts.protocol === 'ws' ? STREAM_IDLE_MS : HTTP_STREAM_IDLE_MS
  }

  private open(): hrana.Client {
    if (this.opts.protocol === 'ws') return hrana.openWs(webSocketUrl(this.opts.url), this.opts.authToken, 3)
    return hrana.openHttp(httpUrl(this.opts.url), this.opts.authToken, this.opts.fetch)
  }

  /** Runs `stmt` on a held stream. */
  execute(stmt: InStatement): Promise<ResultSet> {
    const s = toHrana(stmt)
    return this.run((stream) => stream.query(s).then(resultOf), isSelect(stmt), opensTransaction(stmt))
  }

  /** Runs `stmts` as one transaction (`mode`) on a held stream. */
  batch(stmts: InStatement[], mode: TransactionMode = 'deferred'): Promise<ResultSet[]> {
    const s = stmts.map(toHrana)
    return this.run((stream, version) => runBatch(stream, version, mode, s), stmts.every(isSelect))
  }

  close() {
    this.shut = true
    for (const s of this.idle.splice(0)) s.stream.close()
    this.socket?.close()
  }

  private connect(): hrana.Client {
    if (this.shut) throw new LibsqlError('The database client is closed', 'CLIENT_CLOSED')
    if (!this.socket || this.socket.closed) {
      this.idle = []
      this.socket = this.open()
      this.socket.intMode = 'number'
      this.version = this.socket.getVersion()
      this.version.catch(() => undefined)
      this.answeredAt = Date.now()
      this.opened.sockets++
    }
    return this.socket
  }

  private take(): { stream: hrana.Stream; reused: boolean } {
    const socket = this.connect()
    const now = Date.now()
    for (let s = this.idle.pop(); s; s = this.idle.pop()) {
      if (!s.stream.closed && now - s.at < this.idleMs) return { stream: s.stream, reused: true }
      s.stream.close()
    }
    this.opened.streams++
    return { stream: socket.openStream(), reused: false }
  }

  private async run<T>(op: (stream: hrana.Stream, version: number) => Promise<T>, read: boolean, drop = false): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const { stream, reused } = this.take()
      const socket = this.socket!
      const version = this.version!
      try {
        const out = await this.timed(version.then((v) => op(stream, v)), stream, socket)
        if (!drop && !stream.closed && !this.shut && socket === this.socket && this.idle.length < (this.opts.maxIdle ?? MAX_IDLE_STREAMS)) this.idle.push({ stream, at: Date.now() })
        else stream.close()
        return out
      } catch (err) {
        // whatever state sqld's connection is in after an error (a transaction left open among them), it goes with the stream
        stream.close()
        const answer = err instanceof hrana.ResponseError
        // a stream sqld no longer has (HTTP: expired, or sqld restarted): the request ran nothing, so it goes on a new stream
        if (reused && streamGone(err) && !this.shut) continue
        // a read is sent again once on a new socket when the socket failed under it (never a write: its outcome is unknown)
        if (!answer && read && attempt === 0 && !this.shut && socket.closed && (err as Error)?.name !== 'TimeoutError') continue
        throw mapError(err)
      }
    }
  }

  private timed<T>(p: Promise<T>, stream: hrana.Stream, socket: hrana.Client): Promise<T> {
    const ms = this.opts.timeoutMs
    let timer: ReturnType<typeof setTimeout> | undefined
    const answered = (v: T) => {
      if (socket === this.socket) this.answeredAt = Date.now()
      return v
    }
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // nothing at all back on this socket for as long: it is gone without a word; else only this stream is dropped
        if (Date.now() - this.answeredAt >= ms) socket.close()
        else stream.close()
        reject(Object.assign(new Error(`no answer from the database server within ${ms} ms`), { name: 'TimeoutError' }))
      }, ms)
    })
    return Promise.race([p.then(answered, (err: unknown) => {
      if (err instanceof hrana.ResponseError) answered(undefined as T)
      throw err
    }), late]).finally(() => clearTimeout(timer))
  }
}

/**
 * `inner` with its reads (SELECT statements, batches of SELECTs not in write mode) on the held streams of `pool`; writes,
 * transactions, migrations and the rest as they were. Writes stay on a stream each: with write batches on held streams,
 * `tests/replication/write-load.test.ts` answered its slowest request later (3.1-3.6 s alone and 5.7 s once beside the other
 * replication files, load 20, against 2.5-2.8 s with a stream per write batch), which was not traced (docs/benchmarks.md,
 * "HTTP or WebSocket").
 */
export function onHeldStreams(inner: Client, pool: StreamPool): Client {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'execute') {
        return (stmt: InStatement | string, args?: unknown) => {
          const s = args === undefined ? stmt : { sql: stmt as string, args } as InStatement
          return isSelect(s) ? pool.execute(s) : target.execute(s)
        }
      }
      if (prop === 'batch') {
        return (stmts: InStatement[], mode?: TransactionMode) => (mode !== 'write' && stmts.every(isSelect) ? pool.batch(stmts, mode) : target.batch(stmts, mode))
      }
      if (prop === 'close') {
        return () => {
          pool.close()
          target.close()
        }
      }
      const v = Reflect.get(target, prop, receiver)
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
}

/** A batch as @libsql/client's `executeHranaBatch` runs it: in one transaction, rolled back whole when any statement fails. */
async function runBatch(stream: hrana.Stream, version: number, mode: TransactionMode, stmts: hrana.Stmt[]): Promise<ResultSet[]> {
  const batch = stream.batch(false)
  const begin = batch.step()
  const began = begin.run(BEGIN[mode])
  let last = begin
  const rows = stmts.map((s) => {
    const step = batch.step().condition(hrana.BatchCond.ok(last))
    if (version >= 3) step.condition(hrana.BatchCond.not(hrana.BatchCond.isAutocommit(batch)))
    last = step
    return step.query(s)
  })
  const commit = batch.step().condition(hrana.BatchCond.ok(last))
  if (version >= 3) commit.condition(hrana.BatchCond.not(hrana.BatchCond.isAutocommit(batch)))
  const committed = commit.run('COMMIT')
  batch.step().condition(hrana.BatchCond.not(hrana.BatchCond.ok(commit))).run('ROLLBACK').catch(() => undefined)
  // each step's outcome is read in order below; those after the first failure are never read
  for (const p of [began, ...rows, committed]) p.catch(() => undefined)
  await batch.execute()
  await began
  const out: ResultSet[] = []
  for (const p of rows) {
    const r = await p
    if (r === undefined) throw new LibsqlError('Statement in a batch was not executed, probably because the transaction has been rolled back', 'TRANSACTION_CLOSED')
    out.push(resultOf(r))
  }
  await committed
  return out
}

function toHrana(stmt: InStatement): hrana.Stmt {
  const [sql, args] = typeof stmt === 'string' ? [stmt, undefined] : Array.isArray(stmt) ? [stmt[0] as string, stmt[1]] : [stmt.sql, stmt.args]
  const s = new hrana.Stmt(sql)
  if (Array.isArray(args)) s.bindIndexes(args as hrana.InValue[])
  else if (args) for (const [k, v] of Object.entries(args)) s.bindName(k, v as hrana.InValue)
  return s
}

function resultOf(r: hrana.RowsResult): ResultSet {
  const columns = r.columnNames.map((c) => c ?? '')
  return {
    columns,
    columnTypes: r.columnDecltypes.map((c) => c ?? ''),
    rows: r.rows as unknown as ResultSet['rows'],
    rowsAffected: r.affectedRowCount,
    lastInsertRowid: r.lastInsertRowid,
    toJSON() {
      return { columns, rows: r.rows.map((row) => Array.from(row as ArrayLike<unknown>, (v) => (typeof v === 'bigint' ? `${v}` : v))), rowsAffected: r.affectedRowCount,
        lastInsertRowid: r.lastInsertRowid === undefined ? null : `${r.lastInsertRowid}` }
    },
  }
}

/**
 * As @libsql/client maps them: sqld's answer keeps its code (SQLITE_BUSY, SQLITE_CONSTRAINT, ...); anything else is the
 * socket or the protocol failing, which src/db/errors.ts `isUnreachable` reads as a server that cannot be reached.
 */
function mapError(err: unknown): unknown {
  if (err instanceof hrana.ResponseError) return new LibsqlError(err.message, err.code ?? 'UNKNOWN', undefined, undefined, err)
  if (err instanceof LibsqlError || (err as Error)?.name === 'TimeoutError') return err
  if (err instanceof hrana.ClientError) return new LibsqlError(err.message, err instanceof hrana.WebSocketError ? 'HRANA_WEBSOCKET_ERROR' : 'SERVER_ERROR', undefined, undefined, err)
  return err
}
