/**
 * The credential reads behind every authenticated request: the user a verified token names
 * with its tenant (row and stored settings, in the same statement), and the tenant an API
 * key names. The auth step (src/http/auth.ts) reads the caller here once per request, and
 * the context it builds carries the tenant to every verb, so no verb reads it again. The
 * users and tenants modules own these tables; these are their only readers outside them,
 * and they only read.
 */
import { and, eq, sql } from 'drizzle-orm'
import type { Database, Db, Executor } from './client'
import { andThen, type Maybe } from '../lib/maybe'
import { nativeGetOnce } from './native-read'
import { preparedOnce } from './prepared'
import { tenants, users } from './schema'

/**
 * The bearer check's read: the user and its tenant by user id. It runs on every
 * bearer-authenticated request: on a local file it is one native, prepared read on the
 * reader connection (native-read.ts), elsewhere a drizzle query prepared once per
 * connection. The user id comes from a verified token; the caller checks the tenant
 * against the claims.
 */
const actorSelect = (db: Db) => db
  .select({ user: users, tenantStatus: tenants.status, tenantName: tenants.name, tenantSettings: tenants.settings })
  .from(users)
  .leftJoin(tenants, eq(tenants.id, users.tenantId))
  .where(eq(users.id, sql.placeholder('id')))
const actorQuery = preparedOnce('users:actor-by-id', (db) => actorSelect(db).prepare())
/**
 * The native read's selection: the same without the tenant's settings. They are about 1 KB of
 * JSON text for a tenant with the defaults, and handing that text over from the driver was
 * about 2 µs of the 9 µs `get` (scripts/bench, in process); most bearer routes never read them.
 * They are read on first use instead (`settingsOnUse`), by the tenant's id, on the same reader.
 */
const actorLeanSelect = (db: Db) => db
  .select({ user: users, tenantStatus: tenants.status, tenantName: tenants.name })
  .from(users)
  .leftJoin(tenants, eq(tenants.id, users.tenantId))
  .where(eq(users.id, sql.placeholder('id')))
/**
 * The row. The tenant's settings are decoded on the drizzle paths (memory, server, replica);
 * on the native read they are a function that reads them as stored (JSON text) when called:
 * http/auth.ts `callerOf` calls it and parses them on first use, once per request.
 */
type ActorRow = Omit<NonNullable<Awaited<ReturnType<ReturnType<typeof actorQuery>['get']>>>, 'tenantSettings'> & {
  tenantSettings: Record<string, unknown> | (() => string) | null
}
const actorRead = nativeGetOnce<Omit<ActorRow, 'tenantSettings'> & Partial<Pick<ActorRow, 'tenantSettings'>>, Database>(
  'users:actor-by-id',
  actorLeanSelect,
  (database, id) => keptOnServer(database, id, () => actorQuery(database).get({ id })),
)

/** A tenant's settings as stored (JSON text), by id: the native read only (`settingsOnUse`). */
const settingsSelect = (db: Db) => db.select({ settings: tenants.settings }).from(tenants).where(eq(tenants.id, sql.placeholder('id')))
const settingsRead = nativeGetOnce<{ settings: string }, Database>('tenants:settings-by-id', settingsSelect, () => {
  throw new Error('tenant settings: read on use only where the native reader is')
}, { undecoded: ['settings'] })

/**
 * The settings of the tenant the native credential read found, read when first asked for: a later
 * read than the credential's, so it sees the settings as committed then (tenants are never deleted).
 */
function settingsOnUse(database: Database, tenantId: string): () => string {
  return () => {
    const row = settingsRead(database, tenantId) as { settings: string } | undefined
    if (!row) throw new Error(`tenant ${tenantId} not found for its settings`)
    return row.settings
  }
}

/**
 * How long the bearer check's read is kept in memory on a server (topology b), where it is a round
 * trip per request: the staleness an embedded replica's reads already have (its pull every
 * DATABASE_SYNC_INTERVAL_MS, 1 s by default). This process's own writes to users or tenants drop it
 * at once (the ledger); another process's change (a user disabled, a tenant suspended) is seen
 * within this long, as through a replica.
 */
export const CREDENTIAL_KEEP_MS = 1000
const CREDENTIAL_TABLES = 'select 1 from users join tenants'
const KEPT_MAX = 10_000

async function keptOnServer<Row>(database: Database, id: string, read: () => Promise<Row | undefined>): Promise<Row | undefined> {
  const ledger = database.writeLedger
  if (!ledger) return read()
  const kept = database.memo('kept:users:actor-by-id', () => new Map<string, { at: number; seq: number; row: Row }>())
  const hit = kept.get(id)
  const now = Date.now()
  // a copy: each request gets rows of its own, as from a read (nothing shared between requests can be changed by one)
  if (hit && now - hit.at < CREDENTIAL_KEEP_MS && hit.seq >= ledger.needs(CREDENTIAL_TABLES)) return structuredClone(hit.row)
  // numbered before the read: a write to these tables finishing meanwhile makes the row read here stale
  const seq = ledger.seq
  const row = await read()
  if (row) {
    if (kept.size >= KEPT_MAX) kept.clear()
    kept.set(id, { at: now, seq, row: structuredClone(row) })
  } else kept.delete(id)
  return row
}

/** The user and its tenant by user id: on a local file without a promise (one native read), elsewhere a promise. */
export const findActor = (database: Database, id: string): Maybe<ActorRow | undefined> =>
  andThen(actorRead(database, id), (row) => {
    if (!row || row.tenantSettings !== undefined) return row as ActorRow | undefined
    // the native read (no settings selected): read when first used
    const tenantId = row.user.tenantId
    row.tenantSettings = tenantId === null || row.tenantName === null ? null : settingsOnUse(database, tenantId)
    return row as ActorRow
  })

/** What the tenant signature check needs, by API key: it runs on every signed request, read as the actor is (above). */
const apiKeySelect = (db: Db) => db
  .select({ id: tenants.id, name: tenants.name, status: tenants.status, secret: tenants.apiSecretSealed, settings: tenants.settings })
  .from(tenants)
  .where(eq(tenants.apiKey, sql.placeholder('apiKey')))
const apiKeyQuery = preparedOnce('tenants:by-api-key', (db) => apiKeySelect(db).prepare())
type ApiKeyRow = NonNullable<Awaited<ReturnType<ReturnType<typeof apiKeyQuery>['get']>>>
const apiKeyRead = nativeGetOnce<ApiKeyRow, Database>('tenants:by-api-key', apiKeySelect, (database, apiKey) => apiKeyQuery(database).get({ apiKey }))

export const findByApiKey = async (database: Database, apiKey: string): Promise<ApiKeyRow | undefined> => apiKeyRead(database, apiKey)

/** Associated data of a tenant's sealed API secret (`api_secret_sealed`). */
export const secretAad = (tenantId: string) => `tenant:${tenantId}:api_secret`

/** A platform account by username (the operator pages' HTTP Basic check). */
export function findPlatformUser(db: Executor, username: string) {
  return db.select().from(users).where(and(eq(users.scope, 'platform'), eq(users.usernameKey, username.toLowerCase()))).get()
}
