import { Elysia, t } from 'elysia'
import { integer } from '../../http/integer'
import type { RegistrationCollaborators } from '../../context'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { settleSignature } from '../../http/auth'
import { stateOf } from '../../http/request-state'
import { Login, Refresh, Register, TokenResponse } from './model'
import * as auth from './service'
import { refreshSession } from './sessions'

const limit20 = { max: 20, windowSeconds: 60 }

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  register: prose`
    A schema failure answers 400 and password strength 422, each listing ValidationIssue items in
    \`details\` (\`path\` \`/password\`, \`keyword\` \`endpointCheck\` for strength). A taken username or email answers 409. Usernames and
    emails are unique per tenant without regard to case; a deleted account frees its email, not its
    username. On an \`mpc\` tenant, \`wallet: { option: "create" }\` answers 503
    \`MPC_ENGINE_NOT_CONFIGURED\` when the deployment has no MPC engine, before the user is written.`,
  login: 'Rejected credentials answer 401 `{ error: UnauthorizedError, message: Invalid credentials }`.',
  refresh: prose`
    With rotation on (tenant setting), a new refresh token is returned and the old one cannot be
    reused: presenting it again answers 401 and revokes every token of that sign-in. Tokens issued
    before the user's last password change are refused.`,
  adminLogin: prose`
    No tenant signature. Same token response as login; the token has \`tenantId: null\` and
    \`role: admin\`.`,
}

/** `registration` holds what registering needs from other modules (wired in src/services.ts). */
export function authRoutes(deps: Deps, registration: RegistrationCollaborators) {
  return new Elysia({ prefix: '/v1/auth', detail: { tags: ['Authentication'] } })
    .use(security(deps))
    // the signature's replay row is written with the user (one write), or recorded after a refusal
    .post('/register', async ({ body, tenant, signature, set, request }) => {
      const out = await settleSignature(signature, () => auth.register(deps, tenant, body, registration, stateOf(request).id, signature))
      set.status = 201
      return out
    }, {
      rateLimit: limit20,
      tenantSignedWrite: true,
      body: Register,
      response: { 201: TokenResponse, ...errorResponses('standard', 400, 401, 404, 409, 422, 429, 503) },
      detail: {
        operationId: 'register',
        summary: 'Register a user (tenant-signed)',
        description: descriptions.register,
      },
    })
    .post('/login', ({ body, tenant }) => auth.login(deps, tenant.id, body), {
      rateLimit: limit20,
      tenantSigned: true,
      body: Login,
      response: { 200: TokenResponse, ...errorResponses('standard', 400, 401, 404, 429) },
      detail: { operationId: 'login', summary: 'Sign in with username and password (tenant-signed)', description: descriptions.login },
    })
    .post('/refresh', ({ body }) => refreshSession(deps, body.refreshToken), {
      rateLimit: { max: 60, windowSeconds: 60 },
      body: Refresh,
      response: {
        200: t.Object(
          { accessToken: t.String(), expiresIn: integer(), refreshToken: t.Optional(t.String({ description: 'only when the tenant has refresh-token rotation on' })) },
          { title: 'RefreshResponse' },
        ),
        ...errorResponses('standard', 400, 401, 429),
      },
      detail: {
        operationId: 'refresh',
        summary: 'Exchange a refresh token for a new access token',
        description: descriptions.refresh,
      },
    })
    .post('/admin/login', ({ body }) => auth.login(deps, null, body), {
      rateLimit: limit20,
      body: Login,
      response: { 200: TokenResponse, ...errorResponses('standard', 400, 401, 429) },
      detail: { operationId: 'adminLogin', summary: 'Platform admin sign-in', description: descriptions.adminLogin },
    })
}
