/**
 * Sessions: a short-lived HS256 access token plus an opaque refresh token of which
 * only the SHA-256 hash is stored. Refresh tokens of one sign-in form a family; with
 * rotation on, presenting an already-rotated token revokes the whole family (reuse
 * detection, RFC 9700 §4.14.2).
 */
import type { Deps } from '../../deps'
import type { Executor } from '../../db/client'
import { withTransaction, type VerbContext } from '../../context'
import { UnauthorizedError } from '../../lib/errors'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { enterTokenTenant, routedToken } from '../../db/placement'
import { newId } from '../../lib/ids'
import { signAccessToken } from '../../lib/jwt'
import { findTenant, settingsOf } from '../tenants'
import * as usersRepo from '../users'
import type { UserRow } from '../users'
import * as repo from './repo'

export async function issueAccessToken(deps: Deps, user: Pick<UserRow, 'id' | 'tenantId' | 'role'>) {
  return signAccessToken(deps.jwtKey, { sub: user.id, tenantId: user.tenantId, role: user.role }, deps.clock.now(), deps.config.accessTokenTtlSeconds)
}

/** A new refresh token and its row (only its hash is stored). */
function refreshTokenRow(deps: Deps, user: Pick<UserRow, 'id' | 'tenantId'>, familyId: string) {
  // tenants on databases of their own (docs/scaling.md): a placed tenant's token names it, so a refresh finds its database
  const token = routedToken(deps.database, user.tenantId, randomToken(32))
  const now = deps.clock.now()
  const row = {
    id: newId(), userId: user.id, familyId, tokenHash: sha256Hex(token),
    createdAt: now, expiresAt: now + deps.config.refreshTokenTtlSeconds * 1000, rotatedAt: null, revokedAt: null,
  }
  return { token, row }
}

async function insertRefreshToken(db: Executor, deps: Deps, user: Pick<UserRow, 'id' | 'tenantId'>, familyId: string) {
  const { token, row } = refreshTokenRow(deps, user, familyId)
  await repo.insertRefreshToken(db, user.tenantId, row)
  return token
}

/** A new sign-in: access token and the first refresh token of a new family. Pass `tx` to make it part of a larger change. */
export async function startSession(deps: Deps, user: Pick<UserRow, 'id' | 'tenantId' | 'role'>, tx?: Executor) {
  const refreshToken = tx
    ? await insertRefreshToken(tx, deps, user, newId())
    : await deps.database.write((w) => insertRefreshToken(w, deps, user, newId()))
  return { accessToken: await issueAccessToken(deps, user), refreshToken, expiresIn: deps.config.accessTokenTtlSeconds }
}

/**
 * A new sign-in whose first refresh token is written by the caller, as a statement of its write
 * batch (`Database.writeBatch`): the session answers only once that batch has committed.
 */
export function sessionStatement(deps: Deps, user: Pick<UserRow, 'id' | 'tenantId' | 'role'>) {
  const { token, row } = refreshTokenRow(deps, user, newId())
  return {
    statement: repo.refreshTokenStatement(deps.database.db, user.tenantId, row),
    session: async () => ({ accessToken: await issueAccessToken(deps, user), refreshToken: token, expiresIn: deps.config.accessTokenTtlSeconds }),
  }
}

const invalid = () => new UnauthorizedError('Invalid refresh token')

export async function refreshSession(deps: Deps, presented: string) {
  const now = deps.clock.now()
  const hash = sha256Hex(presented)
  enterTokenTenant(deps.database, presented)
  const outcome = await deps.database.write(async (tx) => {
    const token = await repo.findByHash(tx, hash)
    if (!token || token.revokedAt !== null || token.expiresAt <= now) return { error: invalid() }
    const user = await usersRepo.findUser(tx, token.tenantId, token.userId)
    const tenant = user?.tenantId ? await findTenant(tx, user.tenantId) : undefined
    if (!user || user.status !== 'active' || (user.tenantId !== null && tenant?.status !== 'active')) return { error: invalid() }
    // Tokens issued before the last password change (or reset) are refused.
    if (token.createdAt < user.passwordChangedAt) return { error: invalid() }
    const rotation = tenant !== undefined && settingsOf({ deps }, tenant).refreshTokenRotation
    if (token.rotatedAt !== null) {
      // Reuse of a rotated token: whoever holds it may be an attacker. Revoke the family.
      await repo.revokeFamily(tx, token.tenantId, token.familyId, now)
      return { error: new UnauthorizedError('Refresh token reuse detected; please sign in again') }
    }
    let refreshToken: string | undefined
    if (rotation) {
      await repo.markRotated(tx, token.tenantId, token.id, now)
      refreshToken = await insertRefreshToken(tx, deps, user, token.familyId)
    }
    return { user, refreshToken }
  })
  // The revocation above must commit, so the refusal is thrown after the transaction.
  if ('error' in outcome) throw outcome.error
  const accessToken = await issueAccessToken(deps, outcome.user!)
  return { accessToken, expiresIn: deps.config.accessTokenTtlSeconds, ...(outcome.refreshToken ? { refreshToken: outcome.refreshToken } : {}) }
}

/** Ends every session of a user (used when an account is deleted). */
export async function revokeUserSessions(ctx: VerbContext<unknown>, user: Pick<UserRow, 'id' | 'tenantId'>, now: number) {
  await withTransaction(ctx, (tx) => repo.revokeUser(tx, user.tenantId, user.id, now))
}
