/** External identity providers (Google, Apple): an ID token in, verified claims out. */
export type Provider = 'google' | 'apple'

export interface VerifiedIdentity {
  provider: Provider
  /** the provider's stable user id (`sub`) */
  subject: string
  email: string | null
  emailVerified: boolean
}

export interface VerifyOptions {
  /** the tenant's client ids; the token's `aud` must be one of them */
  audiences: string[]
  /** when the client sends one, the token's `nonce` must match it */
  nonce?: string
}

export interface IdTokenVerifier {
  readonly provider: Provider
  /** Throws InvalidIdTokenError for a token that fails any check, IdentityProviderUnavailableError when the keys cannot be fetched. */
  verify(idToken: string, opts: VerifyOptions): Promise<VerifiedIdentity>
}

export class InvalidIdTokenError extends Error {
  override name = 'InvalidIdTokenError'
}
export class IdentityProviderUnavailableError extends Error {
  override name = 'IdentityProviderUnavailableError'
}
