/**
 * The context of work done on a user's behalf without the user's own request: an agent
 * paying from the user's wallet, a signing an MPC session finishes. Made here, by one
 * function, never by hand: the user is the actor and its tenant is read with it, in the
 * one statement the bearer check reads (src/db/callers.ts), and held to the same rule:
 * a deleted user or a disabled tenant acts no more, whoever acts for it.
 */
import type { Ctx } from '../../context'
import type { Deps } from '../../deps'
import { findActor } from '../../db/callers'
import { callerOf } from '../../http/auth'

/**
 * The owner's context for `requestId` (`ap-execution:<id>`, `mpc:<session>`); null when the
 * user is gone or deleted, or its tenant is disabled (as a bearer token of theirs would be refused).
 */
export async function ownerContext(deps: Deps, userId: string, requestId: string): Promise<Ctx | null> {
  const row = await findActor(deps.database, userId)
  if (!row || row.user.status !== 'active') return null
  if (row.user.tenantId !== null && row.tenantStatus !== 'active') return null
  return { deps, ...callerOf(row), requestId }
}
