/**
 * Password reset (spec "Password reset" and its state table):
 *
 * - forgot-password does the same work for every address: the per-address throttle
 *   (keyed by a hash of tenant and normalised address, counted before anything is
 *   looked up) and one outbox row. The account is looked up by the worker, which
 *   issues the token and queues the email. So neither the answer nor its timing can
 *   depend on whether the account exists.
 * - tokens: 256 random bits (base64url), only their SHA-256 stored, single use, valid
 *   for the tenant's window. The token exists in plain text only in the email.
 * - reset-password checks strength and the breach list first (a refused password
 *   does not burn the link), then consumes the token with one conditional UPDATE in
 *   the same transaction that changes the password: of two concurrent resets exactly
 *   one wins.
 */
import { withTransaction } from '../../context'
import type { Deps } from '../../deps'
import type { Executor } from '../../db/client'
import type { SignedTenant, Ctx } from '../../context'
import { BadRequestError, NotFoundError, TooManyRequestsError } from '../../lib/errors'
import { scheduleJob } from '../../jobs/outbox'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { isUuid, newId } from '../../lib/ids'
import { hashPassword, passwordProblems } from '../../lib/passwords'
import { recordActivity } from '../activity'
import { revokeUserSessions, startSession, breachProblem } from '../auth'
import { queueMail } from '../mail'
import type { Locale } from '../mail'
import type { AdminSendReset, ForgotPassword, ResetPassword } from './model'
import { operatorTenant, settingsOf, readSettings, type StoredSettings, findTenant, type TenantRow } from '../tenants'
import * as usersRepo from '../users'
import { providersOf } from '../social'
import * as repo from './repo'

export const RESET_REQUEST_TOPIC = 'password-reset.request'

export const FORGOT_PASSWORD_MESSAGE = 'If an account exists for this email address, a password reset link is on its way.'
export const NOT_ENABLED = 'Password reset is not enabled for this tenant'
export const INVALID_LINK = 'This reset link is invalid or has expired. Please request a new one.'

/** Per normalised address and tenant: 5 requests per hour, the same count for known and unknown addresses. */
export const EMAIL_LIMIT = { max: 5, windowSeconds: 3600 }

type UserRow = usersRepo.UserRow

const resetEnabled = (s: StoredSettings) => s.passwordReset.enabled

export async function forgotPassword(deps: Deps, tenant: SignedTenant, input: ForgotPassword) {
  const settings = readSettings(tenant.settings, tenant.name, deps.config.publicBaseUrl)
  if (!resetEnabled(settings)) throw new NotFoundError(NOT_ENABLED)
  // A hash of the address keys the counter, so memory holds no addresses; it counts
  // before any lookup, so a 429 says nothing about whether the account exists.
  const key = sha256Hex(`${tenant.id}\n${usersRepo.emailKey(input.email)}`)
  const r = deps.rateLimiter.hit(`forgot-password|email|${key}`, EMAIL_LIMIT.max, EMAIL_LIMIT.windowSeconds * 1000)
  if (!r.allowed) throw new TooManyRequestsError(r.resetSeconds, 'Too many requests, please try again later')
  const now = deps.clock.now()
  await deps.database.write((tx) =>
    scheduleJob(tx, { topic: RESET_REQUEST_TOPIC, tenantId: tenant.id, payload: { email: input.email.trim(), locale: input.locale ?? 'en' } }, now),
  )
  return { ok: true as const, message: FORGOT_PASSWORD_MESSAGE }
}

/**
 * The worker's half of forgot-password: find the account and send what fits it.
 * Unknown, deleted and platform-admin addresses get nothing (the request never said
 * whether they exist, and mailing arbitrary addresses would make us a spam relay).
 */
export async function handleResetRequest(deps: Deps, jobId: string, tenantId: string | null, payload: { email: string; locale: Locale }) {
  if (!tenantId) return
  const db = deps.database.db
  const tenant = await findTenant(db, tenantId)
  if (!tenant || tenant.status !== 'active') return
  const settings = settingsOf({ deps }, tenant)
  if (!resetEnabled(settings)) return
  const user = await usersRepo.findUserByEmail(db, tenantId, payload.email)
  if (!user || user.role === 'admin') return
  await issueReset(deps, tenant, settings, user, { origin: 'self', locale: payload.locale, stableId: jobId })
}

export interface IssueOptions {
  origin: 'self' | 'operator'
  locale: Locale
  /** makes a retried job issue nothing twice */
  stableId?: string
  /** recorded in the activity log for operator sends */
  activity?: { ctx: Ctx }
}

/** Builds the link: the tenant's base URL plus `/reset-password` unless the base already has a path of its own. */
export function resetLink(baseUrl: string, token: string, locale: Locale) {
  const url = new URL(baseUrl)
  if (url.pathname === '' || url.pathname === '/') url.pathname = '/reset-password'
  url.searchParams.set('token', token)
  if (locale !== 'en') url.searchParams.set('lang', locale)
  return url.toString()
}

/**
 * Sends the account what it needs: a reset link, or, for an account that only signs
 * in with Google or Apple, an email that points to social sign-in.
 */
export async function issueReset(deps: Deps, tenant: TenantRow, settings: StoredSettings, user: UserRow, opts: IssueOptions): Promise<'link' | 'social'> {
  if (!user.email) throw new BadRequestError('The user has no email address')
  const now = deps.clock.now()
  const rowId = opts.stableId ?? newId()
  const providers = await providersOf(deps.database.db, tenant.id, user.id)
  const mail = { tenantId: tenant.id, to: user.email, senderName: settings.passwordReset.senderName, locale: opts.locale }
  const activity = async (tx: Executor, kind: string) => {
    if (!opts.activity) return
    const { ctx } = opts.activity
    await recordActivity(tx, {
      tenantId: tenant.id,
      actor: ctx.actor,
      action: 'user.password_reset.sent',
      targetType: 'user',
      targetId: user.id,
      details: { email: kind },
      requestId: ctx.requestId,
      at: now,
    })
  }
  if (user.passwordHash === null && providers.length > 0) {
    await deps.database.write(async (tx) => {
      await queueMail(deps, tx, { ...mail, id: `${rowId}:social`, template: { kind: 'social-sign-in', providers } }, now)
      await activity(tx, 'social-sign-in')
    })
    return 'social'
  }
  const token = randomToken(32)
  const ttlMinutes = settings.passwordReset.tokenTtlMinutes
  await deps.database.write(async (tx) => {
    const inserted = await repo.insertToken(tx, tenant.id, {
      id: rowId, userId: user.id, tokenHash: sha256Hex(token), origin: opts.origin,
      createdAt: now, expiresAt: now + ttlMinutes * 60_000, consumedAt: null,
    })
    // Already issued by an earlier run of the same job: its email is queued too.
    if (!inserted) return
    const link = resetLink(settings.passwordReset.resetLinkBaseUrl, token, opts.locale)
    await queueMail(deps, tx, { ...mail, id: `${rowId}:link`, template: { kind: 'password-reset', link, validMinutes: ttlMinutes } }, now)
    await activity(tx, 'password-reset')
  })
  return 'link'
}

/** The token's row when it can still be used: unconsumed, unexpired, its user and tenant active and reset still enabled. */
async function usableToken(deps: Deps, token: string) {
  const now = deps.clock.now()
  const db = deps.database.db
  const found = await repo.findByHash(db, sha256Hex(token))
  if (!found || found.consumedAt !== null || found.expiresAt <= now) return null
  const [user, tenant] = await Promise.all([usersRepo.findUser(db, found.tenantId, found.userId), findTenant(db, found.tenantId)])
  if (!user || !tenant || user.status !== 'active' || tenant.status !== 'active') return null
  const settings = settingsOf({ deps }, tenant)
  if (!resetEnabled(settings)) return null
  return { token: found, user, tenant, settings }
}

export async function validateToken(deps: Deps, token: string) {
  return { valid: (await usableToken(deps, token)) !== null }
}

export async function resetPassword(deps: Deps, input: ResetPassword) {
  const found = await usableToken(deps, input.token)
  if (!found) throw new BadRequestError(INVALID_LINK)
  const problems = passwordProblems(input.newPassword)
  if (problems.length) throw new BadRequestError(`Password ${problems.join(', ')}`)
  const breach = await breachProblem(deps, input.newPassword)
  if (breach) throw new BadRequestError(breach)
  const passwordHash = await hashPassword(input.newPassword)
  const { user, tenant, settings } = found
  const now = deps.clock.now()
  const ctx = { deps, actor: null, tenant: { id: tenant.id, name: tenant.name, settings: tenant.settings }, requestId: '' }
  const session = await withTransaction(ctx, async (tx, inWrite) => {
    // The token is consumed first, atomically: of two concurrent resets only one sees a row here.
    if (!(await repo.consume(tx, tenant.id, found.token.id, now))) throw new BadRequestError(INVALID_LINK)
    // deleted while the password was being checked: the link went with the account
    if (!(await usersRepo.setPasswordIfActive(tx, tenant.id, user.id, passwordHash, now))) throw new BadRequestError(INVALID_LINK)
    // Other links sent to this account stop working too: the password they were for is gone.
    await repo.consumeAllOfUser(tx, tenant.id, user.id, now)
    // passwordChangedAt already refuses older refresh tokens; revoking them also covers
    // tokens created in the same millisecond.
    await revokeUserSessions(inWrite, user, now)
    const s = await startSession(deps, user, tx)
    // Tenant admins see in the activity log when an account's password was reset, and how the link was sent.
    await recordActivity(tx, { tenantId: tenant.id, actor: null, action: 'user.password_reset.completed', targetType: 'user', targetId: user.id, details: { origin: found.token.origin }, at: now })
    if (user.email) {
      await queueMail(
        deps,
        tx,
        { tenantId: tenant.id, to: user.email, senderName: settings.passwordReset.senderName, locale: input.locale ?? 'en', template: { kind: 'password-changed', at: now } },
        now,
      )
    }
    return s
  })
  return { ok: true as const, accessToken: session.accessToken, refreshToken: session.refreshToken, expiresIn: session.expiresIn, userId: user.id }
}

/** Operator send-reset: a tenantadmin for its own tenant, a platform admin for the tenant it names. */
export async function sendResetByOperator(ctx: Ctx, input: AdminSendReset) {
  const { deps } = ctx
  const tenant = await operatorTenant(ctx, input.tenantId)
  // a disabled tenant's users cannot sign in, so a link would not work either
  if (tenant.status !== 'active') throw new NotFoundError('Tenant not found')
  const settings = settingsOf(ctx, tenant)
  if (!resetEnabled(settings)) throw new NotFoundError(NOT_ENABLED)
  const user = isUuid(input.userId) ? await usersRepo.findUser(deps.database.db, tenant.id, input.userId) : undefined
  if (!user || user.status !== 'active') throw new NotFoundError('User not found')
  await issueReset(deps, tenant, settings, user, { origin: 'operator', locale: input.locale ?? 'en', activity: { ctx } })
  return { ok: true as const, sent: true as const }
}
