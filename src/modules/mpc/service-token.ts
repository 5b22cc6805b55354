/**
 * Service-party tokens: what `POST /v1/mpc/service/token` answers a tenant-signed caller,
 * and what the worker's service party mints for itself. A token lets its holder act as the
 * service party (party 1) in the relay sessions of one tenant, and nothing else: it is not
 * an access token (no user, refused by every other route).
 *
 * Format: `mpcs.<payload base64url>.<HMAC-SHA256 base64url>`, keyed by a key derived from
 * the JWT key for this use only, so an access token can never pass for one or the reverse.
 */
import { createHmac } from 'node:crypto'
import { safeEqual } from '../../lib/crypto'

export const SERVICE_TOKEN_PREFIX = 'mpcs.'

const keyOf = (jwtKey: Uint8Array) => createHmac('sha256', jwtKey).update('slipway/mpc-service-token/v1').digest()
const mac = (jwtKey: Uint8Array, input: string) => createHmac('sha256', keyOf(jwtKey)).update(input).digest('base64url')

/** `ttlSeconds`: as long as a session lives (MPC_SESSION_TTL_SECONDS), or what is left of the session the token is for, so a slow DKG never outlives its token. */
export function mintServiceToken(jwtKey: Uint8Array, tenantId: string, nowMs: number, ttlSeconds: number) {
  const exp = Math.floor(nowMs / 1000) + ttlSeconds
  const payload = Buffer.from(JSON.stringify({ tid: tenantId, exp, rnd: crypto.randomUUID() })).toString('base64url')
  const input = `${SERVICE_TOKEN_PREFIX}${payload}`
  return { token: `${input}.${mac(jwtKey, input)}`, expiresAt: exp * 1000, expiresIn: ttlSeconds }
}

/** The tenant a valid, unexpired service token is for, or null. */
export function verifyServiceToken(jwtKey: Uint8Array, token: string, nowMs: number): string | null {
  if (!token.startsWith(SERVICE_TOKEN_PREFIX)) return null
  const dot = token.lastIndexOf('.')
  if (dot <= SERVICE_TOKEN_PREFIX.length) return null
  if (!safeEqual(mac(jwtKey, token.slice(0, dot)), token.slice(dot + 1))) return null
  try {
    const p = JSON.parse(Buffer.from(token.slice(SERVICE_TOKEN_PREFIX.length, dot), 'base64url').toString('utf8')) as { tid?: unknown; exp?: unknown }
    if (typeof p.tid !== 'string' || typeof p.exp !== 'number' || p.exp <= Math.floor(nowMs / 1000)) return null
    return p.tid
  } catch {
    return null
  }
}
