/**
 * Tenants on databases of their own (TENANT_PLACEMENT; the design is docs/scaling.md).
 *
 * Off by default: without a placement `deps.database` is the one database and every helper
 * here runs its function as it is. With one, `deps.database` is a routed database
 * (routed.ts): the control database (DATABASE_URL) holds tenants, API-key lookup and platform
 * admins; each placed tenant's rows, outbox and idempotency keys live in the database its
 * entry names. The credential check picks the tenant's database once per request
 * (`enterTenant`), the job runner drains each database in its own scope
 * (`databasesToDrain`), and every migration runs on every database as it opens.
 */
import type { Database, Tx } from '../client'
import { mirrorTenantRow } from './mirror'
import { routedDatabase } from './routed'
import { scopes } from './scope'

export interface PlacementEntry {
  /** the tenant's libSQL database: a sqld namespace by host name (`http://acme.db.example:8080`), another server, or a file */
  url: string
  authToken?: string
}

/** Tenant id → its database. Tenants not listed stay on the control database. */
export type PlacementMap = Record<string, PlacementEntry>

/** A database the runner drains, with the scope its jobs run in. */
export interface DatabaseScope {
  /** `control`, or the URL of a tenant database (jobs carry it to the worker that runs them) */
  key: string
  run<T>(fn: () => Promise<T>): Promise<T>
}

/** How long a database with newly scheduled work stays on the runner's list (it is drained at every poll meanwhile). */
export const HINT_TTL_MS = 2000
/** Every database is drained at least this often, hinted or not: delayed jobs, and work a hint missed. */
export const SWEEP_INTERVAL_MS = 5000

export class Placement {
  readonly byTenant = new Map<string, Database>()
  /** control first, then each tenant database once, by URL */
  readonly databases: Array<{ key: string; database: Database }>
  private readonly hints = new Map<string, number>()
  private lastSweep = -Infinity

  constructor(readonly control: Database, tenantDatabases: Map<string, Database>, map: PlacementMap) {
    this.databases = [{ key: 'control', database: control }, ...[...tenantDatabases].map(([key, database]) => ({ key, database }))]
    for (const [tenantId, entry] of Object.entries(map)) this.byTenant.set(tenantId, tenantDatabases.get(entry.url)!)
  }

  forTenant(tenantId: string | null | undefined): Database {
    return (tenantId && this.byTenant.get(tenantId)) || this.control
  }

  scopeOf(key: string): DatabaseScope {
    const found = this.databases.find((d) => d.key === key) ?? this.databases[0]!
    return { key: found.key, run: (fn) => scopes.run({ database: found.database, placement: this }, fn) }
  }

  /** The current scope's database has new work (a job was scheduled on it). */
  hint(now = Date.now()) {
    const database = scopes.getStore()?.database ?? this.control
    const key = this.databases.find((d) => d.database === database)?.key
    if (key) this.hints.set(key, now)
  }

  /** The databases a worker pass drains: those hinted lately, or all of them once per sweep. */
  toDrain(now = Date.now()): DatabaseScope[] {
    if (now - this.lastSweep >= SWEEP_INTERVAL_MS || now < this.lastSweep) {
      this.lastSweep = now
      return this.databases.map((d) => this.scopeOf(d.key))
    }
    const keys: string[] = []
    for (const [key, at] of this.hints) {
      if (now - at > HINT_TTL_MS) this.hints.delete(key)
      else keys.push(key)
    }
    return keys.map((k) => this.scopeOf(k))
  }

  /** Copies a placed tenant's row from the control database into its own (mirror.ts); nothing for a tenant on the control database. */
  async mirror(tenantId: string): Promise<void> {
    const target = this.byTenant.get(tenantId)
    if (target && target !== this.control) await mirrorTenantRow(this.control, target, tenantId)
  }
}

const placements = new WeakMap<Database, Placement>()

/** The placement behind a routed database; undefined when tenants are not placed. */
export const placementOf = (database: Database): Placement | undefined => placements.get(database)

/**
 * Opens every database a placement names (`open` applies the migrations to each, as to the
 * control database), copies each placed tenant's row into its database, and answers the
 * routed database that `deps.database` becomes.
 */
export async function openPlacement(control: Database, map: PlacementMap, open: (entry: PlacementEntry) => Promise<Database>): Promise<Database> {
  const tenantDatabases = new Map<string, Database>()
  try {
    for (const entry of Object.values(map)) if (!tenantDatabases.has(entry.url)) tenantDatabases.set(entry.url, await open(entry))
  } catch (err) {
    for (const d of tenantDatabases.values()) d.close()
    throw err
  }
  const placement = new Placement(control, tenantDatabases, map)
  for (const tenantId of Object.keys(map)) await placement.mirror(tenantId)
  const routed = routedDatabase(control, () => placement.databases.map((d) => d.database))
  placements.set(routed, placement)
  return routed
}

/** Runs one request: with a placement, in a scope of its own that the credential check can point at the caller's tenant. */
export function inRequestScope<T>(database: Database, fn: () => T): T {
  const placement = placements.get(database)
  return placement ? scopes.run({ placement }, fn) : fn()
}

/**
 * The rest of this request works on the tenant's database (its credentials were just read).
 * Nothing without a placement, or outside a request scope.
 */
export function enterTenant(database: Database, tenantId: string | null | undefined) {
  const placement = placements.get(database)
  if (!placement) return
  const scope = scopes.getStore()
  if (scope) scope.database = placement.forTenant(tenantId)
}

/** Whether the tenant is placed on a database of its own. */
export function isPlaced(database: Database, tenantId: string | null | undefined): boolean {
  return !!tenantId && (placements.get(database)?.byTenant.has(tenantId) ?? false)
}

/**
 * A credential that names no tenant but is looked up in one (a refresh token): a placed
 * tenant's carry its id in front (`<tenant id>.<token>`), which routes the lookup. The id only
 * says where to look; the token's hash is still what is checked there.
 */
export function routedToken(database: Database, tenantId: string | null | undefined, token: string): string {
  return isPlaced(database, tenantId) ? `${tenantId}.${token}` : token
}

/** Enters the tenant a routed token names (see routedToken); nothing for a plain token. */
export function enterTokenTenant(database: Database, presented: string) {
  const dot = presented.indexOf('.')
  if (dot > 0) enterTenant(database, presented.slice(0, dot))
}

/** The database the current scope works on, and a way to run later work in that scope. */
export interface CurrentScope {
  database: Database
  run<T>(fn: () => Promise<T>): Promise<T>
}

/**
 * The current scope, kept for work that outlives its caller's turn: a group commit collects
 * writes from several jobs or requests, and with tenants placed those may be in different
 * databases, so it groups them by `database` and writes each group in its own scope.
 * Without a placement: the one database, and `run` runs as it is.
 */
export function currentScope(database: Database): CurrentScope {
  const placement = placements.get(database)
  if (!placement) return { database, run: (fn) => fn() }
  const target = scopes.getStore()?.database ?? placement.control
  return { database: target, run: (fn) => scopes.run({ database: target, placement }, fn) }
}

/** Runs `fn` on the control database, whatever the current scope. */
export function inControl<T>(database: Database, fn: () => Promise<T>): Promise<T> {
  const placement = placements.get(database)
  return placement ? scopes.run({ database: placement.control, placement }, fn) : fn()
}

/**
 * A write to the tenants table: on the control database, then the tenant's row copied into
 * the tenant's own (mirror.ts). Without a placement, `database.write`.
 */
export async function controlWrite<T>(database: Database, tenantId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const placement = placements.get(database)
  if (!placement) return database.write(fn)
  const out = await scopes.run({ database: placement.control, placement }, () => placement.control.write(fn))
  await placement.mirror(tenantId)
  return out
}

/** The scopes a worker pass drains: one that runs as it is without a placement. */
export function databasesToDrain(database: Database): DatabaseScope[] {
  return placements.get(database)?.toDrain() ?? [{ key: 'control', run: (fn) => fn() }]
}

/** Every database's scope (start hooks, counts): one without a placement. */
export function everyDatabase(database: Database): DatabaseScope[] {
  const placement = placements.get(database)
  return placement ? placement.databases.map((d) => placement.scopeOf(d.key)) : [{ key: 'control', run: (fn) => fn() }]
}

/** The scope a job claimed from database `key` runs in. */
export function databaseScope(database: Database, key: string | undefined): DatabaseScope {
  return placements.get(database)?.scopeOf(key ?? 'control') ?? { key: 'control', run: (fn) => fn() }
}

/** A job was scheduled in the current scope: its database goes on its runner's list (nothing outside a placement's scope). */
export function hintScheduled() {
  scopes.getStore()?.placement?.hint()
}
