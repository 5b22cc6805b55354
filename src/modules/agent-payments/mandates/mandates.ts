/**
 * Mandates (routes 32-36): created `pending_authorization`, approved by a tenant admin
 * (`active`), revoked, expired by a job at `expiresAt`. Every change is audited and published
 * (`agent_payments.mandate.*`) in its transaction. Whether a payment fits one: mandate-check.ts.
 */
import type { Tx } from '../../../db/client'
import type { Deps } from '../../../deps'
import { BadRequestError, ConflictError, NotFoundError } from '../../../lib/errors'
import type { ErrorCode } from '../../../lib/error-codes'
import { scheduleJob } from '../../../jobs/outbox'
import { sha256Hex } from '../../../lib/crypto'
import { newId } from '../../../lib/ids'
import { recordChange } from '../changes'
import { systemScope, type Scope } from '../agents/credentials'
import type { AuthorizeMandate, CreateMandate } from './mandate-model'
import type { MandateRow, ShopperRow } from '../schema'
import type { MandateConstraints, MandateStatus, MandateType } from '../record-types'
import { MANDATE_EXPIRE_TOPIC, mandateExpireJobId } from './mandate-topics'
import { mandateView } from './mandate-views'
import { fromUnits, toUnits } from '../policies/policy'
import * as repo from '../repo'
import { jwkThumbprint, verifyShopperAuthorization } from '../merchants/shopper-jws'
import { prose } from '../../../http/prose'

const invalid = (message: string, code: ErrorCode = 'MANDATE_INVALID') => new BadRequestError(message, { code })
const sameCurrency = (a: string, b: string) => a.toUpperCase() === b.toUpperCase()

function dateOf(field: string, value: string): number {
  const ms = Date.parse(value)
  if (Number.isNaN(ms)) throw invalid(`${field} is not a date-time`)
  return ms
}

/** The content a tenant admin approves or a shopper signs, in a canonical form (keys sorted): its SHA-256 is stored with the approval, and is what a shopper's JWS carries (`contentHash`). */
export function mandateContent(r: Pick<MandateRow, 'id' | 'type' | 'agentId' | 'shopperId' | 'constraints' | 'cart' | 'description' | 'expiresAt' | 'humanPresent'>): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical)
    if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]))
    return v
  }
  return JSON.stringify(canonical({
    id: r.id, type: r.type, agentId: r.agentId, shopperId: r.shopperId, constraints: r.constraints, cart: r.cart,
    description: r.description, expiresAt: new Date(r.expiresAt).toISOString(), humanPresent: r.humanPresent,
  }))
}

export async function visibleMandate(scope: Scope, mandateId: string): Promise<MandateRow> {
  const row = await repo.findMandate(scope.deps.database.db, scope.tenantId, mandateId)
  if (!row) throw new NotFoundError('Mandate not found')
  return row
}

export async function createMandate(scope: Scope, input: CreateMandate) {
  const now = scope.deps.clock.now()
  const c = input.constraints
  if (toUnits(c.maxAmount) === 0n) throw invalid('constraints.maxAmount must be above 0')
  if (c.budget !== undefined && toUnits(c.budget) === 0n) throw invalid('constraints.budget must be above 0')
  const expiresAt = dateOf('expiresAt', input.expiresAt)
  if (expiresAt <= now) throw invalid('expiresAt must be in the future')
  const notBefore = c.notBefore === undefined ? undefined : dateOf('constraints.notBefore', c.notBefore)
  const notAfter = c.notAfter === undefined ? undefined : dateOf('constraints.notAfter', c.notAfter)
  if (notBefore !== undefined && notAfter !== undefined && notAfter <= notBefore) throw invalid('constraints.notAfter must be after notBefore')
  if (notBefore !== undefined && notBefore >= expiresAt) throw invalid('constraints.notBefore must be before expiresAt')

  const cart = input.cart
  if (input.type === 'cart' && !cart) throw invalid('A cart mandate needs its cart', 'MANDATE_CART_REQUIRED')
  if (input.type === 'intent' && cart) throw invalid('An intent mandate has no cart', 'MANDATE_CART_NOT_ALLOWED')
  if (cart) {
    const sum = cart.items.reduce((s, i) => s + BigInt(i.quantity) * toUnits(i.unitPrice), 0n)
    if (sum !== toUnits(cart.total)) throw invalid(`cart.total ${cart.total} is not the sum of its items (${fromUnits(sum)})`, 'MANDATE_CART_TOTAL_MISMATCH')
    if (!sameCurrency(cart.currency, c.currency)) throw invalid('cart.currency must be constraints.currency')
    if (toUnits(cart.total) > toUnits(c.maxAmount)) throw invalid('cart.total is above constraints.maxAmount')
    if (toUnits(cart.total) === 0n) throw invalid('cart.total must be above 0')
    if (c.merchantIds && !c.merchantIds.includes(cart.merchantId)) throw invalid('cart.merchantId is not among constraints.merchantIds')
    if (c.recurrence) throw invalid('A cart mandate is paid once: no recurrence')
  }

  const db = scope.deps.database.db
  const agent = await repo.findAgent(db, scope.tenantId, input.agentId)
  if (!agent) throw new NotFoundError('Agent not found')
  if (agent.status === 'archived') throw new ConflictError('The agent is archived', { code: 'AGENT_ARCHIVED' })
  const shopper = input.shopperId === undefined ? null : await repo.findShopper(db, scope.tenantId, input.shopperId)
  if (input.shopperId !== undefined && !shopper) throw new NotFoundError('Shopper not found', { code: 'SHOPPER_NOT_FOUND' })
  const merchantIds = [...new Set([...(c.merchantIds ?? []), ...(cart ? [cart.merchantId] : [])])]
  const known = await repo.existingMerchantIds(db, scope.tenantId, merchantIds)
  if (merchantIds.some((id) => !known.has(id))) throw new NotFoundError('Merchant not found')

  const constraints: MandateConstraints = { maxAmount: c.maxAmount, currency: c.currency }
  if (c.budget !== undefined) constraints.budget = c.budget
  if (c.merchantIds) constraints.merchantIds = c.merchantIds
  if (c.categories) constraints.categories = c.categories
  if (c.recurrence) constraints.recurrence = { frequency: c.recurrence.frequency, maxOccurrences: c.recurrence.maxOccurrences }
  if (notBefore !== undefined) constraints.notBefore = new Date(notBefore).toISOString()
  if (notAfter !== undefined) constraints.notAfter = new Date(notAfter).toISOString()

  const row: MandateRow = {
    id: newId(), tenantId: scope.tenantId, type: input.type, agentId: agent.id, shopperId: shopper?.id ?? null, environment: agent.environment,
    status: 'pending_authorization', constraints,
    cart: cart ? { items: cart.items.map((i) => ({ name: i.name, quantity: i.quantity, unitPrice: i.unitPrice })), total: cart.total, currency: cart.currency, merchantId: cart.merchantId } : null,
    description: input.description ?? null, humanPresent: input.humanPresent, expiresAt,
    authorizedBy: null, authorizedAt: null, authorizationHash: null, authorizedKeyThumbprint: null, createdAt: now, updatedAt: now, endedAt: null,
  }
  await scope.deps.database.write(async (tx) => {
    await repo.insertMandate(tx, row)
    await recordChange(tx, scope, { resourceType: 'mandate', resourceId: row.id, change: 'created', before: null, after: mandateView(row), environments: [row.environment] }, now)
    await scheduleJob(tx, { id: mandateExpireJobId(row.id), topic: MANDATE_EXPIRE_TOPIC, tenantId: scope.tenantId, payload: { mandateId: row.id }, runAt: expiresAt }, now)
  })
  return mandateView(row)
}

export async function listMandates(scope: Scope, q: { type?: MandateType; status?: MandateStatus; agentId?: string; shopperId?: string; limit?: number; offset?: number }) {
  const { rows, total } = await repo.listMandates(
    scope.deps.database.db, scope.tenantId,
    { type: q.type, status: q.status, agentId: q.agentId, shopperId: q.shopperId, limit: q.limit ?? 50, offset: q.offset ?? 0 },
  )
  return { data: rows.map(mandateView), total }
}

export async function getMandate(scope: Scope, mandateId: string) {
  return mandateView(await visibleMandate(scope, mandateId))
}

const CHANGE_OF: Partial<Record<MandateStatus, string>> = {
  active: 'authorized', rejected: 'rejected', revoked: 'revoked', expired: 'expired', consumed: 'consumed', exhausted: 'exhausted',
}
const FINAL: readonly MandateStatus[] = ['rejected', 'revoked', 'expired', 'consumed', 'exhausted']

/**
 * Moves a mandate from `before`'s status to `to` inside the caller's transaction, audited and
 * published as `agent_payments.mandate.<change>`; answers the row after, or null when another
 * writer moved it first. The executions call it with `mandateAfterPayment`'s answer.
 */
export async function transitionMandate(tx: Tx, scope: Scope, before: MandateRow, to: MandateStatus, now: number, extra: Partial<MandateRow> = {}): Promise<MandateRow | null> {
  const change = CHANGE_OF[to]
  if (!change || before.status === to) return null
  const after = await repo.moveMandate(tx, scope.tenantId, before.id, [before.status], { ...extra, status: to, updatedAt: now, endedAt: FINAL.includes(to) ? now : null })
  if (!after) return null
  await recordChange(tx, scope, { resourceType: 'mandate', resourceId: before.id, change, before: mandateView(before), after: mandateView(after), environments: [after.environment] }, now)
  return after
}

/** Whether the shopper's key changed at or after the mandate's creation (equal times count: which came first is unknown). */
const keyChangedSince = (shopper: Pick<ShopperRow, 'keyChangedAt'>, mandate: Pick<MandateRow, 'createdAt'>) =>
  shopper.keyChangedAt !== null && shopper.keyChangedAt >= mandate.createdAt
const keyChanged = () => new ConflictError('The shopper\'s key changed after this mandate was created: its JWS cannot authorize it (make a new mandate)', { code: 'SHOPPER_KEY_CHANGED' })

const stateError = (row: MandateRow, wanted: string) => new ConflictError(`The mandate is ${row.status}, not ${wanted}`, { code: 'MANDATE_STATE_INVALID' })

export async function authorizeMandate(scope: Scope, mandateId: string, input: AuthorizeMandate) {
  const before = await visibleMandate(scope, mandateId)
  if (before.status !== 'pending_authorization') throw stateError(before, 'pending_authorization')
  const now = scope.deps.clock.now()
  if (now >= before.expiresAt) throw new ConflictError('The mandate has expired', { code: 'MANDATE_EXPIRED' })
  const contentHash = sha256Hex(mandateContent(before))
  let keyThumbprint: string | null = null
  if (input.userAuthorization !== undefined) {
    // AP2: the shopper's own signature over the content's hash (shopper-jws.ts); authorizedBy stays null
    const shopper = before.shopperId === null ? undefined : await repo.findShopper(scope.deps.database.db, scope.tenantId, before.shopperId)
    if (!shopper?.publicKeyJwk) throw invalid('The mandate has no shopper with a registered key to verify the JWS', 'SHOPPER_KEY_MISSING')
    // a key set after the mandate was made never speaks for it: whoever changed the key cannot
    // consent to what was pending; a tenant admin may still approve it as themself
    if (keyChangedSince(shopper, before)) throw keyChanged()
    await verifyShopperAuthorization(input.userAuthorization, shopper.publicKeyJwk, contentHash, now)
    keyThumbprint = jwkThumbprint(shopper.publicKeyJwk)
  }
  const after = await scope.deps.database.write(async (tx) => {
    if (keyThumbprint !== null) {
      // the key verified is still the shopper's, read in the write that activates the mandate
      const cur = await repo.findShopper(tx, scope.tenantId, before.shopperId!)
      if (!cur?.publicKeyJwk || jwkThumbprint(cur.publicKeyJwk) !== keyThumbprint || keyChangedSince(cur, before)) throw keyChanged()
    }
    return transitionMandate(tx, scope, before, 'active', now, {
      authorizedBy: input.userAuthorization !== undefined ? null : scope.actor.id, authorizedAt: now, authorizationHash: contentHash, authorizedKeyThumbprint: keyThumbprint,
    })
  })
  if (!after) throw stateError(await visibleMandate(scope, mandateId), 'pending_authorization')
  return mandateView(after)
}

/** `active → revoked`; a mandate still `pending_authorization` is declined: `→ rejected`. */
export async function revokeMandate(scope: Scope, mandateId: string) {
  const before = await visibleMandate(scope, mandateId)
  const to: MandateStatus | null = before.status === 'active' ? 'revoked' : before.status === 'pending_authorization' ? 'rejected' : null
  if (!to) throw stateError(before, 'active or pending_authorization')
  const now = scope.deps.clock.now()
  const after = await scope.deps.database.write((tx) => transitionMandate(tx, scope, before, to, now))
  if (!after) throw stateError(await visibleMandate(scope, mandateId), 'active or pending_authorization')
  return mandateView(after)
}

/** The expiry job: a mandate still `pending_authorization` or `active` at its `expiresAt` becomes `expired`. Idempotent. */
export async function expireMandate(deps: Deps, tenantId: string | null, payload: Record<string, unknown>, jobId: string) {
  const mandateId = typeof payload.mandateId === 'string' ? payload.mandateId : null
  if (!tenantId || !mandateId) return
  const scope = await systemScope(deps, tenantId, `job:${jobId}`)
  const before = await repo.findMandate(deps.database.db, tenantId, mandateId)
  if (!before || (before.status !== 'pending_authorization' && before.status !== 'active')) return
  const now = deps.clock.now()
  if (now < before.expiresAt) {
    // delivered early (a clock behind the queue's): try again at its time
    await deps.database.write((tx) => scheduleJob(tx, { id: prose`
      ${mandateExpireJobId(mandateId)}:${before.expiresAt}:${now}`, topic: MANDATE_EXPIRE_TOPIC, tenantId, payload: { mandateId }, runAt: before.expiresAt }, now))
    return
  }
  await deps.database.write((tx) => transitionMandate(tx, scope, before, 'expired', now))
}
