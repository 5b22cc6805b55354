import type { Database, Db } from './client'

/**
 * A prepared query a hot path runs on every request, built once per connection: a repo
 * defines it with `preparedOnce` beside its other queries and exports a function that runs
 * it, so callers pass the `Database` and never handle the prepared statement or its key.
 * Outside transactions only: it runs on `db`'s connection.
 */
export function preparedOnce<T>(key: string, build: (db: Db) => T): (database: Pick<Database, 'db' | 'memo'>) => T {
  return (database) => database.memo(key, () => build(database.db))
}
