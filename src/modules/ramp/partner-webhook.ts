/** The bank ramp partner's inbound webhooks: verified over the raw bytes, then applied (events.ts). */
import { AppError, BadRequestError } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import { verifyPartnerWebhook } from '../../sandbox/bank-ramp/signature'
import type { Deps } from '../../deps'
import { findTenant, settingsOf } from '../tenants'
import { partnerWebhookKeys } from './access'
import { applyPartnerEvent } from './events'
import type { RampEnv } from './schema'
import { enterTenant } from '../../db/placement'

export interface PartnerDelivery {
  tenantId: string
  environment: RampEnv
  raw: Uint8Array
  signature: string | null
}

/**
 * A partner webhook for one tenant and environment: 401 when the signature does not verify
 * (checked over the raw bytes before anything is parsed; a tenant unknown or not connected there
 * answers the same), 400 for a body that is no partner event; otherwise
 * applied (or dropped as a repeat or stale) and answered 200 so the partner stops retrying.
 */
export async function receivePartnerWebhook(deps: Deps, input: PartnerDelivery) {
  // the tenant in the path picks its database, when tenants are placed on their own (docs/scaling.md)
  enterTenant(deps.database, input.tenantId)
  const row = isUuid(input.tenantId) ? await findTenant(deps.database.db, input.tenantId) : undefined
  const ramp = row && row.status === 'active' ? settingsOf({ deps }, row).bankRamp[input.environment] : undefined
  // An unknown tenant, or one not connected here, has no key: its answer is a bad signature's,
  // so the endpoint does not tell which tenant ids exist.
  const keys = row && ramp?.connected ? partnerWebhookKeys(deps, row.id, input.environment, ramp) : []
  // the signature first, over the bytes as received; nothing is decoded or parsed before it passes
  const check = verifyPartnerWebhook(keys, input.signature, input.raw, Math.floor(deps.clock.now() / 1000))
  if (check !== 'ok' || !row) throw new AppError(401, 'UnauthorizedError', 'Invalid webhook signature', { details: { reason: check === 'ok' ? 'mismatch' : check } })
  let event: unknown
  try {
    event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(input.raw))
  } catch {
    throw new BadRequestError('Request body is not valid JSON')
  }
  const e = event as Record<string, unknown>
  if (!e || typeof e !== 'object' || typeof e.EventType !== 'string' || !Number.isSafeInteger(e.EventVersion) || (e.EventVersion as number) < 1
    || typeof e.Data !== 'object' || e.Data === null || Array.isArray(e.Data)) {
    throw new BadRequestError('Not a partner event: EventType, EventVersion (a positive integer) and Data are required')
  }
  const outcome = await deps.database.write((tx) => applyPartnerEvent(deps, tx, row.id, input.environment, e as never, deps.clock.now()))
  return { received: true as const, outcome }
}
