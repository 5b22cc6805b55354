/**
 * ID tokens checked against the provider's published keys (JWKS): RS256 signature,
 * issuer, audience, expiry and, when sent, nonce. The key set is cached (the answer's
 * max-age, at most a day, an hour by default) and fetched again when a token names a
 * key id the cache does not know, which is how providers rotate keys. Refetches on
 * unknown ids are spaced by a cool-down so forged `kid`s cannot make us hammer the
 * provider. Time comes from the injected clock, so tests can move it.
 *
 * jose (46 modules) loads with the first ID token checked: a process that never signs
 * anyone in with Google or Apple does not hold it (tests/ops/lazy-loading.test.ts).
 */
import { createHash } from 'node:crypto'
import type { JSONWebKeySet, JWTPayload } from 'jose'
import type { Clock } from '../../lib/clock'
import { lazy } from '../../lib/lazy'
import { IdentityProviderUnavailableError, InvalidIdTokenError, type IdTokenVerifier, type Provider, type VerifiedIdentity, type VerifyOptions } from './port'

export interface JwksVerifierOptions {
  provider: Provider
  jwksUrl: string
  issuers: string[]
  clock: Clock
  /** accept `nonce` claims that hold the SHA-256 (hex) of the sent nonce, as Apple's iOS flow does */
  hashedNonce?: boolean
  refetchCooldownMs?: number
  fetchTimeoutMs?: number
  /** the fetch to use (deps gives one that feeds the external-call metrics) */
  fetch?: typeof fetch
}

const jose = lazy(() => import('jose'))
type LocalKeySet = ReturnType<typeof import('jose')['createLocalJWKSet']>

const DEFAULT_MAX_AGE_MS = 3_600_000
const MAX_MAX_AGE_MS = 86_400_000

export const GOOGLE_ISSUERS = ['https://accounts.google.com', 'accounts.google.com']
export const APPLE_ISSUERS = ['https://appleid.apple.com']

export class JwksIdTokenVerifier implements IdTokenVerifier {
  readonly provider: Provider
  private cache?: { keys: LocalKeySet; kids: Set<string>; fetchedAt: number; maxAgeMs: number }
  private inflight?: Promise<void>
  private lastAttempt?: number

  constructor(private readonly opts: JwksVerifierOptions) {
    this.provider = opts.provider
  }

  async verify(idToken: string, opts: VerifyOptions): Promise<VerifiedIdentity> {
    const kid = headerKid(idToken)
    const { jwtVerify, errors: joseErrors } = await jose()
    await this.ensureKeys(kid)
    let payload: JWTPayload
    try {
      ;({ payload } = await jwtVerify(idToken, this.cache!.keys, {
        algorithms: ['RS256'],
        issuer: this.opts.issuers,
        audience: opts.audiences,
        currentDate: new Date(this.opts.clock.now()),
        clockTolerance: 30,
        requiredClaims: ['sub', 'exp', 'iat'],
      }))
    } catch (err) {
      if (err instanceof joseErrors.JOSEError) throw new InvalidIdTokenError(err.code)
      throw err
    }
    if (opts.nonce !== undefined && !this.nonceMatches(payload.nonce, opts.nonce)) throw new InvalidIdTokenError('nonce mismatch')
    const email = typeof payload.email === 'string' && payload.email.length > 0 ? payload.email : null
    // Apple sends `email_verified` as the string "true" in some flows.
    const verified = payload.email_verified === true || payload.email_verified === 'true'
    return { provider: this.provider, subject: String(payload.sub), email, emailVerified: verified }
  }

  private nonceMatches(claim: unknown, sent: string): boolean {
    if (typeof claim !== 'string') return false
    if (claim === sent) return true
    return !!this.opts.hashedNonce && claim === createHash('sha256').update(sent).digest('hex')
  }

  /**
   * Keys are (re)loaded when missing, stale, or when the token names an unknown key id.
   * Every fetch attempt, failed ones included, starts the cool-down, so neither forged
   * key ids nor a provider outage turn our traffic into a flood of key fetches.
   */
  private async ensureKeys(kid: string | undefined) {
    const now = this.opts.clock.now()
    const c = this.cache
    const coolingDown = this.lastAttempt !== undefined && now - this.lastAttempt < (this.opts.refetchCooldownMs ?? 10_000)
    const stale = !c || now - c.fetchedAt >= c.maxAgeMs
    const unknownKid = !!c && kid !== undefined && !c.kids.has(kid)
    if (!stale && !unknownKid) return
    if (coolingDown && !this.inflight) {
      if (!c) throw new IdentityProviderUnavailableError(`${this.provider} keys unavailable (last fetch failed moments ago)`)
      return
    }
    if (!this.inflight) {
      this.lastAttempt = now
      this.inflight = this.load().finally(() => { this.inflight = undefined })
    }
    try {
      await this.inflight
    } catch (err) {
      // A stale cache still verifies known keys while the provider is unreachable.
      if (!this.cache) throw err
    }
  }

  private async load() {
    let res: Response
    try {
      res = await (this.opts.fetch ?? fetch)(this.opts.jwksUrl, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(this.opts.fetchTimeoutMs ?? 5000) })
    } catch (err) {
      throw new IdentityProviderUnavailableError(`${this.provider} keys unreachable: ${(err as Error).name}`)
    }
    if (!res.ok) {
      await res.body?.cancel()
      throw new IdentityProviderUnavailableError(`${this.provider} keys answered ${res.status}`)
    }
    const jwks = (await res.json().catch(() => null)) as JSONWebKeySet | null
    if (!jwks || !Array.isArray(jwks.keys)) throw new IdentityProviderUnavailableError(`${this.provider} keys answer is not a JWKS`)
    const maxAge = /max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1]
    const { createLocalJWKSet } = await jose()
    this.cache = {
      keys: createLocalJWKSet(jwks),
      kids: new Set(jwks.keys.map((k) => k.kid).filter((k): k is string => typeof k === 'string')),
      fetchedAt: this.opts.clock.now(),
      maxAgeMs: maxAge ? Math.min(Number(maxAge) * 1000, MAX_MAX_AGE_MS) : DEFAULT_MAX_AGE_MS,
    }
  }
}

function headerKid(token: string): string | undefined {
  try {
    const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid?: unknown }
    return typeof header.kid === 'string' ? header.kid : undefined
  } catch {
    return undefined
  }
}
