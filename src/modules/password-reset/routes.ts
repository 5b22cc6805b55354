import { Elysia, t } from 'elysia'
import { integer } from '../../http/integer'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { EMAIL_LIMIT, FORGOT_PASSWORD_MESSAGE } from './service'
import * as reset from './service'
import { AdminSendReset, ForgotPassword, ResetPassword, ResetToken } from './model'
import { resetPage } from './page'


// Per client IP. Kept in this process's memory, as the spec says of every limit.
const forgotIpLimit = { max: 10, windowSeconds: 900, quiet: true }
const validateLimit = { max: 30, windowSeconds: 60, quiet: true }
const resetLimit = { max: 10, windowSeconds: 60, quiet: true }

export const ForgotPasswordResponse = t.Object({ ok: t.Literal(true), message: t.String({ examples: [FORGOT_PASSWORD_MESSAGE] }) }, { title: 'ForgotPasswordResponse' })
export const ResetPasswordResponse = t.Object({
  ok: t.Literal(true),
  accessToken: t.String(),
  refreshToken: t.String(),
  expiresIn: integer({ examples: [900] }),
  userId: t.String({ format: 'uuid' }),
}, { title: 'ResetPasswordResponse' })

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  forgotPassword: [
    prose`
      Always answers the same fixed text, with the same work and timing whether or not an account
      exists: the address is only looked up later by the background worker.`,
    prose`
      An eligible account gets a single-use link valid for the tenant's window (60 minutes by
      default); an account that signs in only with Google or Apple gets an email pointing to social
      sign-in; unknown addresses get nothing.`,
    prose`
      Throttled per client IP (${forgotIpLimit.max} per ${forgotIpLimit.windowSeconds / 60} minutes)
      and per email address (${EMAIL_LIMIT.max} per hour, counted the same for known and unknown
      addresses) with 429.`,
    '404 when the tenant has not enabled password reset.',
  ].join(' '),
  validateResetToken: prose`
    Never consumes the token. \`valid: false\` for unknown, used or expired tokens, and for tokens
    whose account or tenant is no longer active or whose tenant turned reset off.
    ${validateLimit.max} per minute per client IP.`,
  resetPassword: [
    prose`
      The token is the credential. 400 for an invalid, used or expired link, for a
      password that breaks the rules (8 characters with an upper-case letter, a lower-case letter
      and a digit), and for a password found in a known breach (Have I Been Pwned range lookup; only
      5 characters of its SHA-1 leave the server).`,
    prose`
      A refused password does not use up the link. When the breach service does not answer in time,
      the reset is refused with 503 and the link stays usable (server setting HIBP_ON_ERROR=reject,
      the default; \`allow\` accepts the password instead).`,
    prose`
      On success the token is consumed (of two concurrent uses exactly one succeeds), every other
      reset link of the account stops working, refresh tokens issued before are rejected, a security
      notice is emailed, and a fresh token pair is returned. Access tokens already issued stay valid
      until they expire.`,
    `${resetLimit.max} per minute per client IP.`,
  ].join(' '),
  adminSendReset: prose`
    For platform admins (naming \`tenantId\`, 400 without it) and tenantadmins (their own tenant;
    another tenant's id answers 404). 404 when the tenant has not enabled reset or is disabled, or
    the user is not an active user of that tenant; 400 when the user has no email address. A user
    who signs in only with Google or Apple is sent the social sign-in email instead of a link.
    Recorded in the tenant's activity log.`,
  resetPasswordPage: prose`
    A small HTML page without external assets: it checks the token with
    \`GET /v1/auth/reset-password/validate\`, shows the password rules and a form, posts
    \`POST /v1/auth/reset-password\`, and shows success or a clear error. \`lang=it\` shows it in
    Italian. The page never sends the token anywhere but these two calls, and answers with
    \`Referrer-Policy: no-referrer\` and a strict Content-Security-Policy.`,
}

export function passwordResetRoutes(deps: Deps) {
  const api = new Elysia({ prefix: '/v1/auth', detail: { tags: ['Password reset'] } })
    .use(security(deps))
    .post('/forgot-password', ({ body, tenant }) => reset.forgotPassword(deps, tenant, body), {
      rateLimit: forgotIpLimit,
      tenantSigned: true,
      body: ForgotPassword,
      response: { 200: ForgotPasswordResponse, ...errorResponses('standard', 400, 401, 404, 429) },
      detail: {
        operationId: 'forgotPassword',
        summary: 'Email a password reset link (tenant-signed)',
        description: descriptions.forgotPassword,
      },
    })
    .get('/reset-password/validate', ({ query }) => reset.validateToken(deps, query.token), {
      rateLimit: validateLimit,
      query: t.Object({ token: ResetToken }),
      response: { 200: t.Object({ valid: t.Boolean() }, { title: 'ResetTokenValidity' }), ...errorResponses('standard', 400, 429) },
      detail: {
        operationId: 'validateResetToken',
        summary: 'Tell whether a reset token can still be used',
        description: descriptions.validateResetToken,
      },
    })
    .post('/reset-password', ({ body }) => reset.resetPassword(deps, body), {
      rateLimit: resetLimit,
      body: ResetPassword,
      response: { 200: ResetPasswordResponse, ...errorResponses('standard', 400, 429, 503) },
      detail: {
        operationId: 'resetPassword',
        summary: 'Set a new password with a reset token',
        description: descriptions.resetPassword,
      },
    })
    .post('/admin/send-reset', ({ body, ctx }) => reset.sendResetByOperator(ctx, body), {
      auth: 'operator',
      body: AdminSendReset,
      response: { 200: t.Object({ ok: t.Literal(true), sent: t.Literal(true) }, { title: 'SendResetResponse' }), ...errorResponses('standard', 400, 401, 403, 404) },
      detail: {
        operationId: 'adminSendReset',
        summary: 'Email a user a password reset link (operator)',
        description: descriptions.adminSendReset,
      },
    })
  const page = new Elysia({ detail: { tags: ['Password reset'] } })
    .get('/reset-password', ({ query, set }) => {
      const { html, headers } = resetPage(query.lang)
      Object.assign(set.headers, headers)
      return html
    }, {
      query: t.Object({ token: t.Optional(t.String()), lang: t.Optional(t.String()) }),
      response: { 200: t.String({ description: 'the HTML page (text/html)' }) },
      detail: {
        operationId: 'resetPasswordPage',
        summary: 'The reset page the emailed link opens',
        description: descriptions.resetPasswordPage,
      },
    })
  return new Elysia().use(api).use(page)
}
