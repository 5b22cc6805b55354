/** Credential checks behind the `auth` and `tenantSigned` route options. */
import type { Deps } from '../deps'
import { findActor, findByApiKey, findPlatformUser, secretAad } from '../db/callers'
import { enterTenant, inControl } from '../db/placement'
import { hmacSha256Hex, safeEqual, sha256Hex, type Sealer } from '../lib/crypto'
import { verifyAccessToken, type AccessClaims } from '../lib/jwt'
import { andThen, type Maybe } from '../lib/maybe'
import { verifyPassword } from '../lib/passwords'
import { NotFoundError, UnauthorizedError } from './errors'
import type { Actor, SignatureRecord, SignedTenant } from '../context'
import { recordSignature, signatureInWrite, SIGNATURE_WINDOW_SECONDS } from './replay'

export type { Actor, SignedTenant }

/** Who acts and the tenant they act in (null for a platform admin), read together in one statement. */
export interface Caller {
  actor: Actor
  tenant: SignedTenant | null
}

/**
 * The user behind a valid token, with its tenant, read on every request so a deleted user,
 * a changed role or a disabled tenant stops working at once, not at token expiry.
 */
export function loadCaller(deps: Deps, claims: AccessClaims): Maybe<Caller | null> {
  // tenants on databases of their own (docs/scaling.md): the user is in its tenant's, which the verified token names
  enterTenant(deps.database, claims.tenantId)
  // on a local file the read is synchronous, and so is all of this (no promise per layer)
  return andThen(findActor(deps.database, claims.sub), (row) => {
    if (!row) return null
    const { user } = row
    if (user.status !== 'active' || user.tenantId !== claims.tenantId || user.role !== claims.role) return null
    if (user.tenantId !== null && row.tenantStatus !== 'active') return null
    return callerOf(row)
  })
}

/** The caller a row of the credential read names (src/db/callers.ts): the user as actor, and its tenant. */
export function callerOf(row: NonNullable<Awaited<ReturnType<typeof findActor>>>): Caller {
  const { user } = row
  const actor: Actor = { userId: user.id, tenantId: user.tenantId, role: user.role, user }
  const tenant = user.tenantId === null || row.tenantName === null ? null : tenantOf(user.tenantId, row.tenantName, row.tenantSettings)
  return { actor, tenant }
}

/**
 * The caller's tenant. Settings the native credential read left for later (a function that
 * reads them as stored, JSON text) are read and parsed on first use, once per request, so a
 * route that never reads them does not pay for them; each request still gets its own object.
 */
function tenantOf(id: string, name: string, settings: Record<string, unknown> | (() => string) | null): SignedTenant {
  if (typeof settings !== 'function') return { id, name, settings: settings as Record<string, unknown> }
  let parsed: Record<string, unknown> | undefined
  return {
    id,
    name,
    get settings() {
      return (parsed ??= JSON.parse(settings()) as Record<string, unknown>)
    },
    set settings(value) {
      parsed = value
    },
  }
}

/** The bearer token of an `Authorization` header, or undefined. */
export function bearerToken(header: string | null | undefined): string | undefined {
  const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined
  return token || undefined
}

/** The caller behind an `Authorization: Bearer` header, or null for anything wrong with it. */
export function callerFromBearer(deps: Deps, header: string | null | undefined): Maybe<Caller | null> {
  const token = bearerToken(header)
  if (!token) return null
  const claims = verifyAccessToken(deps.jwtKey, token, deps.clock.now())
  return claims ? loadCaller(deps, claims) : null
}

/** The actor behind an `Authorization: Bearer` header, or null for anything wrong with it. */
export async function actorFromBearer(deps: Deps, header: string | null | undefined): Promise<Actor | null> {
  return (await callerFromBearer(deps, header))?.actor ?? null
}

/**
 * Whether an `Authorization` header is a platform admin's: an access token, or HTTP Basic
 * with the admin's username and password (operator pages a browser loads cannot send a
 * bearer header). The password is verified with argon2 exactly like the admin sign-in.
 */
export async function isPlatformAdmin(deps: Deps, authorization: string | null): Promise<boolean> {
  if (!authorization) return false
  if (authorization.startsWith('Bearer ')) return (await actorFromBearer(deps, authorization))?.role === 'admin'
  if (!authorization.startsWith('Basic ')) return false
  const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) return false
  const username = decoded.slice(0, colon)
  const password = decoded.slice(colon + 1)
  const user = await findPlatformUser(deps.database.db, username)
  // One argon2 verification whatever the username, as at sign-in, so timing does not tell which admins exist.
  const ok = await verifyPassword(user?.status === 'active' && user.role === 'admin' ? user.passwordHash : null, password)
  return ok && user?.role === 'admin' && user.status === 'active'
}

export interface SignedRequest {
  method: string
  pathWithQuery: string
  headers: Headers
  raw: Uint8Array
}

export { REPLAY_PURGE_INTERVAL_MS, SIGNATURE_WINDOW_SECONDS, settleSignature } from './replay'

const OPENED_SECRETS = 1000
const openedSecrets = new WeakMap<Sealer, Map<string, string>>()

/**
 * A tenant's API secret, opened once per sealed value and then kept by the process (the
 * last OPENED_SECRETS): decrypting it on every signed request was 2-3% of a registration's
 * CPU on the JavaScript thread. The key is the tenant id and the sealed text, so a rotated
 * secret (a new sealed value) is opened afresh, and the first opening has checked that the
 * value belongs to that tenant (its associated data). The process holds the master key that
 * opens them anyway; nothing here is logged, returned or written.
 */
function tenantSecret(sealer: Sealer, tenantId: string, sealed: string): string {
  let opened = openedSecrets.get(sealer)
  if (!opened) openedSecrets.set(sealer, (opened = new Map()))
  const key = `${tenantId}:${sealed}`
  let secret = opened.get(key)
  if (secret === undefined) {
    secret = sealer.open(sealed, secretAad(tenantId))
    if (opened.size >= OPENED_SECRETS) opened.delete(opened.keys().next().value!)
    opened.set(key, secret)
  }
  return secret
}

/**
 * The tenant signature, rule by rule in the spec's order. Accepted signatures are
 * recorded in the database, so a replay is refused by every API process sharing it.
 */
export async function verifyTenantSignature(deps: Deps, req: SignedRequest): Promise<SignedTenant> {
  const { tenant, expected, now } = await checkTenantSignature(deps, req)
  const fresh = await recordSignature(deps, tenant.id, expected, now)
  if (!fresh) throw new UnauthorizedError('Replay detected')
  return { id: tenant.id, name: tenant.name, settings: tenant.settings }
}

/**
 * The same checks, the signature recorded by the route's write (src/http/replay.ts,
 * `signatureInWrite`): a replay of a recorded request is refused here all the same.
 */
export async function verifyTenantSignatureInWrite(deps: Deps, req: SignedRequest): Promise<{ tenant: SignedTenant; signature: SignatureRecord }> {
  const { tenant, expected, now } = await checkTenantSignature(deps, req)
  const signature = await signatureInWrite(deps, tenant.id, expected, now)
  return { tenant: { id: tenant.id, name: tenant.name, settings: tenant.settings }, signature }
}

async function checkTenantSignature(deps: Deps, req: SignedRequest) {
  const apiKey = req.headers.get('x-tenant-api-key')
  const timestamp = req.headers.get('x-timestamp')
  const signature = req.headers.get('x-signature')
  if (!apiKey || !timestamp || !signature) {
    throw new UnauthorizedError('Missing required HMAC headers: x-tenant-api-key, x-timestamp, x-signature')
  }
  if (!/^\d{1,12}$/.test(timestamp)) throw new UnauthorizedError('Invalid x-timestamp header')
  const now = deps.clock.now()
  if (Math.abs(Math.floor(now / 1000) - Number(timestamp)) > SIGNATURE_WINDOW_SECONDS) throw new UnauthorizedError('Request expired')
  // API keys are looked up in the control database; the rest of the request works in the tenant's (docs/scaling.md)
  const tenant = await inControl(deps.database, () => findByApiKey(deps.database, apiKey))
  if (!tenant || tenant.status !== 'active') throw new NotFoundError('Invalid API key')
  enterTenant(deps.database, tenant.id)
  const secret = tenantSecret(deps.sealer, tenant.id, tenant.secret)
  const signingString = `${req.method.toUpperCase()}\n${req.pathWithQuery}\n${timestamp}\n${sha256Hex(req.raw)}`
  const expected = hmacSha256Hex(secret, signingString)
  if (!safeEqual(expected, signature.toLowerCase())) throw new UnauthorizedError('Invalid signature')
  return { tenant, expected, now }
}
