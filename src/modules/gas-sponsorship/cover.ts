/** Whether the tenant's policy would sponsor an operation of this kind on the network (read outside any write; the write checks again). */
import type { Deps } from '../../deps'
import { findPolicy } from './repo'
import { hasSigner } from './signer'
import type { GasOperationKind } from './schema'

export async function policyCovers(deps: Deps, tenantId: string, network: string, kind: GasOperationKind): Promise<boolean> {
  const c = deps.config
  if (!c.bundlerUrls[network] || !c.paymasterAddresses[network] || !(await hasSigner(deps, network))) return false
  const p = await findPolicy(deps.database.db, tenantId, network)
  return !!p && p.enabled && p.operations.includes(kind)
}
