/**
 * Sign-in with a passkey, tenant-signed like the password sign-in, ending in the same session
 * (auth's `startSession`: access token, refresh token of a new family). With a username the
 * options list that user's passkeys; without one the browser offers the passkeys it holds for
 * the relying party (discoverable credentials) and the credential names the user. An unknown
 * username gets options like a known one with no passkey, so the answer does not tell whether
 * an account exists.
 */
import { webauthn } from './webauthn'
import type { SignedTenant } from '../../context'
import type { Deps } from '../../deps'
import { startSession } from '../auth'
import { tenantSettings } from '../tenants'
import { findUser, findUserByUsername, userView } from '../users'
import { checkAssertion } from './assertion'
import { CHALLENGE_TTL_MS, issueChallenge, refused, type Expected, type Stage } from './ceremony'
import { tenantExpected } from './expected'
import type { SignInVerifyBody } from './model'
import * as repo from './repo'

/** Request options for a sign-in under `expected`, for the named user's passkeys or (no username) any. */
export async function signInOptionsFor(deps: Deps, tenantId: string, expected: Expected, username: string | undefined, binding: unknown = null) {
  const user = username === undefined ? undefined : await findUserByUsername(deps.database.db, tenantId, username)
  const passkeys = user ? (await repo.listOfUser(deps.database.db, tenantId, user.id)).filter((p) => p.rpId === expected.rpId) : []
  // a named user: the challenge is theirs alone (an unknown name gets a challenge no passkey can answer)
  const owner = username === undefined ? null : user?.id ?? `unknown:${username}`
  const { bytes } = await issueChallenge(deps, tenantId, 'signin', expected, owner, binding)
  return (await webauthn()).generateAuthenticationOptions({
    rpID: expected.rpId, challenge: bytes, userVerification: 'required', timeout: CHALLENGE_TTL_MS,
    allowCredentials: passkeys.map((p) => ({ id: p.credentialId, transports: JSON.parse(p.transports) })),
  })
}

/** The user an assertion signs in, checked like the password sign-in checks its user. */
export async function signInUser(
  deps: Deps, tenantId: string, input: SignInVerifyBody, expectedBinding: (binding: unknown) => boolean, stage: Stage = 'signin',
) {
  const { credential, row } = await checkAssertion(deps, tenantId, input.response, 'signin', stage)
  // a challenge of the hosted page is answered only there, and the tenant's only on the tenant's route
  if (!expectedBinding(row.binding === null ? null : JSON.parse(row.binding))) throw refused('PASSKEY_CHALLENGE_UNKNOWN', stage)
  const user = await findUser(deps.database.db, tenantId, credential.userId)
  if (!user || user.status !== 'active') throw refused('PASSKEY_CREDENTIAL_UNKNOWN', stage, 'This account cannot sign in')
  return user
}

export async function signInOptions(deps: Deps, tenant: SignedTenant, username: string | undefined) {
  const { settings } = tenantSettings(deps, tenant)
  return signInOptionsFor(deps, tenant.id, tenantExpected(settings, 'signin'), username)
}

export async function signIn(deps: Deps, tenant: SignedTenant, input: SignInVerifyBody) {
  const user = await signInUser(deps, tenant.id, input, (binding) => binding === null)
  const session = await startSession(deps, user)
  return { ...session, user: userView(user) }
}
