/**
 * The MPC module's sealed values, for `slipway reseal` (src/ops/reseal.ts): the service
 * party's key shares, each bound to its tenant and DKG session by the associated data.
 */
import type { SealedColumn } from '../../db/sealed-columns'
import { shareColumn } from './repo'

export const shareAad = (tenantId: string, sessionId: string) => `mpc_share:${tenantId}:${sessionId}`

export const sealedColumns: SealedColumn[] = [shareColumn({ aad: (r) => shareAad(r.tenantId, r.id) })]
