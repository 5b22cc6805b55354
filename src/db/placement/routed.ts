/**
 * The `Database` that `deps.database` is when tenants are placed: every member works on the
 * database of the current scope (scope.ts), or on the control database outside any. Repos keep
 * calling `deps.database.db` and `deps.database.write(...)` as before; which database answers
 * is decided once per request (the credential check) or per job (the runner), not per call
 * site.
 *
 * `db` is one drizzle instance over a client that picks the scope's database when a statement
 * runs, not when `db` is read: a verb that took `const { db } = deps.database` before the
 * operator's tenant was entered (tenants' `operatorTenant`) still reads that tenant's rows.
 * A transaction stays on the database where it began: `write` (and `db.transaction`) picks
 * the database when it starts, and the `tx` it hands out belongs to that database's client.
 */
import type { Client } from '@libsql/client'
import { drizzle } from 'drizzle-orm/libsql/sqlite3'
import type { Database } from '../client'
import { scopes } from './scope'

export function routedDatabase(control: Database, all: () => Database[]): Database {
  const current = () => scopes.getStore()?.database ?? control
  const client = new Proxy({} as Client, {
    get(_, prop) {
      const target = current().client as unknown as Record<string | symbol, unknown>
      const v = target[prop]
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })
  const db = drizzle(client)
  return {
    db,
    client,
    get mode() {
      return current().mode
    },
    // what /health/ready and the metrics report: the control database's replica, when it is one
    get replica() {
      return control.replica
    },
    get writeLedger() {
      return current().writeLedger
    },
    get autocommitWrites() {
      return current().autocommitWrites
    },
    write: (fn) => current().write(fn),
    // a batch, grouped with its neighbours', goes to the scope's database: group commit stays within one database
    writeBatch: (stmts) => current().writeBatch(stmts),
    get limiter() {
      return current().limiter
    },
    memo: (key, build) => current().memo(key, build),
    close: () => {
      for (const d of all()) d.close()
    },
  }
}
