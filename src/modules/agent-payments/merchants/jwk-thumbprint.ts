/** A public JWK's name, without jose: views show it, and building the app must not load jose (tests/ops/lazy-loading). */
import { createHash } from 'node:crypto'

/**
 * The key's RFC 7638 thumbprint (SHA-256, base64url): the hash of its required members only,
 * in lexicographic order, so it names the key whatever else the JWK carries (`kid`, `use`...).
 * Synchronous, so views can show it; equals jose's `calculateJwkThumbprint` (a test checks it).
 */
export function jwkThumbprint(jwk: Record<string, unknown>): string {
  const members = jwk.kty === 'EC' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x }
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url')
}
