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
 * The row, with the tenant's settings as stored (JSON text) on the native read, decoded on the
 * other paths: most bearer routes never read the settings, and parsing them was about a
 * microsecond of every bearer request (http/auth.ts `callerOf` parses them on first use).
 */
type ActorRow = Omit<NonNullable<Awaited<ReturnType<ReturnType<typeof actorQuery>['get']>>>, 'tenantSettings'> & {
  tenantSettings: Record<string, unknown> | string | null
}
const actorRead = nativeGetOnce<ActorRow, Database>('users:actor-by-id', actorSelect, (database, id) => actorQuery(database).get({ id }), {
  undecoded: ['tenantSettings'],
})

export const findActor = async (database: Database, id: string): Promise<ActorRow | undefined> => actorRead(database, id)

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
