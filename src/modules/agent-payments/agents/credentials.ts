/**
 * Who calls an agent payments route, as the route option `apAuth` resolves it:
 * - a tenantadmin's bearer token, or a platform admin's naming `tenantId` (the `J` of
 *   the spec's table): `{ kind: 'operator' }`, held to its tenant by `operatorTenantContext`;
 * - an agent API key (`Authorization: Bearer sk_agent_…`) on the routes that take one:
 *   `{ kind: 'agent' }`, acting only as its own agent.
 * - a merchant API key (`Authorization: Bearer sk_merch_…`) on the shopper routes (M), with the
 *   scope the route names: `{ kind: 'merchant' }`, seeing only its own merchant's shoppers.
 * - any signed-in user's bearer token on the wallet owner's routes (`'walletOwner'`: the owner's
 *   consent to an agent paying from their wallet): `{ kind: 'owner' }`, acting in the user's own
 *   tenant on the agents bound to the user's own wallets only. No API key is accepted there.
 *
 * A key's checks, in order: an unknown, revoked or mismatched key, or one of a tenant that is
 * not active, answers 401; then the request counts toward the key's 120 per minute (beyond:
 * 403 `Rate limit exceeded`, the spec's answer); then a key on a route it may not use answers 403.
 * The limit is counted in this process's memory, as every limit of the spec ("counters are
 * kept in memory by each API instance").
 *
 * Whoever calls, the verbs get one context (`Scope`, the platform's verb context with the
 * audit log's actor): the tenant in it was read once, by the credential check, and no verb
 * reads it again.
 */
import { Elysia } from 'elysia'
import type { Ctx, SignedTenant, VerbContext } from '../../../context'
import type { Deps } from '../../../deps'
import { bearerToken, callerFromBearer } from '../../../http/auth'
import { ForbiddenError, UnauthorizedError } from '../../../lib/errors'
import { stateOf } from '../../../http/request-state'
import { safeEqual, sha256Hex } from '../../../lib/crypto'
import { findTenant, operatorTenantContext } from '../../tenants'
import { findKeyByHash, touchKey } from '../repo'
import type { ApiKeyRow } from '../schema'

export const KEY_PREFIX = { agent: 'sk_agent_', merchant: 'sk_merch_' } as const
export const KEY_RATE_LIMIT = 120
const KEY_WINDOW_MS = 60_000
/** `lastUsedAt` is written at most once per key and minute: a write per request would double every key request's cost. */
export const LAST_USED_EVERY_MS = 60_000

export type Caller =
  | { kind: 'operator'; ctx: Ctx }
  | { kind: 'agent'; deps: Deps; tenant: SignedTenant; agentId: string; keyId: string; requestId: string }
  | { kind: 'merchant'; deps: Deps; tenant: SignedTenant; merchantId: string; keyId: string; requestId: string }
  | { kind: 'owner'; ctx: Ctx; tenantId: string }

/** Who did a change, as the audit log records it. */
export interface AuditActor { type: 'user' | 'agent' | 'merchant' | 'system'; id: string | null }

/**
 * What every service verb of the group gets: the platform's verb context, with the audit
 * log's actor, the tenant acted on (read once with the credentials, or once by a job) and
 * its id. Never the HTTP context.
 */
export interface Scope extends VerbContext<AuditActor> {
  tenant: SignedTenant
  tenantId: string
  /** set when an agent key calls: the only agent it may see */
  agentId?: string
  /** set when a merchant key calls: the only merchant whose shoppers it may see */
  merchantId?: string
}

/** The scope of a call: an operator's tenant (a platform admin names it), or the key's own tenant. */
export async function scopeOf(caller: Caller, requestedTenant: string | undefined): Promise<Scope> {
  if (caller.kind === 'agent') {
    const { deps, tenant, requestId, agentId } = caller
    return { deps, tenant, tenantId: tenant.id, actor: { type: 'agent', id: agentId }, requestId, agentId }
  }
  if (caller.kind === 'merchant') {
    const { deps, tenant, requestId, merchantId } = caller
    return { deps, tenant, tenantId: tenant.id, actor: { type: 'merchant', id: merchantId }, requestId, merchantId }
  }
  if (caller.kind === 'owner') {
    // the owner acts for themself: their own tenant, whatever `tenantId` says
    const { ctx } = caller
    return { deps: ctx.deps, tenant: ctx.tenant!, tenantId: caller.tenantId, actor: { type: 'user', id: ctx.actor.userId }, requestId: ctx.requestId }
  }
  const { ctx } = caller
  const tenant = await operatorTenantContext(ctx, requestedTenant)
  return { deps: ctx.deps, tenant, tenantId: tenant.id, actor: { type: 'user', id: ctx.actor.userId }, requestId: ctx.requestId }
}

/** The context of a job's work in `tenantId` (no one signed in acts): the tenant read once for the run. */
export async function systemScope(deps: Deps, tenantId: string, requestId: string): Promise<Scope> {
  const row = await findTenant(deps.database.db, tenantId)
  if (!row) throw new Error(`tenant ${tenantId} is gone`)
  return { deps, tenant: { id: row.id, name: row.name, settings: row.settings }, tenantId, actor: { type: 'system', id: null }, requestId }
}

const kindOf = (token: string): ApiKeyRow['kind'] | null =>
  token.startsWith(KEY_PREFIX.agent) ? 'agent' : token.startsWith(KEY_PREFIX.merchant) ? 'merchant' : null

async function keyCaller(deps: Deps, token: string, kind: ApiKeyRow['kind']): Promise<{ key: ApiKeyRow; tenant: SignedTenant }> {
  const hash = sha256Hex(token)
  const row = await findKeyByHash(deps.database.db, hash)
  // the lookup is by hash; the constant-time compare keeps the check itself free of early exits
  if (!row || !safeEqual(row.keyHash, hash) || row.kind !== kind || row.revokedAt !== null) throw new UnauthorizedError('Invalid API key')
  const tenant = await findTenant(deps.database.db, row.tenantId)
  if (!tenant || tenant.status !== 'active') throw new UnauthorizedError('Invalid API key')
  if (!deps.rateLimiter.hit(`agent-payments-key|${row.id}`, KEY_RATE_LIMIT, KEY_WINDOW_MS).allowed) throw new ForbiddenError('Rate limit exceeded')
  const now = deps.clock.now()
  if (row.lastUsedAt === null || now - row.lastUsedAt >= LAST_USED_EVERY_MS || now < row.lastUsedAt) {
    await deps.database.write((tx) => touchKey(tx, row.tenantId, row.id, now))
  }
  return { key: row, tenant: { id: tenant.id, name: tenant.name, settings: tenant.settings } }
}

export type MerchantScope = 'shoppers:read' | 'shoppers:write' | 'mandates:read' | 'executions:read'
/** `'operator'` (J), `'operatorOrAgent'` (J or A), J or a merchant key holding the scope named (M), or `'walletOwner'` (any user's bearer token). */
export type ApAuth = 'operator' | 'operatorOrAgent' | `operatorOrMerchant:${MerchantScope}` | 'walletOwner'

async function resolveCaller(deps: Deps, request: Request, allow: ApAuth): Promise<Caller> {
  const header = request.headers.get('authorization')
  const token = bearerToken(header)
  const keyKind = token ? kindOf(token) : null
  const requestId = stateOf(request).id
  if (token && keyKind) {
    // a wallet's owner consents with their own token, never through a key a tenant admin made
    if (allow === 'walletOwner') throw new ForbiddenError('This API key cannot be used on this route')
    const { key, tenant } = await keyCaller(deps, token, keyKind)
    if (keyKind === 'merchant' && allow.startsWith('operatorOrMerchant:')) {
      const scope = allow.slice('operatorOrMerchant:'.length)
      if (!key.scopes.includes(scope)) throw new ForbiddenError(`This API key lacks the scope ${scope}`)
      return { kind: 'merchant', deps, tenant, merchantId: key.ownerId, keyId: key.id, requestId }
    }
    if (keyKind !== 'agent' || allow !== 'operatorOrAgent') throw new ForbiddenError('This API key cannot be used on this route')
    return { kind: 'agent', deps, tenant, agentId: key.ownerId, keyId: key.id, requestId }
  }
  const caller = await callerFromBearer(deps, header)
  if (!caller) throw new UnauthorizedError()
  const { actor, tenant } = caller
  if (allow === 'walletOwner') {
    if (!actor.tenantId) throw new ForbiddenError()
    return { kind: 'owner', ctx: { deps, actor, tenant, requestId }, tenantId: actor.tenantId }
  }
  if (actor.role === 'user') throw new ForbiddenError()
  return { kind: 'operator', ctx: { deps, actor, tenant, requestId } }
}

/** The route option `apAuth`: `'operator'` (J), `'operatorOrAgent'` (J or A), `'operatorOrMerchant:<scope>'` (J or M), `'walletOwner'`; resolves `caller`. */
export function apSecurity(deps: Deps) {
  return new Elysia({ name: 'agent-payments-security', seed: deps.config.publicBaseUrl })
    .macro({
      apAuth: (allow: ApAuth) => ({
        detail: { security: [{ bearerAuth: [] }] },
        async resolve({ request }): Promise<{ caller: Caller }> {
          return { caller: await resolveCaller(deps, request, allow) }
        },
      }),
    })
}
