/** Tenants: created and managed by platform admins; a tenantadmin sees and changes only its own. */
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors'
import { iso } from '../../lib/clock'
import { newApiKey, newApiSecret, newId, isUuid } from '../../lib/ids'
import type { Actor, Ctx, SignedTenant } from '../../context'
import { listActivity, recordActivity } from '../activity'
import { controlWrite, enterTenant, inControl } from '../../db/placement'
import { passkeySettingsProblems } from './passkey-settings'
import { applyPatch, changedPaths, defaultSettings, readSettings, viewSettings, type StoredSettings, type TenantSettingsPatch } from './settings'

import type { CreateTenant, UpdateTenant } from './model'
import * as repo from './repo'
import type { TenantRow } from './repo'

export function tenantView(ctx: Pick<Ctx, 'deps'>, row: TenantRow) {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    apiKey: row.apiKey,
    settings: viewSettings(settingsOf(ctx, row)),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  }
}

export function settingsOf(ctx: Pick<Ctx, 'deps'>, row: Pick<TenantRow, 'settings' | 'name'>): StoredSettings {
  return readSettings(row.settings, row.name, ctx.deps.config.publicBaseUrl)
}

/**
 * The tenant an operator acts on. A tenantadmin is held to its own tenant, and any
 * other id answers 404 exactly like an unknown one; a platform admin must name it.
 */
export async function operatorTenant(ctx: Ctx, requested: string | undefined): Promise<TenantRow> {
  const { actor } = ctx
  let id: string
  if (actor.role === 'admin') {
    if (!requested) throw new BadRequestError('tenantId is required for platform admins')
    id = requested
  } else if (actor.role === 'tenantadmin') {
    if (requested && requested !== actor.tenantId) throw new NotFoundError('Tenant not found')
    id = actor.tenantId!
  } else throw new ForbiddenError()
  const row = isUuid(id) ? await inControl(ctx.deps.database, () => findTenant(ctx.deps.database.db, id)) : undefined
  if (!row) throw new NotFoundError('Tenant not found')
  // tenants on databases of their own (docs/scaling.md): the rest of the request works in this tenant's
  enterTenant(ctx.deps.database, row.id)
  return row
}

/**
 * The tenant an operator acts on, as a verb's context carries it, with the same rules as
 * `operatorTenant`: a tenantadmin's own is the one its credentials read (no read here); a
 * platform admin's named one is read once.
 */
export async function operatorTenantContext(ctx: Ctx, requested: string | undefined): Promise<SignedTenant> {
  if (ctx.actor.role === 'tenantadmin' && ctx.tenant?.id === ctx.actor.tenantId) {
    if (requested && requested !== ctx.actor.tenantId) throw new NotFoundError('Tenant not found')
    return ctx.tenant
  }
  const row = await operatorTenant(ctx, requested)
  return { id: row.id, name: row.name, settings: row.settings }
}

/**
 * Only the id of the tenant an operator acts on, with the same rules as `operatorTenant`.
 * A tenantadmin's own tenant needs no read: the bearer check already found it active.
 */
export async function operatorTenantId(ctx: Ctx, requested: string | undefined): Promise<string> {
  if (ctx.actor.role === 'tenantadmin') {
    if (requested && requested !== ctx.actor.tenantId) throw new NotFoundError('Tenant not found')
    return ctx.actor.tenantId!
  }
  return (await operatorTenant(ctx, requested)).id
}

export const findTenant = repo.findTenant

/** A tenant the actor may see by id: every tenant for admins, its own for a tenantadmin. */
async function visibleTenant(ctx: Ctx, id: string): Promise<TenantRow> {
  if (ctx.actor.role !== 'admin' && ctx.actor.tenantId !== id) throw new NotFoundError('Tenant not found')
  const row = isUuid(id) ? await inControl(ctx.deps.database, () => findTenant(ctx.deps.database.db, id)) : undefined
  if (!row) throw new NotFoundError('Tenant not found')
  // tenants on databases of their own (docs/scaling.md): the rest of the request works in this tenant's
  enterTenant(ctx.deps.database, row.id)
  return row
}

/** `actor` is null when an operator runs `slipway tenant create` (recorded so in the activity log). */
export async function createTenant(ctx: Omit<Ctx, 'actor'> & { actor: Ctx['actor'] | null }, input: CreateTenant) {
  const { deps } = ctx
  const id = newId()
  const now = deps.clock.now()
  const apiSecret = newApiSecret()
  const settings = applyPatch(defaultSettings(input.name, deps.config.publicBaseUrl), input.settings ?? {}, deps.sealer, id)
  const problems = passkeySettingsProblems(settings.passkeys)
  if (problems.length) throw new ValidationError(problems)
  const row: TenantRow = {
    id, name: input.name, status: 'active', apiKey: newApiKey(), apiSecretSealed: deps.sealer.seal(apiSecret, repo.secretAad(id)),
    settings: settings as unknown as Record<string, unknown>, createdAt: now, updatedAt: now,
  }
  await controlWrite(deps.database, id, async (tx) => {
    await repo.insertTenant(tx, row)
    await recordActivity(tx, {
      tenantId: id,
      actor: ctx.actor,
      action: 'tenant.created',
      targetType: 'tenant',
      targetId: id,
      details: { name: input.name, settings: changedPaths(input.settings ?? {}) },
      requestId: ctx.requestId,
      at: now,
    })
  })
  return { ...tenantView(ctx, row), apiSecret }
}

export async function listTenants(ctx: Ctx, limit: number, offset: number) {
  const { rows, total } = await repo.listTenants(ctx.deps.database.db, ctx.actor.role === 'admin' ? null : ctx.actor.tenantId ?? '', limit, offset)
  return { rows: rows.map((r) => tenantView(ctx, r)), total }
}

export async function getTenant(ctx: Ctx, id: string) {
  return tenantView(ctx, await visibleTenant(ctx, id))
}

export async function updateTenant(ctx: Ctx, id: string, input: UpdateTenant) {
  const { deps } = ctx
  const { name, status, settings: nested, ...flat } = input
  // Settings may come nested under `settings` or at the top level (DECISIONS.md lists them flat).
  const patch: TenantSettingsPatch = { ...flat, ...(nested ?? {}) }
  if (status !== undefined && ctx.actor.role !== 'admin') throw new ForbiddenError('Only a platform admin can change a tenant\'s status')
  // letting agents spend users' funds without their consent is a platform admin's act, never a tenantadmin's alone (docs/agent-payments.md)
  if (patch.agentPayments?.tenantManagesUserWallets === true && ctx.actor.role !== 'admin') {
    throw new ForbiddenError('Only a platform admin can declare that the tenant manages its users\' wallets', { code: 'SETTING_PLATFORM_ADMIN_ONLY' })
  }
  await visibleTenant(ctx, id)
  const now = deps.clock.now()
  const row = await controlWrite(deps.database, id, async (tx) => {
    const cur = await findTenant(tx, id)
    if (!cur) throw new NotFoundError('Tenant not found')
    const next = applyPatch(settingsOf(ctx, cur), patch, deps.sealer, id)
    const problems = passkeySettingsProblems(next.passkeys)
    if (problems.length) throw new ValidationError(problems)
    const updated = { ...cur, name: name ?? cur.name, status: status ?? cur.status, settings: next as unknown as Record<string, unknown>, updatedAt: now }
    await repo.updateTenant(tx, id, { name: updated.name, status: updated.status, settings: updated.settings, updatedAt: now })
    const changed = [...(name !== undefined ? ['name'] : []), ...(status !== undefined ? ['status'] : []), ...changedPaths(patch as Record<string, unknown>)]
    await recordActivity(tx, { tenantId: id, actor: ctx.actor, action: 'tenant.updated', targetType: 'tenant', targetId: id, details: { changed }, requestId: ctx.requestId, at: now })
    return updated
  })
  return tenantView(ctx, row)
}

export async function readApiSecret(ctx: Ctx, id: string) {
  const row = await visibleTenant(ctx, id)
  await ctx.deps.database.write((tx) =>
    recordActivity(tx, { tenantId: id, actor: ctx.actor, action: 'tenant.api_secret.read', targetType: 'tenant', targetId: id, requestId: ctx.requestId, at: ctx.deps.clock.now() }),
  )
  return { apiKey: row.apiKey, apiSecret: ctx.deps.sealer.open(row.apiSecretSealed, repo.secretAad(id)) }
}

/** A new secret; the old one fails from the moment this commits, in every process. */
export async function rotateApiSecret(ctx: Ctx, id: string) {
  const row = await visibleTenant(ctx, id)
  const apiSecret = newApiSecret()
  const now = ctx.deps.clock.now()
  await controlWrite(ctx.deps.database, id, async (tx) => {
    await repo.updateTenant(tx, id, { apiSecretSealed: ctx.deps.sealer.seal(apiSecret, repo.secretAad(id)), updatedAt: now })
    await recordActivity(tx, { tenantId: id, actor: ctx.actor, action: 'tenant.api_secret.rotated', targetType: 'tenant', targetId: id, requestId: ctx.requestId, at: now })
  })
  return { apiKey: row.apiKey, apiSecret }
}

/** The tenant's activity log, newest first, for an operator who may see the tenant. */
export async function tenantActivity(ctx: Ctx, id: string, limit: number, offset: number) {
  await visibleTenant(ctx, id)
  const { rows, total } = await listActivity(ctx.deps.database.db, id, limit, offset)
  return { rows: rows.map(({ tenantId: _tenant, ...r }) => ({ ...r, createdAt: iso(r.createdAt) })), total }
}

export type { Actor }
