/**
 * The hosted passkey page (GET /passkeys), for tenants without a front end of their own. The
 * tenant's backend opens a session (tenant-signed: it names the user for a registration, having
 * signed them in itself) and sends the user to the page; the page runs the ceremony on Slipway's
 * own origin (relying party: PUBLIC_BASE_URL's host) and sends the user back to the tenant's
 * `returnUrl` with a one-time code, which the tenant's backend exchanges for the usual tokens.
 * Sessions and codes are single-use and short-lived; only their SHA-256 is stored.
 */
import type { SignedTenant } from '../../context'
import type { Deps } from '../../deps'
import { iso } from '../../lib/clock'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { ERROR_CODES } from '../../lib/error-codes'
import { BadRequestError, NotFoundError, UnauthorizedError } from '../../lib/errors'
import { newId } from '../../lib/ids'
import { startSession } from '../auth'
import { findTenant, settingsOf, tenantSettings } from '../tenants'
import { findUser, userView } from '../users'
import { hostedExpected } from './expected'
import { refused } from './ceremony'
import type { HostedSessionBody, HostedVerifyBody } from './hosted-model'
import type { RegistrationVerifyBody, SignInVerifyBody } from './model'
import * as repo from './repo'
import { completeRegistration, registrationOptionsFor } from './service'
import { signInOptionsFor, signInUser } from './signin'

export const HOSTED_SESSION_TTL_MS = 15 * 60 * 1000
export const HOSTED_CODE_TTL_MS = 2 * 60 * 1000

interface SessionData { mode: 'register' | 'signin'; returnUrl: string; state: string | null }

const invalidSession = () => new BadRequestError(ERROR_CODES.PASSKEY_HOSTED_SESSION_INVALID.message, { code: 'PASSKEY_HOSTED_SESSION_INVALID' })

/** Opens a hosted page session for the signed tenant; answers the page's address. */
export async function openHostedSession(deps: Deps, tenant: SignedTenant, input: HostedSessionBody) {
  const { settings } = tenantSettings(deps, tenant)
  if (!settings.passkeys.hostedReturnUrls.some((prefix) => input.returnUrl.startsWith(prefix))) {
    throw new BadRequestError(ERROR_CODES.PASSKEY_RETURN_URL_NOT_ALLOWED.message, { code: 'PASSKEY_RETURN_URL_NOT_ALLOWED' })
  }
  let userId: string | null = null
  if (input.mode === 'register') {
    if (!input.userId) throw new BadRequestError('userId is required to register a passkey')
    const user = await findUser(deps.database.db, tenant.id, input.userId)
    if (!user || user.status !== 'active') throw new NotFoundError('User not found')
    userId = user.id
  }
  const token = randomToken(32)
  const now = deps.clock.now()
  const expiresAt = now + HOSTED_SESSION_TTL_MS
  const data: SessionData = { mode: input.mode, returnUrl: input.returnUrl, state: input.state ?? null }
  await deps.database.write((tx) => repo.insertGrant(tx, tenant.id, {
    id: newId(), userId, kind: 'hosted_session', tokenHash: sha256Hex(token), data: JSON.stringify(data), createdAt: now, expiresAt, usedAt: null,
  }))
  const url = `${deps.config.publicBaseUrl.replace(/\/$/, '')}/passkeys#session=${token}`
  return { url, expiresAt: iso(expiresAt) }
}

/** The live session a page presents, with its tenant; refused when unknown, spent or expired. */
async function liveSession(deps: Deps, token: string) {
  const grant = await repo.findGrantOfAnyTenant(deps.database.db, sha256Hex(token))
  if (!grant || grant.kind !== 'hosted_session' || grant.usedAt !== null || grant.expiresAt <= deps.clock.now()) throw invalidSession()
  const tenant = await findTenant(deps.database.db, grant.tenantId)
  if (!tenant || tenant.status !== 'active') throw invalidSession()
  return { grant, tenant, data: JSON.parse(grant.data) as SessionData }
}

/** The page's options: creation options (register) or request options for any passkey of the relying party (sign in). */
export async function hostedOptions(deps: Deps, token: string) {
  const { grant, tenant, data } = await liveSession(deps, token)
  const expected = hostedExpected(deps)
  const binding = { hostedSessionId: grant.id }
  if (data.mode === 'signin') return { mode: data.mode, options: await signInOptionsFor(deps, grant.tenantId, expected, undefined, binding) }
  const user = await findUser(deps.database.db, grant.tenantId, grant.userId!)
  if (!user || user.status !== 'active') throw invalidSession()
  const rpName = settingsOf({ deps }, tenant).passkeys.rpName
  return { mode: data.mode, options: await registrationOptionsFor(deps, { ...user, tenantId: grant.tenantId }, expected, rpName, binding) }
}

/** Checks the page's ceremony, spends the session and answers where to send the user: the return address with a one-time code. */
export async function hostedVerify(deps: Deps, input: HostedVerifyBody) {
  const { grant, data } = await liveSession(deps, input.session)
  let userId: string
  const response = input.response
  if (data.mode === 'register') {
    if (!('attestationObject' in response.response)) throw refused('PASSKEY_RESPONSE_INVALID')
    const passkey = await completeRegistration(deps, grant.tenantId, grant.userId!, { response: response as RegistrationVerifyBody['response'], name: input.name }, undefined, null)
    userId = passkey.userId
  } else {
    if (!('signature' in response.response)) throw refused('PASSKEY_RESPONSE_INVALID')
    const sameSession = (b: unknown) => (b as { hostedSessionId?: string } | null)?.hostedSessionId === grant.id
    const user = await signInUser(deps, grant.tenantId, { response: response as SignInVerifyBody['response'] }, sameSession, 'other')
    userId = user.id
  }
  const code = randomToken(32)
  const now = deps.clock.now()
  const spent = await deps.database.write(async (tx) => {
    if (!(await repo.spendGrant(tx, grant.tenantId, grant.id, now))) return false
    await repo.insertGrant(tx, grant.tenantId, {
      id: newId(), userId, kind: 'hosted_code', tokenHash: sha256Hex(code), data: '{}', createdAt: now, expiresAt: now + HOSTED_CODE_TTL_MS, usedAt: null,
    })
    return true
  })
  if (!spent) throw invalidSession()
  const url = new URL(data.returnUrl)
  url.searchParams.set('code', code)
  if (data.state !== null) url.searchParams.set('state', data.state)
  return { redirectUrl: url.toString() }
}

/** The tenant's backend exchanges the one-time code for a session, as a password sign-in answers. */
export async function exchangeCode(deps: Deps, tenant: SignedTenant, code: string) {
  const invalid = () => new UnauthorizedError(ERROR_CODES.PASSKEY_CODE_INVALID.message, { code: 'PASSKEY_CODE_INVALID' })
  const grant = await repo.findGrant(deps.database.db, tenant.id, sha256Hex(code))
  // another tenant's code is as unknown as a made-up one
  if (!grant || grant.kind !== 'hosted_code' || grant.tenantId !== tenant.id || !grant.userId) throw invalid()
  if (!(await deps.database.write((tx) => repo.spendGrant(tx, tenant.id, grant.id, deps.clock.now())))) throw invalid()
  const user = await findUser(deps.database.db, tenant.id, grant.userId)
  if (!user || user.status !== 'active') throw invalid()
  const session = await startSession(deps, user)
  return { ...session, user: userView(user) }
}
