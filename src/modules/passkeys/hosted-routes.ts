/** The hosted passkey page and its routes (hosted.ts says how they fit together). */
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { TokenResponse } from '../auth'
import { exchangeCode, hostedOptions, hostedVerify, openHostedSession } from './hosted'
import * as M from './hosted-model'
import { hostedPage } from './hosted-page'

const hostedLimit = { max: 20, windowSeconds: 60 }

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  openHostedSession: prose`
    For tenants without a front end of their own. \`register\` adds a passkey to \`userId\` (the
    tenant's backend has signed that user in); \`signin\` signs in with a passkey made on the hosted
    page. Send the user's browser to \`url\`; when done, the page sends it to \`returnUrl\` with
    \`code\` (and \`state\`). Exchange the code with \`POST /v1/auth/passkey/exchange\`. The relying
    party is Slipway's own host (PUBLIC_BASE_URL). 400 \`PASSKEY_RETURN_URL_NOT_ALLOWED\` when
    \`returnUrl\` starts with none of \`passkeys.hostedReturnUrls\`; 404 for a user not of the tenant.`,
  hostedOptions: prose`
    Called by the hosted page. 400 \`PASSKEY_HOSTED_SESSION_INVALID\` for an unknown, used or expired
    session (15 minutes). ${hostedLimit.max} per minute per client IP.`,
  hostedVerify: prose`
    Called by the hosted page with the browser's credential: checked as on the tenant's own routes
    (the same 400 codes), then the session is spent and a one-time code issued (single use, 2
    minutes). ${hostedLimit.max} per minute per client IP.`,
  exchange: prose`
    The tenant's backend exchanges the hosted page's one-time code for the same token response as a
    password sign-in. 401 \`PASSKEY_CODE_INVALID\` for an unknown, used, expired or another tenant's
    code.`,
  hostedPage: prose`
    A small HTML page without external assets (strict Content-Security-Policy, \`Referrer-Policy:
    no-referrer\`): reads \`#session=\` from its address, asks \`POST /v1/passkeys/hosted/options\`, runs
    the WebAuthn ceremony and posts \`POST /v1/passkeys/hosted/verify\`, then follows \`redirectUrl\`.`,
}

export function hostedRoutes(deps: Deps) {
  const api = new Elysia({ detail: { tags: ['Passkeys'] } })
    .use(security(deps))
    .post('/v1/passkeys/hosted/sessions', async ({ body, tenant, set }) => {
      const out = await openHostedSession(deps, tenant, body)
      set.status = 201
      return out
    }, {
      tenantSigned: true,
      rateLimit: { max: 60, windowSeconds: 60 },
      body: M.HostedSessionBody,
      response: { 201: M.HostedSession, ...errorResponses('standard', 400, 401, 404, 429) },
      detail: { operationId: 'openHostedPasskeySession', summary: 'Open a hosted passkey page session (tenant-signed)', description: descriptions.openHostedSession },
    })
    .post('/v1/passkeys/hosted/options', async ({ body }) => {
      const out = await hostedOptions(deps, body.session)
      return { mode: out.mode, options: out.options as object as Record<string, unknown> }
    }, {
      rateLimit: hostedLimit,
      body: M.HostedOptionsBody,
      response: { 200: M.HostedOptions, ...errorResponses('standard', 400, 429) },
      detail: { operationId: 'hostedPasskeyOptions', summary: 'The hosted page\'s ceremony options', description: descriptions.hostedOptions },
    })
    .post('/v1/passkeys/hosted/verify', ({ body }) => hostedVerify(deps, body), {
      rateLimit: hostedLimit,
      body: M.HostedVerifyBody,
      response: { 200: M.HostedVerified, ...errorResponses('standard', 400, 409, 429) },
      detail: { operationId: 'hostedPasskeyVerify', summary: 'The hosted page\'s ceremony result', description: descriptions.hostedVerify },
    })
    .post('/v1/auth/passkey/exchange', ({ body, tenant }) => exchangeCode(deps, tenant, body.code), {
      rateLimit: { max: 20, windowSeconds: 60 },
      tenantSigned: true,
      body: M.ExchangeBody,
      response: { 200: TokenResponse, ...errorResponses('standard', 400, 401, 404, 429) },
      detail: { operationId: 'exchangePasskeyCode', summary: 'Exchange the hosted page\'s one-time code for tokens (tenant-signed)', description: descriptions.exchange },
    })
  const page = new Elysia({ detail: { tags: ['Passkeys'] } })
    .get('/passkeys', ({ set }) => {
      const { html, headers } = hostedPage()
      Object.assign(set.headers, headers)
      return html
    }, {
      response: { 200: t.String({ description: 'the HTML page (text/html)' }) },
      detail: { operationId: 'hostedPasskeyPage', summary: 'The hosted passkey page', description: descriptions.hostedPage },
    })
  return new Elysia().use(api).use(page)
}
