/**
 * The credential reads of a local file, through libSQL's native driver on a connection of
 * their own: one synchronous, prepared `get` per request, with no client, pool, promise or
 * result set in between.
 *
 * Through @libsql/client and drizzle, the bearer check's one-row read cost about half of a
 * bearer request's CPU (scripts/bench/core.ts, profiled: the client's pool and row
 * objects, its batch iterator over the native rows, drizzle's generic row mapper), against
 * a few microseconds for the native call itself. The queries stay drizzle's: their SQL and
 * their columns' decoders come from the drizzle query, so a column added to `users` is read
 * and decoded here exactly as drizzle would.
 *
 * Why a second connection, not the app's own: that one is shared with the write
 * transaction in progress (one per process, src/db/gate.ts), and a read on it would see
 * that transaction's uncommitted rows (a user deleted in a transaction that then rolls
 * back). A second connection on a WAL file reads the last committed state, without waiting
 * for the gate; SQLite's locks keep it consistent, and each `get` ends its read at once
 * (a checkpoint is never held up by it). It is opened on first use and never writes.
 * Memory databases have no second connection (a `:memory:` database exists on its own
 * connection only), nor do servers: they keep the drizzle path.
 *
 * An embedded replica's file is a WAL file like any other: its pulls commit the primary's
 * frames into its log, and a plain connection sees each pull once it has committed. So an
 * edge reads its credentials here too, read-only, under the replica's rules
 * (`Database.replicaReads`): the read waits for a pull (through the drizzle path) when this
 * process wrote its tables since the last one, and a row not there yet is asked of the
 * primary. With the replica's @libsql/client and drizzle doing the reads, an edge spent more CPU per
 * wallet created (the before and after of that change are in the git log of docs/benchmarks.md, commit
 * c84c80a; what a wallet costs an edge now: docs/benchmarks.md, "Where a wallet's time goes on an edge").
 */
import Database from 'libsql'
import { Column, is } from 'drizzle-orm'
import * as drizzleUtils from 'drizzle-orm/utils'

/** What a hot read needs of the native driver. */
export interface NativeReader {
  prepare(sql: string): NativeStatement
}
interface NativeDb extends NativeReader {
  exec(sql: string): void
  close(): void
}
// drizzle's own ordering of a selection's fields (the order of the SELECT's columns); exported, not typed
const { orderSelectedFields } = drizzleUtils as unknown as { orderSelectedFields(fields: Record<string, unknown>): Array<{ path: string[]; field: unknown }> }
const openNative = (path: string) => new (Database as unknown as new (path: string) => NativeDb)(path)

interface NativeStatement {
  raw(on?: boolean): NativeStatement
  get(...args: unknown[]): unknown[] | undefined
}

/** The reader of a local file (or of an embedded replica's file, `readOnly`): opened on first use, closed with the database. */
export function lazyReader(path: string, readOnly = false): { get(): NativeReader; close(): void } {
  let db: NativeDb | undefined
  return {
    get() {
      if (!db) {
        db = openNative(path)
        // the same busy timeout as the app's connection (client.ts): only a WAL recovery by another process can make it wait
        db.exec('PRAGMA busy_timeout = 5000')
        // a replica's file is written by its pulls alone
        if (readOnly) db.exec('PRAGMA query_only = 1')
      }
      return db
    },
    close() {
      db?.close()
      db = undefined
    },
  }
}

interface DrizzleQuery {
  toSQL(): { sql: string; params: unknown[] }
}

/** What of the app's database (client.ts, which imports this file) a hot read uses. */
interface ReadDatabase {
  db: unknown
  memo<T>(key: string, build: () => T): T
  reader?: () => NativeReader
  /** an embedded replica's rules for its reader (client.ts `Database.replicaReads`) */
  replicaReads?: { ready(sql: string): boolean }
}

type Decode = (value: unknown) => unknown

/**
 * A one-row read by a drizzle select (its placeholders bound in order, as `args`), run on
 * the native reader of a local file or an embedded replica, its row decoded as drizzle
 * decodes it (nested selections one level deep, a column's own driver mapping, null kept as
 * null). Returns undefined when there is no such row. `fallback` runs where there is no
 * reader (memory, server), and on a replica when the read must wait for a pull or found no
 * row (the replica's own rules: read-your-writes, and a row created elsewhere since the last
 * pull asked of the primary).
 */
export function nativeGetOnce<Row, D extends ReadDatabase>(
  key: string,
  build: (db: D['db']) => DrizzleQuery,
  fallback: (database: D, ...args: string[]) => Promise<Row | undefined>,
  opts: NativeGetOptions = {},
) {
  // made once, not per call: a key built per request was hashed afresh on every lookup
  const memoKey = `native:${key}`
  return (database: D, ...args: string[]): Promise<Row | undefined> | Row | undefined => {
    const reader = database.reader?.()
    if (!reader) return fallback(database, ...args)
    const read = database.memo(memoKey, () => compile<Row>(reader, build(database.db), opts.undecoded ?? []))
    const replica = database.replicaReads
    if (!replica) return read(args)
    if (!replica.ready(read.sql)) return fallback(database, ...args)
    return read(args) ?? fallback(database, ...args)
  }
}

export interface NativeGetOptions {
  /**
   * Top-level fields whose value is handed over as the driver gives it, not decoded (a JSON
   * column's text, not its parsed value): for a caller that decodes it only when it is used.
   * The fallback's rows have them decoded; the caller takes both.
   */
  undecoded?: readonly string[]
}

function compile<Row>(reader: NativeReader, query: DrizzleQuery, undecoded: readonly string[]): ((args: unknown[]) => Row | undefined) & { sql: string } {
  const { sql } = query.toSQL()
  const decode = rowDecoder<Row>(query, undecoded)
  const stmt = reader.prepare(sql).raw(true)
  const read = (args: unknown[]) => {
    const row = stmt.get(...args)
    return row ? decode(row) : undefined
  }
  return Object.assign(read, { sql })
}

/**
 * A raw row (the SELECT's or RETURNING's columns in order) decoded as drizzle decodes the
 * query's selection: nested selections one level deep, a column's own driver mapping, null
 * kept as null.
 */
export function rowDecoder<Row>(query: DrizzleQuery, undecoded: readonly string[] = []): (row: unknown[]) => Row {
  const q = query as unknown as { config: { fields?: Record<string, unknown>; returning?: Array<{ path: string[]; field: unknown }> } }
  const fields = q.config.fields ? orderSelectedFields(q.config.fields) : (q.config.returning ?? [])
  const plan = fields.map(({ path, field }) => {
    if (!is(field, Column) || path.length > 2) throw new Error(`native read: only columns, one level deep (${path.join('.')})`)
    const column = field as Column
    // a column without its own mapping returns the driver's value as it is
    const asIs = column.mapFromDriverValue === Column.prototype.mapFromDriverValue || (path.length === 1 && undecoded.includes(path[0]!))
    const decode: Decode | undefined = asIs ? undefined : (v) => column.mapFromDriverValue(v)
    return { outer: path[0]!, inner: path[1], decode }
  })
  return compiledDecoder<Row>(plan)
}

/**
 * The decoder as one generated function that builds the row as object literals, its fields in
 * the selection's order (`{ user: { id: …, … }, tenantStatus: … }`): a loop storing fields by
 * name (`out[name] = value`) made every store a lookup by a key the engine could not predict,
 * and that loop was about a tenth of the bearer read's JavaScript (in process). The names go
 * into the source as JSON strings; the column decoders are passed in, not written out.
 */
function compiledDecoder<Row>(plan: ReadonlyArray<{ outer: string; inner: string | undefined; decode: Decode | undefined }>): (row: unknown[]) => Row {
  const value = (i: number) => {
    const raw = `r[${i}]`
    return `(${raw} === null || ${raw} === undefined ? null : ${plan[i]!.decode ? `d[${i}](${raw})` : raw})`
  }
  // top-level fields in order of first appearance; a nested one's fields in their own order
  const groups: Array<{ outer: string; fields: Array<{ inner: string | undefined; i: number }> }> = []
  plan.forEach(({ outer, inner }, i) => {
    let group = groups.find((g) => g.outer === outer)
    if (!group) groups.push((group = { outer, fields: [] }))
    group.fields.push({ inner, i })
  })
  const props = groups.map(({ outer, fields }) => {
    // a top-level column named twice keeps the last, as the loop did
    if (fields[0]!.inner === undefined) return `${JSON.stringify(outer)}: ${value(fields[fields.length - 1]!.i)}`
    return `${JSON.stringify(outer)}: { ${fields.map(({ inner, i }) => `${JSON.stringify(inner)}: ${value(i)}`).join(', ')} }`
  })
  const decoders = plan.map((p) => p.decode)
  const build = new Function('d', `return (r) => ({ ${props.join(', ')} })`) as (d: Array<Decode | undefined>) => (row: unknown[]) => Row
  return build(decoders)
}
