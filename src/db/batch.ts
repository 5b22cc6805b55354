import type { InStatement, InValue, ResultSet } from '@libsql/client'
import type { BatchItem, BatchResponse } from 'drizzle-orm/batch'
import type { Database } from './client'

/**
 * A drizzle query as a statement for `Database.writeBatch`: its SQL text and parameters, each
 * already through its column's mapping to the driver (drizzle's `toSQL()` applies them).
 */
export function statementOf(query: { toSQL(): { sql: string; params: unknown[] } }): InStatement {
  const { sql, params } = query.toSQL()
  return { sql, args: params as InValue[] }
}

/**
 * Reads that do not depend on each other, at once: on a server (topology b) one request, a read
 * batch (each read a round trip otherwise, and each request costs sqld about as much CPU as a
 * small statement); elsewhere each on its own (a file or a replica reads locally).
 */
export function readAll<T extends Readonly<[BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]>>(database: Reads, queries: T): Promise<BatchResponse<T>> {
  if (database.mode === 'remote' && database.readBatch) return grouped(database.readBatch, queries) as Promise<BatchResponse<T>>
  if (database.mode === 'remote') return database.db.batch(queries) as Promise<BatchResponse<T>>
  return Promise.all(queries) as unknown as Promise<BatchResponse<T>>
}

type Reads = Pick<Database, 'db' | 'mode'> & Partial<Pick<Database, 'readBatch'>>

interface Prepared { getQuery(): { sql: string; params: unknown[] }; mapResult(result: ResultSet, isFromBatch: boolean): unknown }

/** drizzle's own batch (drizzle-orm/libsql/session.js), its statements sent through `readBatch`: the answers mapped as drizzle maps them. */
async function grouped(readBatch: NonNullable<Database['readBatch']>, queries: readonly BatchItem<'sqlite'>[]): Promise<unknown[]> {
  const prepared = queries.map((q) => (q as unknown as { _prepare(): Prepared })._prepare())
  const results = await readBatch(prepared.map((p) => {
    const { sql, params } = p.getQuery()
    return { sql, args: params as InValue[] }
  }))
  return results.map((r, i) => prepared[i]!.mapResult(r, true))
}

type Answers<Q> = { [K in keyof Q]: Q[K] extends BatchItem<'sqlite'> ? Awaited<Q[K]> : undefined }

/** `readAll` of named queries, those undefined left out (answered undefined): each answer under its query's name. */
export async function readEach<Q extends Record<string, BatchItem<'sqlite'> | undefined>>(database: Reads, queries: Q): Promise<Answers<Q>> {
  const names = Object.keys(queries).filter((k) => queries[k] !== undefined)
  const items = names.map((k) => queries[k]!) as unknown as Readonly<[BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]>
  const answers: readonly unknown[] = names.length ? await readAll(database, items) : []
  const out: Record<string, unknown> = Object.fromEntries(Object.keys(queries).map((k) => [k, undefined]))
  names.forEach((k, i) => { out[k] = answers[i] })
  return out as Answers<Q>
}
