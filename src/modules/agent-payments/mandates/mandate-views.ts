/** A mandate as the API, its audit entries and its webhook events answer it. */
import { iso } from '../../../lib/clock'
import type { MandateRow } from '../schema'

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms))

export const mandateView = (r: MandateRow) => ({
  id: r.id, type: r.type, agentId: r.agentId, shopperId: r.shopperId, status: r.status, environment: r.environment,
  constraints: r.constraints, cart: r.cart, description: r.description, humanPresent: r.humanPresent, expiresAt: iso(r.expiresAt),
  authorization: r.authorizedAt === null || r.authorizationHash === null ? null : {
    authorizedBy: r.authorizedBy, authorizedAt: iso(r.authorizedAt), contentHash: r.authorizationHash,
    keyThumbprint: r.authorizedKeyThumbprint,
  },
  createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt), endedAt: isoOrNull(r.endedAt),
})
