/**
 * Who may use the bank ramp, and the partner client of a tenant's environment.
 *
 * Access, in this order: a tenant user (403 otherwise); a tenant that uses the bank ramp in some
 * environment (403); connected in the chosen one (503 `RAMP_NOT_CONFIGURED`, nobody called); the
 * function switched on (403 `RAMP_FUNCTION_OFF`).
 */
import { ForbiddenError, NotFoundError, RampApiError } from '../../lib/errors'
import type { BankRampClient } from '../../adapters/bank-ramp/port'
import type { Deps } from '../../deps'
import type { Ctx } from '../../context'
import { findTenant, settingsOf, bankRampAad, type StoredRampEnv, type StoredSettings } from '../tenants'
import * as repo from './repo'
import type { RampEnv } from './schema'

export type RampFunction = 'kyc' | 'payin' | 'payout'

export const envOf = (isTestnet: boolean | undefined): RampEnv => (isTestnet ? 'sandbox' : 'production')

export const notConfigured = (env: RampEnv) =>
  new RampApiError(503, 'RAMP_NOT_CONFIGURED', `The bank ramp is not connected for this tenant in ${env}`, { environment: env })
export const customerNotFound = (env: RampEnv) =>
  new NotFoundError(`No bank ramp profile for this user in ${env}`, { details: { code: 'RAMP_CUSTOMER_NOT_FOUND', environment: env } })

export interface RampAccess {
  tenantId: string
  userId: string
  env: RampEnv
  settings: StoredSettings
  ramp: StoredRampEnv
}

/** 403 `RAMP_NOT_USED`: the tenant connected neither environment; says which setting turns the sandbox on. */
const notUsed = () => new ForbiddenError(
  'This tenant does not use the bank ramp: a platform admin connects its sandbox with'
    + ' PATCH /v1/admin/tenants/{id} { "bankRamp": { "sandbox": { "connected": true } } } (the built-in simulator, no partner address needed),'
    + ' or creates the tenant with `slipway tenant create --name <name> --sandbox`',
  { details: { code: 'RAMP_NOT_USED', setting: 'bankRamp.sandbox.connected' } },
)

export async function tenantSettings(ctx: Ctx): Promise<{ tenantId: string; settings: StoredSettings }> {
  const tenantId = ctx.actor.tenantId
  if (!tenantId) throw new ForbiddenError('The bank ramp serves tenant users; this token has no tenant')
  const row = await findTenant(ctx.deps.database.db, tenantId)
  if (!row) throw new ForbiddenError('The bank ramp serves tenant users; this token has no tenant')
  const settings = settingsOf(ctx, row)
  if (!settings.bankRamp.sandbox.connected && !settings.bankRamp.production.connected) throw notUsed()
  return { tenantId, settings }
}

export async function access(ctx: Ctx, env: RampEnv, fn: RampFunction | null): Promise<RampAccess> {
  const { tenantId, settings } = await tenantSettings(ctx)
  const ramp = settings.bankRamp[env]
  if (!ramp.connected) throw notConfigured(env)
  if (fn && !ramp.functions[fn]) {
    throw new ForbiddenError(`The bank ramp function ${fn} is switched off for this tenant in ${env}`, { details: { code: 'RAMP_FUNCTION_OFF', function: fn, environment: env } })
  }
  return { tenantId, userId: ctx.actor.userId, env, settings, ramp }
}

/**
 * The partner client of a tenant in one environment: its own partner address and key, or,
 * for a sandbox with no address, the simulator this process serves.
 */
export function partnerClient(deps: Deps, tenantId: string, env: RampEnv, ramp: StoredRampEnv): BankRampClient {
  if (ramp.baseUrl) {
    if (!ramp.apiKeySealed) throw notConfigured(env)
    const apiKey = deps.sealer.open(ramp.apiKeySealed, bankRampAad(tenantId, env, 'apiKey'))
    return deps.bankRamp.connect({ baseUrl: ramp.baseUrl, apiKey })
  }
  const sim = deps.bankRampSimulator
  if (env === 'sandbox' && sim) {
    const fetchFn = ((input: string | URL | Request, init?: RequestInit) => sim.fetch(new Request(input, init))) as typeof fetch
    return deps.bankRamp.connect({ baseUrl: sim.apiBaseUrl, apiKey: sim.credentials(tenantId).apiKey, fetch: fetchFn })
  }
  throw notConfigured(env)
}

/** Keys the partner's webhooks of this tenant and environment may be signed with (none: not verifiable). */
export function partnerWebhookKeys(deps: Deps, tenantId: string, env: RampEnv, ramp: StoredRampEnv): string[] {
  if (ramp.baseUrl) return ramp.webhookKeySealed ? [deps.sealer.open(ramp.webhookKeySealed, bankRampAad(tenantId, env, 'webhookKey'))] : []
  if (env === 'sandbox' && deps.bankRampSimulator) return [deps.bankRampSimulator.credentials(tenantId).webhookKey]
  return []
}

/** The caller's bank ramp profile in the access's environment (404 `RAMP_CUSTOMER_NOT_FOUND` without one). */
export async function customerOf(ctx: Ctx, a: RampAccess) {
  const c = await repo.findCustomer(ctx.deps.database.db, a.tenantId, a.env, a.userId)
  if (!c) throw customerNotFound(a.env)
  return c
}
