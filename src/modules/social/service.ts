/**
 * Google and Apple sign-in: an ID token verified against the provider's keys becomes
 * a Slipway session. The first sign-in creates the user and links the provider's
 * subject; later ones find the user by that link, never by email.
 *
 * An email that already belongs to another account of the tenant is refused (409)
 * rather than linked: registration does not prove ownership of an address, so linking
 * by email would hand a password account's owner (or squatter) a Google user's account.
 */
import type { Deps } from '../../deps'
import { IdentityProviderUnavailableError, InvalidIdTokenError, type Provider, type VerifiedIdentity } from '../../adapters/identity/port'
import type { SignedTenant } from '../../context'
import { BadRequestError, ConflictError, ServiceUnavailableError, UnauthorizedError, ValidationError } from '../../lib/errors'
import { randomToken } from '../../lib/crypto'
import { newId } from '../../lib/ids'
import { startSession } from '../auth'
import { readSettings } from '../tenants'
import * as usersRepo from '../users'
import type { SocialSignIn } from './model'
import * as repo from './repo'
import { userView } from '../users'

const NAME: Record<Provider, string> = { google: 'Google', apple: 'Apple' }

export async function socialSignIn(deps: Deps, tenant: SignedTenant, provider: Provider, input: SocialSignIn) {
  const settings = readSettings(tenant.settings, tenant.name, deps.config.publicBaseUrl)
  const audiences = provider === 'google' ? settings.social.googleClientIds : settings.social.appleClientIds
  if (audiences.length === 0) throw new BadRequestError(`${NAME[provider]} sign-in is not configured for this tenant`)
  let identity: VerifiedIdentity
  try {
    identity = await deps.identityProviders[provider].verify(input.idToken, { audiences, nonce: input.nonce })
  } catch (err) {
    if (err instanceof InvalidIdTokenError) throw new UnauthorizedError(`Invalid ${NAME[provider]} ID token`)
    if (err instanceof IdentityProviderUnavailableError) throw new ServiceUnavailableError(`${NAME[provider]} sign-in is temporarily unavailable`)
    throw err
  }
  if (identity.email !== null && !identity.emailVerified) throw ValidationError.withMessage(`${NAME[provider]} account email is not verified`, '/idToken')
  const displayName = [input.firstName, input.lastName].map((s) => s?.trim()).filter(Boolean).join(' ') || null
  const now = deps.clock.now()
  return deps.database.write(async (tx) => {
    const link = await repo.findBySubject(tx, tenant.id, provider, identity.subject)
    let user: usersRepo.UserRow | undefined
    if (link) {
      user = await usersRepo.findUser(tx, tenant.id, link.userId)
      if (!user || user.status !== 'active') throw new UnauthorizedError('This account cannot sign in')
    } else {
      if (identity.email && (await usersRepo.emailTaken(tx, tenant.id, identity.email))) {
        throw new ConflictError(`An account with this email already exists; sign in to it with its password`)
      }
      // Letters, digits, `_` and `-` only, as usernames require; the user can rename later.
      const username = `${provider}_${randomToken(9)}`
      user = await usersRepo.insertUser(tx, { id: newId(), tenantId: tenant.id, username, email: identity.email, passwordHash: null, role: 'user', displayName, now })
      await repo.insertIdentity(tx, tenant.id, { id: newId(), userId: user.id, provider, subject: identity.subject, email: identity.email, createdAt: now })
    }
    const session = await startSession(deps, user, tx)
    return { ...session, user: userView(user) }
  })
}
