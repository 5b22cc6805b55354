/**
 * The webhooks side of `slipway webhooks listen` (src/ops/webhooks-listen.ts): a
 * development route `<tenantId>.listen.webhooks.test` -> the listener's local origin, and
 * the tenant's sandbox webhook pointed at it through the same verbs the HTTP routes use
 * (same address rules, same secret handling, activity log), then put back as it was.
 * Sandbox only, never under NODE_ENV=production: the server ignores stored routes there.
 */
import { findTenant } from '../tenants'
import { NotFoundError } from '../../lib/errors'
import * as repo from './repo'
import type { DevRouteRow } from './repo'
import { openSecret } from './secrets'
import { removeTenantWebhook, saveTenantWebhook, type CommandCtx } from './service'

/** Under `.test`, a reserved top-level domain: no public server can ever answer it, so the name cannot reach anyone else. */
export const listenHost = (tenantId: string) => `${tenantId}.listen.webhooks.test`
export const listenUrl = (tenantId: string) => `https://${listenHost(tenantId)}/events`

export interface ListenSession {
  tenantId: string
  tenantName: string
  host: string
  /** the listener's origin, `http://127.0.0.1:<port>` */
  origin: string
  /** the sandbox webhook's address while listening */
  url: string
  webhookId: string
  secret: string
  eventTypes: string[]
  status: 'active' | 'disabled'
  /** the address put back at the end; null: the listener created the webhook and removes it */
  restoreUrl: string | null
  created: boolean
}

export class ListenRefused extends Error {}

/** The tenant's stored route, if a listener (running, or killed without its clean-up) left one. */
export function currentDevRoute(ctx: CommandCtx, tenantId: string): Promise<DevRouteRow | undefined> {
  return repo.findDevRoute(ctx.deps.database.db, tenantId, listenHost(tenantId))
}

/**
 * Stores the route and points the tenant's sandbox webhook at it (created, with a new
 * secret, when the tenant has none; its event types and status are kept). Answers what
 * `stopListening` needs and the secret the deliveries are signed with.
 */
export async function startListening(ctx: CommandCtx, tenantId: string, origin: string): Promise<ListenSession> {
  const { deps } = ctx
  if (deps.config.nodeEnv === 'production') throw new ListenRefused('slipway webhooks listen is for development: the server ignores development routes under NODE_ENV=production')
  const tenant = await findTenant(deps.database.db, tenantId)
  if (!tenant) throw new NotFoundError(`Tenant ${tenantId} not found`)
  const host = listenHost(tenant.id)
  const url = listenUrl(tenant.id)
  const [stale, before] = await Promise.all([currentDevRoute(ctx, tenant.id), repo.findWebhook(deps.database.db, tenant.id, 'sandbox')])
  // A route left by a listener that was killed keeps the address from before it.
  const restoreUrl = before && before.url !== url ? before.url : (stale?.restoreUrl ?? null)
  await deps.database.write((tx) => repo.upsertDevRoute(tx, tenant.id, { host, origin, restoreUrl, createdAt: deps.clock.now() }))
  let saved
  try {
    saved = await saveTenantWebhook(ctx, tenant, 'sandbox', { url })
  } catch (err) {
    await deps.database.write((tx) => repo.deleteDevRoute(tx, tenant.id, host, origin))
    throw err
  }
  const hook = await repo.findWebhook(deps.database.db, tenant.id, 'sandbox')
  if (!hook) throw new NotFoundError('The sandbox webhook was removed meanwhile')
  const secret = 'secret' in saved.record ? saved.record.secret : openSecret(deps, hook)
  return {
    tenantId: tenant.id, tenantName: tenant.name, host, origin, url, webhookId: hook.id, secret,
    eventTypes: hook.eventTypes, status: hook.status, restoreUrl, created: restoreUrl === null,
  }
}

export type ListenEnd =
  | { webhook: 'restored'; url: string }
  | { webhook: 'removed' }
  /** someone changed the address meanwhile, or removed the webhook: left as it is */
  | { webhook: 'left'; url: string | null }

/**
 * Puts the sandbox webhook back (its earlier address, or removed when the listener created
 * it) unless someone changed it meanwhile, then deletes the route (only while it is still
 * this listener's).
 */
export async function stopListening(ctx: CommandCtx, session: ListenSession): Promise<ListenEnd> {
  const { deps } = ctx
  const tenant = await findTenant(deps.database.db, session.tenantId)
  const hook = tenant ? await repo.findWebhook(deps.database.db, tenant.id, 'sandbox') : undefined
  try {
    if (!tenant || !hook || hook.url !== session.url) return { webhook: 'left', url: hook?.url ?? null }
    if (session.restoreUrl === null) {
      await removeTenantWebhook(ctx, tenant.id, hook)
      return { webhook: 'removed' }
    }
    await saveTenantWebhook(ctx, tenant, 'sandbox', { url: session.restoreUrl })
    return { webhook: 'restored', url: session.restoreUrl }
  } finally {
    // After the webhook, so its address never names a host without a route (a save would refuse it).
    await deps.database.write((tx) => repo.deleteDevRoute(tx, session.tenantId, session.host, session.origin))
  }
}
