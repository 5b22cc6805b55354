import type { InStatement, InValue } from '@libsql/client'

/**
 * A drizzle query as a statement for `Database.writeBatch`: its SQL text and parameters, each
 * already through its column's mapping to the driver (drizzle's `toSQL()` applies them).
 */
export function statementOf(query: { toSQL(): { sql: string; params: unknown[] } }): InStatement {
  const { sql, params } = query.toSQL()
  return { sql, args: params as InValue[] }
}
