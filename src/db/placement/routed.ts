/**
 * The `Database` that `deps.database` is when tenants are placed: every member reads the
 * database of the current scope (scope.ts), or the control database outside any. Repos keep
 * calling `deps.database.db` and `deps.database.write(...)` as before; which database answers
 * is decided once per request (the credential check) or per job (the runner), not per call
 * site. A transaction opened on one database stays on it: `write` picks the database when it
 * starts, and the `tx` it hands out belongs to that database's client.
 */
import type { Database } from '../client'
import { scopes } from './scope'

export function routedDatabase(control: Database, all: () => Database[]): Database {
  const current = () => scopes.getStore()?.database ?? control
  return {
    get db() {
      return current().db
    },
    get client() {
      return current().client
    },
    get mode() {
      return current().mode
    },
    // what /health/ready and the metrics report: the control database's replica, when it is one
    get replica() {
      return control.replica
    },
    get autocommitWrites() {
      return current().autocommitWrites
    },
    write: (fn) => current().write(fn),
    memo: (key, build) => current().memo(key, build),
    close: () => {
      for (const d of all()) d.close()
    },
  }
}
