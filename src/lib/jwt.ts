/**
 * Access tokens: compact HS256 JWTs (RFC 7519), signed and verified on the calling thread
 * with node:crypto's HMAC.
 *
 * Not through jose here: jose signs and verifies HMAC with WebCrypto, and Bun runs
 * WebCrypto on the same native pool as the argon2 hashes. With sign-ins in progress a
 * token check queued behind them (57 ms median, 132 ms p90 with 16 hashes in flight,
 * against 0.03 ms idle), so every bearer request slowed while users signed in, and a
 * registration held its write transaction open while its token waited for the pool.
 * An HMAC over a few hundred bytes costs about 2 µs inline. jose still verifies the
 * identity providers' tokens (src/adapters/identity), where keys and algorithms vary;
 * tests/lib/jwt.test.ts checks these tokens against jose both ways.
 *
 * Verification is strict: exactly our header (`{"alg":"HS256","typ":"JWT"}`, so `none`
 * and every other algorithm are refused before any key is used), a signature compared in
 * constant time, then the claims.
 */
import { createHmac } from 'node:crypto'

export type Role = 'user' | 'tenantadmin' | 'admin'

export interface AccessClaims {
  sub: string
  tenantId: string | null
  role: Role
  iat: number
  exp: number
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')

/**
 * The token's HMAC, base64url, through node:crypto. Bun's native `CryptoHasher` was measured about
 * 0.3 µs cheaper per token and not kept: it reports an error OpenSSL left queued by an earlier,
 * unrelated failure on the same thread (a JWK whose point is not on its curve, refused by WebCrypto)
 * as its own, so the next bearer check threw (tests/lib/jwt.test.ts).
 */
export const mac = (key: Uint8Array, signingInput: string) => createHmac('sha256', key).update(signingInput).digest('base64url')

export function signAccessToken(key: Uint8Array, claims: { sub: string; tenantId: string | null; role: Role }, nowMs: number, ttlSeconds: number): string {
  const iat = Math.floor(nowMs / 1000)
  const payload = { tenantId: claims.tenantId, role: claims.role, sub: claims.sub, iat, exp: iat + ttlSeconds }
  const signingInput = `${HEADER}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`
  return `${signingInput}.${mac(key, signingInput)}`
}

const ROLES = new Set(['user', 'tenantadmin', 'admin'])

/**
 * Constant-time comparison of the expected signature (base64url, always 43 characters) with
 * the one given: every character is compared whatever differs first. A length that differs
 * is refused at once (the length is not secret: every valid signature has the same). Done on
 * the characters, without lib/crypto's `safeEqual` and its two buffers per request.
 */
function sameText(expected: string, given: string): boolean {
  if (expected.length !== given.length) return false
  let diff = 0
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ given.charCodeAt(i)
  return diff === 0
}

/** The claims of a valid token, or null for anything wrong with it. */
export function verifyAccessToken(key: Uint8Array, token: string, nowMs: number): AccessClaims | null {
  const dot1 = token.indexOf('.')
  const dot2 = token.indexOf('.', dot1 + 1)
  if (dot1 < 0 || dot2 < 0 || token.indexOf('.', dot2 + 1) >= 0) return null
  if (token.slice(0, dot1) !== HEADER) return null
  if (!sameText(mac(key, token.slice(0, dot2)), token.slice(dot2 + 1))) return null
  let payload: unknown
  try {
    payload = JSON.parse(Buffer.from(token.slice(dot1 + 1, dot2), 'base64url').toString('utf8'))
  } catch {
    return null
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null
  const { sub, tenantId, role, iat, exp, nbf } = payload as Record<string, unknown>
  const now = Math.floor(nowMs / 1000)
  if (typeof sub !== 'string' || typeof role !== 'string' || !ROLES.has(role)) return null
  if (typeof iat !== 'number' || typeof exp !== 'number' || !Number.isFinite(iat) || !Number.isFinite(exp)) return null
  // expired at `exp` itself (RFC 7519 §4.1.4: "on or after"); a `nbf` in the future is not valid yet
  if (exp <= now) return null
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now)) return null
  if (tenantId !== null && typeof tenantId !== 'string') return null
  // Every role but the platform admin belongs to a tenant.
  if (role !== 'admin' && !tenantId) return null
  if (role === 'admin' && tenantId !== null) return null
  return { sub, tenantId: tenantId as string | null, role: role as Role, iat, exp }
}
