/**
 * A signed-in user's passkeys: registration (options, then the browser's response), the list,
 * a new name, deletion. A passkey may be the account's only way to sign in (a user made on the
 * hosted page, or one who signed up with Google and added a passkey): the last one of an
 * account without a password or a linked Google or Apple account cannot be deleted.
 */
import { webauthn } from './webauthn'
import type { RegistrationResponseJSON } from '@simplewebauthn/server'
import type { Ctx } from '../../context'
import type { Deps } from '../../deps'
import type { Executor } from '../../db/client'
import { iso } from '../../lib/clock'
import { ERROR_CODES } from '../../lib/error-codes'
import { ConflictError, NotFoundError } from '../../lib/errors'
import { newId } from '../../lib/ids'
import { recordActivity } from '../activity'
import { providersOf } from '../social'
import { tenantOf } from '../tenants'
import type { UserRow } from '../users'
import { CHALLENGE_TTL_MS, checkRpIdOfRegistration, issueChallenge, refused, takeChallenge, verifyRegistration, type Expected } from './ceremony'
import { tenantExpected } from './expected'
import type { RegistrationVerifyBody } from './model'
import * as repo from './repo'

export function passkeyView(p: repo.PasskeyRow) {
  return {
    id: p.id, credentialId: p.credentialId, name: p.name, rpId: p.rpId, transports: JSON.parse(p.transports) as string[],
    deviceType: p.deviceType, backedUp: p.backedUp, counter: p.counter, createdAt: iso(p.createdAt), lastUsedAt: p.lastUsedAt === null ? null : iso(p.lastUsedAt),
  }
}

type User = Pick<UserRow, 'id' | 'username' | 'displayName'> & { tenantId: string }

/** Creation options for `user` under `expected` (the tenant's relying party, or the hosted page's). */
export async function registrationOptionsFor(deps: Deps, user: User, expected: Expected, rpName: string, binding: unknown = null) {
  const existing = await repo.listOfUser(deps.database.db, user.tenantId, user.id)
  const { bytes } = await issueChallenge(deps, user.tenantId, 'register', expected, user.id, binding)
  return (await webauthn()).generateRegistrationOptions({
    rpName, rpID: expected.rpId, userName: user.username, userDisplayName: user.displayName ?? user.username,
    // the user handle a discoverable sign-in answers with: the user's id
    userID: new TextEncoder().encode(user.id), challenge: bytes, attestationType: 'none', timeout: CHALLENGE_TTL_MS,
    excludeCredentials: existing.filter((p) => p.rpId === expected.rpId).map((p) => ({ id: p.credentialId, transports: JSON.parse(p.transports) })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
  })
}

/** Checks the browser's registration response against its challenge and stores the passkey; answers the stored row. */
export async function completeRegistration(
  deps: Deps, tenantId: string, userId: string, input: RegistrationVerifyBody, requestId: string | undefined, actor: Ctx['actor'] | null,
) {
  const response = input.response as RegistrationResponseJSON
  const { row, origins } = await takeChallenge(deps, tenantId, response.response.clientDataJSON, 'register', 'other', 'webauthn.create')
  if (row.userId !== userId) throw refused('PASSKEY_CHALLENGE_UNKNOWN')
  checkRpIdOfRegistration(response, row.rpId)
  const info = await verifyRegistration(response, row, origins)
  const now = deps.clock.now()
  const passkey: repo.PasskeyRow = {
    id: newId(), tenantId, userId, credentialId: info.credential.id, publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
    counter: info.credential.counter, transports: JSON.stringify(info.credential.transports ?? response.response.transports ?? []),
    deviceType: info.credentialDeviceType, backedUp: info.credentialBackedUp, rpId: row.rpId,
    name: input.name ?? defaultName(info.credentialDeviceType), createdAt: now, lastUsedAt: null,
  }
  try {
    await deps.database.write(async (tx) => {
      await repo.insertPasskey(tx, tenantId, passkey)
      await recordActivity(tx, {
        tenantId, actor, action: 'user.passkey_added', targetType: 'user', targetId: userId, details: { passkeyId: passkey.id, rpId: row.rpId }, requestId, at: now,
      })
    })
  } catch (err) {
    if (repo.isCredentialConflict(err)) throw new ConflictError(ERROR_CODES.PASSKEY_ALREADY_REGISTERED.message, { code: 'PASSKEY_ALREADY_REGISTERED' })
    throw err
  }
  return passkey
}

const defaultName = (type: string) => (type === 'multiDevice' ? 'Synced passkey' : 'Passkey')

export async function registrationOptions(ctx: Ctx) {
  const { settings } = tenantOf(ctx)
  const user = ctx.actor.user
  return registrationOptionsFor(ctx.deps, { ...user, tenantId: ctx.actor.tenantId! }, tenantExpected(settings), settings.passkeys.rpName)
}

export async function verifyRegistrationOf(ctx: Ctx, input: RegistrationVerifyBody) {
  const { id } = tenantOf(ctx)
  return passkeyView(await completeRegistration(ctx.deps, id, ctx.actor.userId, input, ctx.requestId, ctx.actor))
}

export async function listPasskeys(ctx: Ctx) {
  const { id } = tenantOf(ctx)
  const rows = await repo.listOfUser(ctx.deps.database.db, id, ctx.actor.userId)
  return { data: rows.map(passkeyView) }
}

async function ownPasskey(db: Executor, ctx: Ctx, tenantId: string, id: string) {
  const row = await repo.findOfUser(db, tenantId, ctx.actor.userId, id)
  if (!row) throw new NotFoundError('Passkey not found')
  return row
}

export async function renamePasskey(ctx: Ctx, id: string, name: string) {
  const tenant = tenantOf(ctx)
  return ctx.deps.database.write(async (tx) => {
    const row = await ownPasskey(tx, ctx, tenant.id, id)
    await repo.rename(tx, tenant.id, id, name)
    return passkeyView({ ...row, name })
  })
}

/** Deletes one of the caller's passkeys, unless it is the account's last way to sign in (409). */
export async function deletePasskey(ctx: Ctx, id: string) {
  const tenant = tenantOf(ctx)
  const user = ctx.actor.user
  const now = ctx.deps.clock.now()
  await ctx.deps.database.write(async (tx) => {
    const row = await ownPasskey(tx, ctx, tenant.id, id)
    const others = (await repo.countOfUser(tx, tenant.id, user.id)) - 1
    const social = await providersOf(tx, tenant.id, user.id)
    if (others === 0 && user.passwordHash === null && social.length === 0) {
      throw new ConflictError(ERROR_CODES.PASSKEY_LAST_SIGN_IN_METHOD.message, { code: 'PASSKEY_LAST_SIGN_IN_METHOD' })
    }
    await repo.remove(tx, tenant.id, row.id)
    await recordActivity(tx, {
      tenantId: tenant.id, actor: ctx.actor, action: 'user.passkey_removed', targetType: 'user', targetId: user.id, details: { passkeyId: row.id }, requestId: ctx.requestId, at: now,
    })
  })
  return { ok: true as const }
}
