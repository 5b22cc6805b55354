import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { TokenResponse } from '../auth'
import { AppleSignIn, GoogleSignIn } from './model'
import { socialSignIn } from './service'

const limit20 = { max: 20, windowSeconds: 60 }

const common = [
  prose`
    The ID token's RS256 signature is checked against the provider's published keys (cached; fetched
    again when a token names an unknown key id), with its issuer, audience (one of the tenant's
    configured client ids), expiry, and \`nonce\` when one is sent.`,
  prose`
    The first sign-in creates a user (username \`<provider>_<random>\`, no password) and links it to
    the provider's subject; later sign-ins find the user by that link. Same token response as login,
    200 in both cases.`,
  prose`
    401 for a token that fails a check; 422 \`ValidationError\` when the provider says the email is
    not verified; 409 when the email already belongs to another account of the tenant (accounts are
    never linked by email); 400 when the tenant has no client ids for this provider; 503 when the
    provider's keys cannot be fetched.`,
].join(' ')

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  googleSignIn: prose`
    ${common} Issuer \`https://accounts.google.com\` (or \`accounts.google.com\`); audience: the
    tenant's \`social.googleClientIds\`.`,
  appleSignIn: prose`
    ${common} Issuer \`https://appleid.apple.com\`; audience: the tenant's
    \`social.appleClientIds\`. The token's \`nonce\` may hold the nonce itself or its SHA-256 in
    hex, as Apple's native flow sends it. \`email_verified\` may be the string "true".`,
}

export function socialRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/auth', detail: { tags: ['Authentication'] } })
    .use(security(deps))
    .post('/google', ({ body, tenant }) => socialSignIn(deps, tenant, 'google', body), {
      rateLimit: limit20,
      tenantSigned: true,
      body: GoogleSignIn,
      response: { 200: TokenResponse, ...errorResponses('standard', 400, 401, 404, 409, 422, 429, 503) },
      detail: { operationId: 'googleSignIn', summary: 'Sign in with a Google ID token (tenant-signed)', description: descriptions.googleSignIn },
    })
    .post('/apple', ({ body, tenant }) => socialSignIn(deps, tenant, 'apple', body), {
      rateLimit: limit20,
      tenantSigned: true,
      body: AppleSignIn,
      response: { 200: TokenResponse, ...errorResponses('standard', 400, 401, 404, 409, 422, 429, 503) },
      detail: { operationId: 'appleSignIn', summary: 'Sign in with an Apple ID token (tenant-signed)', description: descriptions.appleSignIn },
    })
}
