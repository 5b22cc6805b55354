/**
 * The tenant a tenant user acts in, with its settings, taken from the verb's context: the
 * auth step read it with the caller's credentials, so no verb reads it again. Wallets and
 * transactions belong to tenant users, so a platform admin (no tenant) is refused here
 * rather than in each module.
 */
import type { Ctx, SignedTenant } from '../../context'
import type { Deps } from '../../deps'
import { ForbiddenError } from '../../lib/errors'
import { readSettings, type StoredSettings } from './settings'

export interface TenantContext {
  id: string
  settings: StoredSettings
}

/** The settings of each context's tenant, merged over the defaults once per request. */
const resolved = new WeakMap<SignedTenant, TenantContext>()

/** A context's tenant with its settings merged over the defaults, once per context: for verbs whose actor is a key, a job or the system. */
export function tenantSettings(deps: Pick<Deps, 'config'>, tenant: SignedTenant): TenantContext {
  let out = resolved.get(tenant)
  if (!out) resolved.set(tenant, (out = { id: tenant.id, settings: readSettings(tenant.settings, tenant.name, deps.config.publicBaseUrl) }))
  return out
}

/** The caller's tenant and its settings; wallets belong to tenant users, so platform admins have none. */
export function tenantOf(ctx: Pick<Ctx, 'deps' | 'actor' | 'tenant'>): TenantContext {
  const { tenant } = ctx
  if (!ctx.actor.tenantId) throw new ForbiddenError('Wallets belong to tenant users; platform admins have none')
  // the context's tenant is the one its credentials named: anything else is a bug, refused
  if (!tenant || tenant.id !== ctx.actor.tenantId) throw new ForbiddenError()
  return tenantSettings(ctx.deps, tenant)
}
