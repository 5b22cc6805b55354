/**
 * The tenant a tenant user acts in, with its settings read once for the request.
 * Wallets and transactions belong to tenant users, so a platform admin (no tenant)
 * is refused here rather than in each module.
 */
import type { Ctx } from '../../context'
import { ForbiddenError, NotFoundError } from '../../http/errors'
import { findTenant, settingsOf } from './service'
import type { StoredSettings } from './settings'

export interface TenantContext {
  id: string
  settings: StoredSettings
}

/** The caller's tenant and its settings; wallets belong to tenant users, so platform admins have none. */
export async function callerTenant(ctx: Ctx): Promise<TenantContext> {
  if (!ctx.actor.tenantId) throw new ForbiddenError('Wallets belong to tenant users; platform admins have none')
  const row = await findTenant(ctx.deps.database.db, ctx.actor.tenantId)
  if (!row) throw new NotFoundError('Tenant not found')
  return { id: row.id, settings: settingsOf(ctx, row) }
}
