/**
 * Who may act in a relay session. Two kinds of bearer reach the relay:
 * - a user's access token: the session's own user, as the device (0) or the backup (2);
 * - a service token (service-token.ts): the service party (1) of any session of its tenant.
 * A session of another tenant answers 404 like an unknown one; a caller of the right tenant
 * who is not a party of the session (another user, an operator, a party id it cannot hold)
 * answers 403.
 */
import type { Deps } from '../../deps'
import { AppError, ForbiddenError, NotFoundError, UnauthorizedError } from '../../lib/errors'
import { actorFromBearer, bearerToken, type Actor } from '../../http/auth'
import { isUuid } from '../../lib/ids'
import { BACKUP, DEVICE, SERVICE } from './model'
import * as repo from './repo'
import { SERVICE_TOKEN_PREFIX, verifyServiceToken } from './service-token'

export type RelayCaller = { kind: 'user'; tenantId: string; actor: Actor } | { kind: 'service'; tenantId: string }

export async function relayCaller(deps: Deps, authorization: string | null): Promise<RelayCaller> {
  const token = bearerToken(authorization)
  if (!token) throw new UnauthorizedError()
  if (token.startsWith(SERVICE_TOKEN_PREFIX)) {
    const tenantId = verifyServiceToken(deps.jwtKey, token, deps.clock.now())
    if (!tenantId) throw new UnauthorizedError()
    return { kind: 'service', tenantId }
  }
  const actor = await actorFromBearer(deps, authorization)
  if (!actor) throw new UnauthorizedError()
  if (!actor.tenantId) throw new ForbiddenError('MPC sessions belong to a tenant\'s users')
  return { kind: 'user', tenantId: actor.tenantId, actor }
}

export const sessionNotFound = () => new NotFoundError('MPC session not found', { code: 'MPC_SESSION_NOT_FOUND' })
export const sessionExpired = () => new AppError(410, 'GoneError', 'This MPC session has expired; start a new one', { code: 'MPC_SESSION_EXPIRED' })

/** The party ids `caller` may act as in `session` (empty: not a party of it). */
export function partiesOf(caller: RelayCaller, session: repo.MpcSessionRow): number[] {
  const mine = caller.kind === 'service' ? [SERVICE] : caller.actor.userId === session.userId && caller.actor.role === 'user' ? [DEVICE, BACKUP] : []
  return mine.filter((p) => session.parties.includes(p))
}

/** The session, when `caller` is one of its parties; 404 for another tenant's or an unknown id, 403 for a non-party. */
export async function sessionFor(deps: Deps, caller: RelayCaller, id: string) {
  const s = isUuid(id) ? await repo.findSession(deps.database.db, caller.tenantId, id) : undefined
  if (!s) throw sessionNotFound()
  if (partiesOf(caller, s).length === 0) throw new ForbiddenError('You are not a party of this MPC session', { code: 'MPC_NOT_A_PARTY' })
  return s
}

/** Throws 403 unless `caller` may act as `partyId` in `session`. */
export function requireParty(caller: RelayCaller, session: repo.MpcSessionRow, partyId: number) {
  if (!session.parties.includes(partyId)) throw new ForbiddenError(`Party ${partyId} is not part of this session (parties: ${session.parties.join(', ')})`, { code: 'MPC_NOT_A_PARTY' })
  if (!partiesOf(caller, session).includes(partyId)) {
    throw new ForbiddenError(
      `This token cannot act as party ${partyId} (0 device and 2 backup: the session's user; 1 service: a service token)`,
      { code: 'MPC_NOT_A_PARTY' },
    )
  }
}

export function requireOpen(deps: Deps, session: repo.MpcSessionRow) {
  if (session.expiresAt <= deps.clock.now()) throw sessionExpired()
}
