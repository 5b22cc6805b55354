/**
 * The server side of a WebAuthn ceremony, on @simplewebauthn/server: challenges kept in our
 * own table (single-use, short-lived), and a response checked step by step so each refusal
 * carries its own code. The order is the point: the challenge first (unknown, expired or
 * spent: a replay), then where the response was made (origin, relying party), then the
 * credential, and only then the signature and the counter.
 */
import { createHash, randomBytes } from 'node:crypto'
import { webauthn } from './webauthn'
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server'
import type { Deps } from '../../deps'
import { BadRequestError, UnauthorizedError, type ErrorCode } from '../../lib/errors'
import { ERROR_CODES } from '../../lib/error-codes'
import { newId } from '../../lib/ids'
import * as repo from './repo'

/** How long a ceremony's options stay usable: WebAuthn's own timeout, in milliseconds. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000

/** Whom a refusal answers: 401 in a sign-in (as a wrong password does), 400 elsewhere. */
export type Stage = 'signin' | 'other'

export function refused(code: ErrorCode, stage: Stage = 'other', message: string = ERROR_CODES[code].message) {
  return stage === 'signin' ? new UnauthorizedError(message, { code }) : new BadRequestError(message, { code })
}

export interface Expected {
  rpId: string
  origins: string[]
}

/** A fresh random challenge (32 bytes) stored for one ceremony; answers its base64url form. */
export async function issueChallenge(
  deps: Deps, tenantId: string, purpose: repo.ChallengeRow['purpose'], expected: Expected, userId: string | null, binding: unknown = null,
) {
  const bytes = randomBytes(32)
  const challenge = bytes.toString('base64url')
  const now = deps.clock.now()
  await deps.database.write(async (tx) => {
    await repo.dropExpired(tx, tenantId, now)
    await repo.insertChallenge(tx, tenantId, {
      id: newId(), userId, purpose, challenge, rpId: expected.rpId, origins: JSON.stringify(expected.origins),
      binding: binding === null ? null : JSON.stringify(binding), createdAt: now, expiresAt: now + CHALLENGE_TTL_MS, usedAt: null,
    })
  })
  return { bytes: new Uint8Array(bytes), challenge }
}

interface ClientData { type: string; challenge: string; origin: string }

function clientDataOf(b64url: string, stage: Stage): ClientData {
  try {
    const parsed = JSON.parse(Buffer.from(b64url, 'base64url').toString('utf8')) as Partial<ClientData>
    if (typeof parsed.challenge === 'string' && typeof parsed.origin === 'string' && typeof parsed.type === 'string') return parsed as ClientData
  } catch {
    // refused below
  }
  throw refused('PASSKEY_RESPONSE_INVALID', stage)
}

const sha256 = (s: string) => createHash('sha256').update(s).digest()

/** The relying party id hash of authenticator data (its first 32 bytes). */
function rpIdHashOf(authData: Uint8Array): Buffer | null {
  return authData.length >= 37 ? Buffer.from(authData.subarray(0, 32)) : null
}

/** The signature counter of authenticator data (bytes 33 to 36, big-endian). */
export function signCountOf(authData: Uint8Array): number {
  return Buffer.from(authData).readUInt32BE(33)
}

/**
 * Spends the response's challenge and answers its row, or throws the refusal. Spent whatever
 * follows: a response that fails a later check cannot be tried again with the same challenge.
 */
export async function takeChallenge(
  deps: Deps, tenantId: string, clientDataJSON: string, purpose: repo.ChallengeRow['purpose'], stage: Stage, wantedType: string,
) {
  const data = clientDataOf(clientDataJSON, stage)
  if (data.type !== wantedType) throw refused('PASSKEY_RESPONSE_INVALID', stage)
  const now = deps.clock.now()
  const row = await repo.findChallenge(deps.database.db, tenantId, data.challenge)
  if (!row || row.purpose !== purpose) throw refused('PASSKEY_CHALLENGE_UNKNOWN', stage)
  if (row.usedAt !== null) throw refused('PASSKEY_ASSERTION_REPLAYED', stage)
  if (row.expiresAt <= now) throw refused('PASSKEY_CHALLENGE_EXPIRED', stage)
  const spent = await deps.database.write((tx) => repo.spendChallenge(tx, tenantId, row.id, now))
  if (!spent) throw refused('PASSKEY_ASSERTION_REPLAYED', stage)
  const origins = JSON.parse(row.origins) as string[]
  if (!origins.includes(data.origin)) throw refused('PASSKEY_ORIGIN_NOT_ALLOWED', stage, `The origin ${JSON.stringify(data.origin).slice(0, 200)} is not allowed`)
  return { row, origins, clientData: data }
}

/** Refuses authenticator data made for another relying party than the challenge's. */
export function checkRpId(authData: Uint8Array, rpId: string, stage: Stage) {
  const hash = rpIdHashOf(authData)
  if (!hash) throw refused('PASSKEY_RESPONSE_INVALID', stage)
  if (!hash.equals(sha256(rpId))) throw refused('PASSKEY_RP_MISMATCH', stage)
}

/**
 * A registration made for another relying party: checked on the authenticator data the browser
 * sends beside the attestation (WebAuthn Level 3 `getAuthenticatorData()`); without it the
 * library's own check of the attestation's copy refuses it (mapped in registrationRefusal).
 */
export function checkRpIdOfRegistration(response: RegistrationResponseJSON, rpId: string) {
  const authData = response.response.authenticatorData
  if (authData) checkRpId(authDataOf(authData), rpId, 'other')
}

export async function verifyRegistration(response: RegistrationResponseJSON, row: repo.ChallengeRow, origins: string[]) {
  let out
  try {
    out = await (await webauthn()).verifyRegistrationResponse({
      response, expectedChallenge: row.challenge, expectedOrigin: origins, expectedRPID: row.rpId, requireUserVerification: true,
    })
  } catch (err) {
    throw registrationRefusal(err)
  }
  if (!out.verified) throw refused('PASSKEY_VERIFICATION_FAILED')
  return out.registrationInfo
}

function registrationRefusal(err: unknown) {
  const message = err instanceof Error ? err.message : ''
  // the library checks the relying party id hash only after decoding the attestation
  if (/RP ID/i.test(message)) return refused('PASSKEY_RP_MISMATCH')
  return refused('PASSKEY_VERIFICATION_FAILED', 'other', `The passkey response does not verify: ${message.slice(0, 200)}`)
}

/**
 * Checks an assertion's signature (and user verification) with the library, with the counter
 * check left to us: the library's would throw without a code.
 */
export async function verifyAssertion(
  response: AuthenticationResponseJSON, row: repo.ChallengeRow, origins: string[], credential: repo.PasskeyRow, stage: Stage,
) {
  let out
  try {
    out = await (await webauthn()).verifyAuthenticationResponse({
      response, expectedChallenge: row.challenge, expectedOrigin: origins, expectedRPID: row.rpId, requireUserVerification: true,
      credential: { id: credential.credentialId, publicKey: new Uint8Array(Buffer.from(credential.publicKey, 'base64url')), counter: 0 },
    })
  } catch (err) {
    const message = err instanceof Error ? err.message : ''
    throw refused('PASSKEY_VERIFICATION_FAILED', stage, `The passkey response does not verify: ${message.slice(0, 200)}`)
  }
  if (!out.verified) throw refused('PASSKEY_VERIFICATION_FAILED', stage)
  const counter = out.authenticationInfo.newCounter
  // WebAuthn §6.1.1: a counter that does not move forward (when either side keeps one) may mean a cloned authenticator.
  if ((counter > 0 || credential.counter > 0) && counter <= credential.counter) throw refused('PASSKEY_COUNTER_REGRESSED', stage)
  return { counter, backedUp: out.authenticationInfo.credentialBackedUp }
}

export const authDataOf = (b64url: string) => new Uint8Array(Buffer.from(b64url, 'base64url'))
