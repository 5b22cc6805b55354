import type { Client, InStatement, InValue, Transaction } from '@libsql/client'
import { Param, Placeholder, getTableColumns, sql } from 'drizzle-orm'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Executor } from './client'

/**
 * An insert of one whole row (every column named) for a hot path, inside a transaction or
 * not. drizzle builds an insert's SQL anew on every call: for registration's two inserts
 * (16 and 9 columns) that was 14% of the JavaScript thread's samples, more than running them.
 * Here drizzle builds the text once, with a placeholder per column, and each call binds the
 * row's values, each through its column's own mapping to the driver (as drizzle does), and
 * runs the text on the executor's own libSQL client, or on its libSQL transaction when given
 * one, so the insert commits or rolls back with it.
 *
 * The client and the transaction are drizzle's session's, not part of drizzle's typed API:
 * should a drizzle release move them, the first insert throws, and tests/lib/insert-row.test.ts
 * fails.
 */
export function insertRow<T extends SQLiteTable>(table: T): (executor: Executor, row: T['$inferSelect']) => Promise<void> {
  const statement = insertRowStatement(table)
  return async (executor, row) => {
    await clientOf(executor).execute(statement(executor, row))
  }
}

/**
 * The same insert as a statement of a write batch (`Database.writeBatch`), its text built
 * once: what a write made of inserts known up front sends in one request.
 */
export function insertRowStatement<T extends SQLiteTable>(table: T): (executor: Executor, row: T['$inferSelect']) => InStatement {
  let built: { text: string; params: Array<{ key: string; encode: (v: unknown) => unknown }> } | undefined
  const build = (executor: Executor) => {
    const placeholders = Object.fromEntries(Object.keys(getTableColumns(table)).map((key) => [key, sql.placeholder(key)]))
    const query = executor.insert(table).values(placeholders as T['$inferInsert']).toSQL()
    const params = query.params.map((p) => {
      if (!(p instanceof Param) || !(p.value instanceof Placeholder)) throw new Error(`insertRow: unexpected parameter in ${query.sql}`)
      const encoder = p.encoder as { mapToDriverValue: (v: unknown) => unknown }
      return { key: p.value.name, encode: (v: unknown) => encoder.mapToDriverValue(v) }
    })
    return { text: query.sql, params }
  }
  return (executor, row) => {
    built ??= build(executor)
    const values = row as Record<string, unknown>
    const args = built.params.map(({ key, encode }) => {
      const v = values[key]
      if (v === undefined) throw new Error(`insertRow: ${key} is missing`)
      return (v === null ? null : encode(v)) as InValue
    })
    return { sql: built.text, args }
  }
}

/** drizzle's session keeps the libSQL client, and inside a transaction the libSQL transaction as `tx`. */
function clientOf(executor: Executor): Pick<Client | Transaction, 'execute'> {
  const session = (executor as unknown as { session?: { client?: Pick<Client, 'execute'>; tx?: Pick<Transaction, 'execute'> } }).session
  const client = session && 'tx' in session && session.tx ? session.tx : session?.client
  if (typeof client?.execute !== 'function') throw new Error('insertRow: drizzle no longer exposes its session\'s client')
  return client
}
