/**
 * Reuses libSQL's prepared statements.
 *
 * @libsql/client prepares a new native statement for every `execute` on a local file and
 * leaves it to the garbage collector to free. Each holds a few KB of native memory that
 * the JavaScript heap does not see, so under load the engine collects late and resident
 * memory climbs (about 170 MiB under the bearer read, where the rest of the process needs
 * under 100). Keeping one statement per SQL text per connection makes a request allocate
 * none: drizzle's SQL texts are a bounded set (values are bound, never inlined), and the
 * cache is bounded anyway. Statements are safe to reuse: the client sets their modes
 * (`raw`, `safeIntegers`) before each run, each run resets them, and SQLite re-prepares
 * one whose table changed. Each statement's result columns are remembered too (below).
 *
 * Not for embedded replicas: a statement prepared before a pull goes on reading what the
 * replica held then (seen as a 401 for a user created on the primary a moment ago). The
 * patch is on the class, so once a process opens a replica, no connection caches again.
 */
import Database from 'libsql'

const MAX_PER_CONNECTION = 500
/**
 * Schema changes run once (a migration, the migrations table's check at each start): prepared for
 * that run and not kept, where each held a few KB of native memory until MAX_PER_CONNECTION others
 * pushed it out (a fresh schema's 172 statements, before it became one script, about 0.7 MiB).
 */
const SCHEMA_CHANGE = /^\s*(CREATE|DROP|ALTER)\s/i
const CACHE = Symbol('slipway.statements')
const INSTALLED = Symbol.for('slipway.statement-cache')

type Prepare = (this: object, sql: string) => unknown

let replicaOpened = false

/** A transaction's native connection, under this key of the libSQL transaction (gate.ts; read by native-tx.ts). */
export const NATIVE_TX = Symbol('slipway.native-tx')

/** The probe `connectionOf` runs; the patched `prepare` notes which connection prepared it. */
export const PROBE_SQL = 'SELECT 1 AS slipway_connection_probe'
let probing = false
let probed: object | undefined

/**
 * The native connection `run` prepares its statement on, when `run` prepares PROBE_SQL
 * synchronously (the libSQL client's `execute` does, before its first await): so a
 * transaction's own connection is found by asking it to run the probe. Undefined when the
 * cache is not installed or `run` did not reach the connection.
 */
export function connectionOf(run: () => Promise<unknown>): object | undefined {
  probing = true
  probed = undefined
  try {
    run().catch(() => undefined)
  } finally {
    probing = false
  }
  const found = probed
  probed = undefined
  return found
}

/** Called before a process opens an embedded replica: statements are prepared afresh from then on. */
export function disableStatementCache() {
  replicaOpened = true
}

export function installStatementCache() {
  const proto = Database.prototype as unknown as { prepare: Prepare; [INSTALLED]?: true }
  if (proto[INSTALLED]) return
  const prepare = proto.prepare
  proto.prepare = function (this: { [CACHE]?: Map<string, unknown> }, sql: string) {
    if (probing && sql === PROBE_SQL) probed = this
    if (replicaOpened) return prepare.call(this, sql)
    const cache = (this[CACHE] ??= new Map())
    let stmt = cache.get(sql)
    if (stmt) return stmt
    stmt = prepare.call(this, sql)
    if (SCHEMA_CHANGE.test(sql)) return stmt
    rememberColumns(stmt as { columns: () => unknown[] })
    rememberModes(stmt as { raw: (on?: boolean) => unknown; safeIntegers: (on?: boolean) => unknown })
    if (cache.size >= MAX_PER_CONNECTION) cache.delete(cache.keys().next().value!)
    cache.set(sql, stmt)
    return stmt
  }
  proto[INSTALLED] = true
}

/**
 * @libsql/client asks a statement for its result columns twice on every run that returns
 * rows (a native call building an object per column: about a tenth of the CPU of the
 * webhook delivery benchmark). A statement's result columns are fixed by its text, and
 * every statement here names its columns (drizzle lists them; no `SELECT *`), so a schema
 * change cannot change them: the first answer is kept (frozen, so no caller can alter it).
 */
function rememberColumns(stmt: { columns: () => unknown[] }) {
  const columnsOf = stmt.columns.bind(stmt)
  let columns: unknown[] | undefined
  stmt.columns = () => (columns ??= Object.freeze(columnsOf()) as unknown[])
}

/**
 * @libsql/client sets a statement's modes before every run: `safeIntegers(true)`, then
 * `raw(true)`, catching the error the native driver throws for a statement that returns no
 * rows (BEGIN, COMMIT, an INSERT or UPDATE without RETURNING): a new Error, its stack
 * captured, on every such run. A registration's write batch runs five; with the caches cold
 * after waiting for its hash, they were about 7% of its JavaScript thread's samples. A mode
 * stays set on the native statement until it is set again (runs do not reset it), and whether
 * a statement returns rows is fixed by its text. So each statement keeps the modes it was last
 * given and calls the driver only to change one, and keeps its first refusal of raw mode, thrown
 * again as is. Every caller sets modes through these methods (the client, native-tx.ts).
 */
function rememberModes(stmt: { raw: (on?: boolean) => unknown; safeIntegers: (on?: boolean) => unknown }) {
  const rawOf = stmt.raw.bind(stmt)
  const safeIntegersOf = stmt.safeIntegers.bind(stmt)
  let refusal: { error: unknown } | undefined
  let raw: boolean | undefined
  let safe: boolean | undefined
  stmt.raw = (on?: boolean) => {
    const want = on ?? true
    if (want && refusal) throw refusal.error
    if (want === raw) return stmt
    try {
      rawOf(want)
    } catch (error) {
      if (want) refusal = { error }
      throw error
    }
    raw = want
    return stmt
  }
  stmt.safeIntegers = (on?: boolean) => {
    const want = on ?? true
    if (want !== safe) {
      safeIntegersOf(want)
      safe = want
    }
    return stmt
  }
}
