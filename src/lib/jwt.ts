/** Access tokens: HS256 JWTs via jose, verification pinned to HS256. */
import { SignJWT, jwtVerify } from 'jose'

export type Role = 'user' | 'tenantadmin' | 'admin'

export interface AccessClaims {
  sub: string
  tenantId: string | null
  role: Role
  iat: number
  exp: number
}

/**
 * The HMAC key as WebCrypto holds it, imported once per key: jose imports a raw key on
 * every sign and every verify, which was a measurable share of each bearer request.
 */
const imported = new WeakMap<Uint8Array, Promise<CryptoKey>>()
function hmacKey(key: Uint8Array): Promise<CryptoKey> {
  let k = imported.get(key)
  if (!k) {
    k = crypto.subtle.importKey('raw', key as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
    imported.set(key, k)
  }
  return k
}

export async function signAccessToken(key: Uint8Array, claims: { sub: string; tenantId: string | null; role: Role }, nowMs: number, ttlSeconds: number) {
  const iat = Math.floor(nowMs / 1000)
  return new SignJWT({ tenantId: claims.tenantId, role: claims.role })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(await hmacKey(key))
}

const ROLES = new Set(['user', 'tenantadmin', 'admin'])

/** The claims of a valid token, or null for anything wrong with it. */
export async function verifyAccessToken(key: Uint8Array, token: string, nowMs: number): Promise<AccessClaims | null> {
  try {
    const { payload } = await jwtVerify(token, await hmacKey(key), { algorithms: ['HS256'], currentDate: new Date(nowMs) })
    const { sub, tenantId, role, iat, exp } = payload as Record<string, unknown>
    if (typeof sub !== 'string' || typeof role !== 'string' || !ROLES.has(role)) return null
    if (typeof iat !== 'number' || typeof exp !== 'number') return null
    if (tenantId !== null && typeof tenantId !== 'string') return null
    // Every role but the platform admin belongs to a tenant.
    if (role !== 'admin' && !tenantId) return null
    if (role === 'admin' && tenantId !== null) return null
    return { sub, tenantId: tenantId as string | null, role: role as Role, iat, exp }
  } catch {
    return null
  }
}
