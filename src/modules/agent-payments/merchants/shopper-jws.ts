/**
 * A shopper's key and the AP2 authorization it signs (docs/agent-payments.md, "Shoppers").
 * The key: a public JWK, EC P-256 (ES256) or OKP Ed25519 (EdDSA). The authorization: a
 * compact JWS (a JWT) whose payload holds `contentHash`, the lower-case hex SHA-256 of the
 * mandate's canonical content (`mandateContent`), the same hash the mandate stores once
 * authorized; `exp`, when present, is honoured against the clock.
 */
import { errors, importJWK, jwtVerify } from 'jose'
import { BadRequestError } from '../../../lib/errors'
import type { ErrorCode } from '../../../lib/error-codes'

export { jwkThumbprint } from './jwk-thumbprint'

const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']

/** The algorithm a key signs with: ES256 for P-256, EdDSA for Ed25519; null for any other key. */
function algOf(jwk: Record<string, unknown>): 'ES256' | 'EdDSA' | null {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256' && typeof jwk.x === 'string' && typeof jwk.y === 'string') return 'ES256'
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && typeof jwk.x === 'string') return 'EdDSA'
  return null
}

/** Refuses a private key or one that is not ES256/EdDSA; answers the public members kept. */
export async function checkShopperJwk(jwk: Record<string, unknown>): Promise<Record<string, unknown>> {
  const leaked = PRIVATE_JWK_MEMBERS.filter((m) => m in jwk)
  if (leaked.length) throw new BadRequestError('publicKeyJwk must be a public key: it has private members', { code: 'SHOPPER_JWK_PRIVATE', details: { members: leaked } })
  const alg = algOf(jwk)
  const invalid = () => new BadRequestError('publicKeyJwk must be an EC P-256 (ES256) or OKP Ed25519 (EdDSA) public key', { code: 'SHOPPER_JWK_INVALID' })
  if (!alg) throw invalid()
  try {
    await importJWK({ ...jwk, alg } as never, alg)
  } catch {
    throw invalid()
  }
  return jwk
}

/** How far ahead a key change's `exp` may be, in seconds. */
export const KEY_CHANGE_MAX_LIFETIME_S = 15 * 60

const refuse = (message: string, code: ErrorCode) => new BadRequestError(message, { code })

/** The claims of a JWT signed by `jwk` (its one algorithm), checked against the clock. */
async function verifiedClaims(jws: string, jwk: Record<string, unknown>, now: number, what: string): Promise<Record<string, unknown>> {
  const alg = algOf(jwk)
  if (!alg) throw refuse('The shopper\'s key cannot verify a JWS', 'SHOPPER_KEY_MISSING')
  try {
    const key = await importJWK({ ...jwk, alg } as never, alg)
    const out = await jwtVerify(jws, key, { algorithms: [alg], currentDate: new Date(now), clockTolerance: 0 })
    return out.payload as Record<string, unknown>
  } catch (err) {
    if (err instanceof errors.JWTExpired) throw refuse(`The shopper's ${what} has expired`, 'SHOPPER_JWS_EXPIRED')
    throw refuse(`The shopper's ${what} is not a JWS signed by the shopper's key`, 'SHOPPER_JWS_INVALID')
  }
}

/**
 * Checks `jws` against the shopper's key and the content's hash: a bad signature (another key,
 * a tampered token), another algorithm, or a malformed token answers `SHOPPER_JWS_INVALID`; a
 * signature over another hash `SHOPPER_JWS_CONTENT_MISMATCH`; past `exp` `SHOPPER_JWS_EXPIRED`.
 */
export async function verifyShopperAuthorization(jws: string, jwk: Record<string, unknown>, contentHash: string, now: number): Promise<void> {
  const payload = await verifiedClaims(jws, jwk, now, 'authorization')
  if (payload.contentHash !== contentHash) throw refuse('The shopper\'s authorization signs other content than this mandate\'s', 'SHOPPER_JWS_CONTENT_MISMATCH')
}

/**
 * Checks a key change signed by the shopper's current key: a JWT whose claims name the shopper
 * (`shopperId`) and the new key (`newKeyThumbprint`, its RFC 7638 thumbprint), so it changes
 * that shopper to that key only. It carries no `contentHash`, and a mandate's authorization no
 * `newKeyThumbprint`: neither can stand for the other. It must expire (`exp`) within
 * KEY_CHANGE_MAX_LIFETIME_S of now: a key change is not idempotent, and one that never expired
 * would change the key again if the shopper ever went back to the key that signed it.
 * Refusals as for an authorization; no `exp`, or one too far ahead, `SHOPPER_JWS_INVALID`.
 */
export async function verifyShopperKeyChange(jws: string, currentJwk: Record<string, unknown>, claims: { shopperId: string; newKeyThumbprint: string }, now: number): Promise<void> {
  const payload = await verifiedClaims(jws, currentJwk, now, 'key change')
  if (typeof payload.exp !== 'number' || payload.exp > Math.floor(now / 1000) + KEY_CHANGE_MAX_LIFETIME_S) {
    throw refuse(`The shopper's key change must expire (its \`exp\` claim) within ${KEY_CHANGE_MAX_LIFETIME_S / 60} minutes of now`, 'SHOPPER_JWS_INVALID')
  }
  if (payload.shopperId !== claims.shopperId || payload.newKeyThumbprint !== claims.newKeyThumbprint) {
    throw refuse('The shopper\'s key change signs another shopper or another key than this one', 'SHOPPER_JWS_CONTENT_MISMATCH')
  }
}
