/**
 * Hot statements inside a write transaction, run natively on the transaction's own
 * connection (a local file or memory): no query builder, client, promise or result set per
 * statement.
 *
 * Through drizzle and @libsql/client a one-row insert or read cost 45-170 µs of CPU, most of
 * it building the SQL text again and the client's result objects, against a few µs for the
 * native call (scripts/bench/webhooks.ts, profiled: publishing an event was three such
 * statements, about 300 µs). A statement here is written once with drizzle, its values named
 * placeholders, and compiled once to its SQL and its parameters' encoders; the row a read
 * returns is decoded as drizzle decodes it. So the SQL and the columns stay drizzle's, and a
 * column's own mapping (JSON, booleans) applies exactly as it would.
 *
 * The native connection is the transaction's own (src/db/gate.ts answers it, found once per
 * transaction), so a statement sees and joins the transaction's writes, as through drizzle.
 * On a server or a replica (whose transactions run on the primary over HTTP), and on `db`
 * outside a transaction, the same query runs through drizzle.
 */
import { is, Param, Placeholder, sql } from 'drizzle-orm'
import type { Executor } from './client'
import { rowDecoder } from './native-read'
import { NATIVE_TX } from './statement-cache'

interface NativeStatement {
  run(args: unknown[]): { changes: number }
  get(args: unknown[]): unknown[] | undefined
  all(args: unknown[]): unknown[][]
  raw(on?: boolean): NativeStatement
  safeIntegers(on?: boolean): NativeStatement
}

export interface NativeConnection {
  prepare(sql: string): NativeStatement
}

/** The open transaction's own native connection, or undefined (a server, a replica, or `db` outside a transaction). */
export function nativeTx(executor: Executor): NativeConnection | undefined {
  const tx = (executor as unknown as { session?: { tx?: Record<symbol, unknown> } }).session?.tx
  return tx?.[NATIVE_TX] as NativeConnection | undefined
}

interface Query {
  toSQL(): { sql: string; params: unknown[] }
}
interface Runnable extends Query {
  run(): Promise<{ rowsAffected: number }>
}
interface Readable<Row> extends Query {
  all(): Promise<Row[]>
}

type Values = Record<string, unknown>

interface Plan {
  sql: string
  args: Array<(v: Values) => unknown>
}

function compile(query: Query): Plan {
  const { sql: text, params } = query.toSQL()
  const args = params.map((p): ((v: Values) => unknown) => {
    if (is(p, Placeholder)) return (v) => v[p.name] ?? null
    if (is(p, Param) && is(p.value, Placeholder)) {
      const name = (p.value as Placeholder).name
      const encoder = p.encoder
      return encoder ? (v) => (v[name] === null || v[name] === undefined ? null : encoder.mapToDriverValue(v[name])) : (v) => v[name] ?? null
    }
    return () => p
  })
  // a text of its own: the connection's statement cache (statement-cache.ts) then gives this plan a statement the client never
  // runs (a native `get` on a statement the client had just run through `all` answered the client's row again)
  return { sql: `${text} /* native */`, args }
}

/** Named placeholders for a statement's values: `v.id` stands for the value `id`. */
const placeholders = new Proxy({}, { get: (_, name) => sql.placeholder(String(name)) }) as Values

function bind(plan: Plan, values: Values): unknown[] {
  const out = new Array(plan.args.length)
  for (let i = 0; i < plan.args.length; i++) out[i] = plan.args[i]!(values)
  return out
}

/**
 * A write written once with drizzle: `build(db, v)` with `v.name` for each value. `run` answers
 * the rows it changed.
 */
export function txWrite<V extends object>(build: (db: Executor, v: V) => Runnable) {
  let plan: Plan | undefined
  return async (tx: Executor, values: V): Promise<number> => {
    const native = nativeTx(tx)
    if (!native) return (await build(tx, values).run()).rowsAffected
    plan ??= compile(build(tx, placeholders as V))
    return native.prepare(plan.sql).run(bind(plan, values as Values)).changes
  }
}

/**
 * A read (or a write with RETURNING) written once with drizzle, as `txWrite`: answers its
 * rows, decoded as drizzle decodes them.
 */
export function txRead<V extends object, Row>(build: (db: Executor, v: V) => Readable<Row>) {
  const decoded = decodedPlan(build)
  return async (tx: Executor, values: V): Promise<Row[]> => {
    const native = nativeTx(tx)
    if (!native) return build(tx, values).all()
    const plan = decoded(tx)
    return statement(native, plan).all(bind(plan, values as Values)).map(plan.decode)
  }
}

/** A read of at most one row, as `txRead` (the native `get`, which costs less than `all`): the row or undefined. */
export function txReadOne<V extends object, Row>(build: (db: Executor, v: V) => Readable<Row> & { get(): Promise<Row | undefined> }) {
  const decoded = decodedPlan(build)
  return async (tx: Executor, values: V): Promise<Row | undefined> => {
    const native = nativeTx(tx)
    if (!native) return build(tx, values).get()
    const plan = decoded(tx)
    const row = statement(native, plan).get(bind(plan, values as Values))
    return row ? plan.decode(row) : undefined
  }
}

function decodedPlan<V extends object, Row>(build: (db: Executor, v: V) => Readable<Row>) {
  let plan: (Plan & { decode: (row: unknown[]) => Row }) | undefined
  return (tx: Executor) => {
    if (!plan) {
      const query = build(tx, placeholders as V)
      plan = { ...compile(query), decode: rowDecoder<Row>(query) }
    }
    return plan
  }
}

// the connection's cached statement for the plan's own text; its modes are set on every use all the same
const statement = (native: NativeConnection, plan: Plan) => native.prepare(plan.sql).safeIntegers(false).raw(true)
