/** An assertion (a passkey's signature over a challenge) checked for sign-in, an approval or the hosted page. */
import type { AuthenticationResponseJSON } from '@simplewebauthn/server'
import type { Deps } from '../../deps'
import { authDataOf, checkRpId, refused, takeChallenge, verifyAssertion, type Stage } from './ceremony'
import type { AuthenticationResponse } from './model'
import * as repo from './repo'

/**
 * Checks `input` against a challenge of `purpose` issued by this tenant and answers the
 * passkey and the challenge's row; the passkey's counter and last use are recorded. A
 * credential that is not (or no longer) registered is refused after the relying party check,
 * so an assertion made for another tenant's relying party is told as such.
 */
export async function checkAssertion(
  deps: Deps, tenantId: string, input: typeof AuthenticationResponse.static, purpose: repo.ChallengeRow['purpose'], stage: Stage,
) {
  const response = input as AuthenticationResponseJSON
  const { row, origins } = await takeChallenge(deps, tenantId, response.response.clientDataJSON, purpose, stage, 'webauthn.get')
  const authData = authDataOf(response.response.authenticatorData)
  checkRpId(authData, row.rpId, stage)
  const credential = await repo.findByCredentialId(deps.database.db, tenantId, response.id)
  if (!credential || credential.rpId !== row.rpId) throw refused('PASSKEY_CREDENTIAL_UNKNOWN', stage)
  // a challenge issued for one user (a sign-in naming a username, an approval) takes only that user's passkeys
  if (row.userId !== null && row.userId !== credential.userId) throw refused('PASSKEY_CREDENTIAL_UNKNOWN', stage)
  const handle = response.response.userHandle
  if (handle && Buffer.from(handle, 'base64url').toString('utf8') !== credential.userId) throw refused('PASSKEY_VERIFICATION_FAILED', stage)
  const { counter, backedUp } = await verifyAssertion(response, row, origins, credential, stage)
  const now = deps.clock.now()
  const recorded = await deps.database.write((tx) => repo.recordUse(tx, tenantId, credential.id, credential.counter, counter, backedUp, now))
  // another assertion with this counter was recorded in between: one of the two is a clone's
  if (!recorded) throw refused('PASSKEY_COUNTER_REGRESSED', stage)
  return { credential, row }
}
