/**
 * Reading a database error: the server could not be reached (503), or a unique index refused a row.
 */
import { ServiceUnavailableError } from '../lib/errors'

/**
 * The database server (the primary) cannot be reached or did not answer in time: 503 with
 * `retry-after` (a hint: the server may be back in a second, or not).
 */
export class DatabaseUnavailableError extends ServiceUnavailableError {
  readonly retryAfterSeconds = 1
  constructor(message: string) {
    super(message, { code: 'DATABASE_UNAVAILABLE' })
  }
}

/**
 * How long a write may take in all (its wait for a place, the gate or the group commit's line, and the server's answer),
 * counted from its request's start: DATABASE_TIMEOUT_MS less what the rest of the request needs and what a busy
 * machine adds to a timer (a fifth of it, at most 1 s), so that the request's answer, a 503 included, leaves within
 * DATABASE_TIMEOUT_MS. A timer on a loaded 2-core machine fired up to 170 ms late (tests/replication/write-deadline.test.ts).
 */
export const writeBudgetMs = (timeoutMs: number) => Math.max(1, timeoutMs - Math.min(1000, Math.ceil(timeoutMs / 5)))

/**
 * This process has as many writes in flight as it may (DATABASE_MAX_WRITES) and the write
 * waited DATABASE_WRITE_WAIT_MS for a place: 503 with `retry-after`. Nothing was written.
 */
export class DatabaseBusyError extends ServiceUnavailableError {
  constructor(readonly retryAfterSeconds: number, detail = 'Too many writes in flight on this server; nothing was written, try again shortly') {
    super(detail, { code: 'DATABASE_BUSY' })
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
