/**
 * The provider's signed events (`POST /v1/ramp/card/webhooks/{environment}/{tenantId}`).
 *
 * - The raw body is checked with the `stripe` package (`Stripe-Signature`, HMAC-SHA256 over
 *   `timestamp.body` with the environment's webhook secret, constant-time, 5 minutes of
 *   tolerance); a body over 64 KiB is refused before anything is read into JSON.
 * - Only `crypto.onramp_session_updated` for a session of this tenant and environment counts.
 *   A repeated event (same id), an event older than the last one applied, or one whose status
 *   the session cannot move to (the spec: `initialized` to `failed`, `rejected`,
 *   `fulfillment_processing` or `fulfillment_complete`; processing on to complete or failed)
 *   changes nothing and sends nothing.
 * - A status change is written with `ramp.card_session.updated` (the session as the read
 *   endpoint answers it, never the client secret; one event id per session and status) and,
 *   for a user's session, a `card_onramp.updated` notification (inbox and push), in one write
 *   transaction.
 */
import { createHash } from 'node:crypto'
import type { Deps } from '../../deps'
import { AppError, UnauthorizedError } from '../../lib/errors'
import { MAX_EVENT_BYTES, type OnrampSession } from '../../adapters/card-onramp/stripe'
import { notify } from '../notifications'
import { publishEvent } from '../webhooks'
import type { CardAmounts, CardStatus } from './schema'
import * as repo from './repo'
import { dec } from './amounts'
import { providerOf, sessionView, tenantById, type Env } from './service'
import { enterTenant } from '../../db/placement'

const NEXT: Record<CardStatus, CardStatus[]> = {
  initialized: ['failed', 'rejected', 'fulfillment_processing', 'fulfillment_complete'],
  fulfillment_processing: ['fulfillment_complete', 'failed'],
  fulfillment_complete: [],
  failed: [],
  rejected: [],
}

/** Slipway's status for the provider's, given where the session is. */
function statusOf(provider: string, current: CardStatus): { status: CardStatus; failureCode: string | null } {
  switch (provider) {
    case 'initialized':
      return { status: 'initialized', failureCode: null }
    case 'requires_payment':
      // back to paying while the payment was being fulfilled: the payment did not hold
      return current === 'fulfillment_processing' ? { status: 'failed', failureCode: 'payment_reversed' } : { status: current, failureCode: null }
    case 'fulfillment_processing':
    case 'fulfillment_complete':
    case 'rejected':
      return { status: provider, failureCode: provider === 'rejected' ? 'rejected_by_provider' : null }
    default:
      return { status: 'failed', failureCode: `provider_status_${provider.replace(/[^a-z_]/g, '').slice(0, 40)}` }
  }
}


function amountsOf(s: OnrampSession): CardAmounts {
  const d = s.transaction_details ?? {}
  return {
    sourceAmount: dec(d.source_amount), sourceCurrency: d.source_currency ?? null,
    destinationAmount: dec(d.destination_amount), destinationCurrency: d.destination_currency ?? null,
    networkFee: dec(d.fees?.network_fee_amount), transactionFee: dec(d.fees?.transaction_fee_amount),
  }
}

export const eventIdOf = (tenantId: string, env: Env, sessionId: string, status: CardStatus) =>
  `evt_${createHash('sha256').update(`${tenantId}|${env}|card_session|${sessionId}|${status}`).digest('hex').slice(0, 32)}`

export async function receiveEvent(deps: Deps, env: Env, tenantId: string, raw: Uint8Array, signature: string | null) {
  if (raw.byteLength > MAX_EVENT_BYTES) throw new AppError(413, 'Payload Too Large', `A provider event is at most ${MAX_EVENT_BYTES} bytes`, { code: 'CARD_ONRAMP_EVENT_TOO_LARGE' })
  // an unknown tenant, or one not connected in this environment, answers as a bad signature does
  const refused = () => new UnauthorizedError('The event\'s signature does not verify (Stripe-Signature, webhook secret, timestamp within 5 minutes)', { code: 'CARD_ONRAMP_EVENT_SIGNATURE' })
  // the tenant in the path picks its database, when tenants are placed on their own (docs/scaling.md)
  enterTenant(deps.database, tenantId)
  const tenant = await tenantById(deps, tenantId)
  if (!tenant) throw refused()
  let provider
  try {
    provider = providerOf(deps, tenant.id, tenant.settings, env)
  } catch {
    throw refused()
  }
  const text = new TextDecoder().decode(raw)
  let event: Awaited<ReturnType<typeof import('../../adapters/card-onramp/stripe').verifyEvent>>
  try {
    const { verifyEvent } = await import('../../adapters/card-onramp/stripe')
    event = await verifyEvent(text, signature, provider.webhookKey, deps.clock.now())
  } catch {
    throw refused()
  }
  if (event.type !== 'crypto.onramp_session_updated' || typeof event.data?.object?.id !== 'string') return { received: true as const, applied: false }
  const s = event.data.object
  const now = deps.clock.now()
  const eventAt = Number(event.created) * 1000
  const applied = await deps.database.write(async (tx) => {
    const row = await repo.findByProviderId(tx, tenant.id, env, s.id)
    if (!row) return false
    if (row.providerEventId === event.id) return false
    if (row.providerEventAt !== null && eventAt < row.providerEventAt) return false
    const next = statusOf(String(s.status), row.status)
    const moves = next.status !== row.status
    if (moves && !NEXT[row.status].includes(next.status)) return false
    const set = {
      status: next.status, providerStatus: String(s.status).slice(0, 64), amounts: amountsOf(s),
      transactionId: s.transaction_details?.transaction_id ?? row.transactionId, failureCode: moves ? next.failureCode : row.failureCode,
      providerEventAt: eventAt, providerEventId: event.id, updatedAt: now,
    }
    if (!(await repo.updateSession(tx, row, set))) return false
    if (moves) {
      await publishEvent(
        tx,
        { tenantId: tenant.id, environment: env, type: 'ramp.card_session.updated', data: sessionView({ ...row, ...set }), occurredAt: eventAt, id: eventIdOf(tenant.id, env, row.id, next.status) },
        now,
      )
      // the user whose wallet it is hears of it too (a tenant-signed session has no user here)
      if (row.userId) {
        await notify(deps, tx, {
          tenantId: tenant.id, userId: row.userId, kind: 'card_onramp.updated',
          data: { sessionId: row.id, status: next.status, destinationCurrency: set.amounts.destinationCurrency ?? row.destinationCurrency, destinationAmount: set.amounts.destinationAmount },
        })
      }
    }
    return moves
  })
  return { received: true as const, applied }
}
