/**
 * Which database the code running now works on, when tenants are placed on databases of
 * their own (TENANT_PLACEMENT, docs/scaling.md). One AsyncLocalStorage for the process: a
 * request runs inside a scope with no database (the control database), and the credential
 * check sets the caller's tenant's database on that same object, so everything the request
 * does after it (its verbs, its repos, its transactions) reaches that database without a
 * parameter. A job runs inside the scope of the database it was claimed from.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Database } from '../client'

export interface Scope {
  /** unset: the control database */
  database?: Database
  /** the placement this scope belongs to (new work scheduled here is a hint to its runner) */
  placement?: { hint(): void }
}

export const scopes = new AsyncLocalStorage<Scope>()
