/**
 * Shoppers (routes 25-31): a merchant's customers, on whose behalf mandates are made. A
 * tenant admin (J) sees all of the tenant's; a merchant key (M) only its merchant's (another
 * merchant's answer 404, as an unknown id). Every change is audited and published
 * (`agent_payments.shopper.*`) to the environment of the shopper's merchant.
 */
import { ConflictError, ForbiddenError, NotFoundError } from '../../../lib/errors'
import { uniqueViolation } from '../../../db/client'
import { newId } from '../../../lib/ids'
import { recordChange } from '../changes'
import type { Scope } from '../agents/credentials'
import { mandateView } from '../mandates/mandate-views'
import * as repo from '../repo'
import type { ShopperRow } from '../schema'
import type { ChangeShopperKey, CreateShopper, UpdateShopper } from './shopper-model'
import { checkShopperJwk, jwkThumbprint, verifyShopperKeyChange } from './shopper-jws'
import { executionView, shopperView } from '../views'
import { prose } from '../../../http/prose'

const notFound = () => new NotFoundError('Shopper not found')

/** A shopper of the tenant, not removed, and of the key's merchant when a merchant key calls. */
export async function visibleShopper(scope: Scope, shopperId: string): Promise<ShopperRow> {
  const row = await repo.findShopper(scope.deps.database.db, scope.tenantId, shopperId)
  if (!row || (scope.merchantId !== undefined && row.merchantId !== scope.merchantId)) throw notFound()
  return row
}

async function environmentOf(scope: Scope, merchantId: string) {
  const m = await repo.findMerchant(scope.deps.database.db, scope.tenantId, merchantId)
  return m ? [m.environment] : []
}

const thumbprintOf = (jwk: Record<string, unknown> | null) => (jwk ? jwkThumbprint(jwk) : null)
const keyChangeForbidden = () => new ForbiddenError(
  'A merchant key cannot change a shopper\'s key: a tenant admin can, or POST /shoppers/{shopperId}/key with a JWS by the shopper\'s current key',
  { code: 'SHOPPER_KEY_CHANGE_FORBIDDEN' },
)

const refExists = () => new ConflictError('The merchant already has a shopper with this externalRef', { code: 'SHOPPER_EXISTS' })

export async function createShopper(scope: Scope, input: CreateShopper) {
  if (scope.merchantId !== undefined && input.merchantId !== scope.merchantId) throw new NotFoundError('Merchant not found')
  const merchant = await repo.findMerchant(scope.deps.database.db, scope.tenantId, input.merchantId)
  if (!merchant) throw new NotFoundError('Merchant not found')
  if (merchant.status === 'disabled') throw new ConflictError('The merchant is disabled', { code: 'MERCHANT_DISABLED' })
  const publicKeyJwk = input.publicKeyJwk ? await checkShopperJwk(input.publicKeyJwk) : null
  if (await repo.findShopperByRef(scope.deps.database.db, scope.tenantId, merchant.id, input.externalRef)) throw refExists()
  const now = scope.deps.clock.now()
  const row: ShopperRow = {
    id: newId(), tenantId: scope.tenantId, merchantId: merchant.id, externalRef: input.externalRef, userId: input.userId ?? null,
    email: input.email ?? null, publicKeyJwk, keyChangedAt: null, createdAt: now, updatedAt: now, deletedAt: null,
  }
  try {
    await scope.deps.database.write(async (tx) => {
      await repo.insertShopper(tx, row)
      await recordChange(tx, scope, { resourceType: 'shopper', resourceId: row.id, change: 'created', before: null, after: shopperView(row), environments: [merchant.environment] }, now)
    })
  } catch (err) {
    // another request stored this externalRef between the check and the write (the unique index names the column)
    if (uniqueViolation(err).includes('external_ref')) throw refExists()
    throw err
  }
  return shopperView(row)
}

export async function listShoppers(scope: Scope, q: { merchantId?: string; limit?: number; offset?: number }) {
  if (scope.merchantId !== undefined && q.merchantId !== undefined && q.merchantId !== scope.merchantId) return { data: [], total: 0 }
  const merchantId = scope.merchantId ?? q.merchantId
  const { rows, total } = await repo.listShoppers(scope.deps.database.db, scope.tenantId, { merchantId, limit: q.limit ?? 50, offset: q.offset ?? 0 })
  return { data: rows.map(shopperView), total }
}

export async function getShopper(scope: Scope, shopperId: string) {
  return shopperView(await visibleShopper(scope, shopperId))
}

export async function updateShopper(scope: Scope, shopperId: string, input: UpdateShopper) {
  const before = await visibleShopper(scope, shopperId)
  const changes: Partial<ShopperRow> = {}
  if (input.externalRef !== undefined) changes.externalRef = input.externalRef
  if (input.userId !== undefined) changes.userId = input.userId
  if (input.email !== undefined) changes.email = input.email
  const now = scope.deps.clock.now()
  if (input.publicKeyJwk !== undefined) {
    const next = input.publicKeyJwk === null ? null : await checkShopperJwk(input.publicKeyJwk)
    if (thumbprintOf(next) !== thumbprintOf(before.publicKeyJwk)) {
      // the key decides whose JWS stands for the shopper's consent: a merchant key must not choose it
      if (scope.merchantId !== undefined) throw keyChangeForbidden()
      changes.publicKeyJwk = next
      changes.keyChangedAt = now
    }
  }
  const after: ShopperRow = { ...before, ...changes, updatedAt: now }
  if (JSON.stringify(shopperView({ ...after, updatedAt: before.updatedAt })) === JSON.stringify(shopperView(before))) return shopperView(before)
  if (changes.externalRef !== undefined && changes.externalRef !== before.externalRef
    && await repo.findShopperByRef(scope.deps.database.db, scope.tenantId, before.merchantId, changes.externalRef)) throw refExists()
  const environments = await environmentOf(scope, before.merchantId)
  try {
    await scope.deps.database.write(async (tx) => {
      await repo.updateShopper(tx, scope.tenantId, shopperId, { ...changes, updatedAt: now })
      await recordChange(
        tx, scope,
        {
          resourceType: 'shopper', resourceId: shopperId,
          change: changes.keyChangedAt !== undefined ? 'key_changed' : 'updated', before: shopperView(before),
          after: shopperView(after), environments,
        },
        now,
      )
    })
  } catch (err) {
    // another request stored this externalRef between the check and the write (the unique index names the column)
    if (uniqueViolation(err).includes('external_ref')) throw refExists()
    throw err
  }
  return shopperView(after)
}

/**
 * The shopper's own key change: `authorization` is a JWS by its current key naming this shopper
 * and the new key's thumbprint (shopper-jws.ts), so a J or M caller only relays what the shopper
 * signed. Audited as `shopper.key_changed`; mandates created before it can no longer be
 * authorized by a JWS. The key is compared again in the write, so two changes signed by one
 * key cannot both apply.
 */
export async function changeShopperKey(scope: Scope, shopperId: string, input: ChangeShopperKey) {
  const before = await visibleShopper(scope, shopperId)
  if (!before.publicKeyJwk) throw new ConflictError('The shopper has no key to sign a key change: a tenant admin sets it (PATCH)', { code: 'SHOPPER_KEY_MISSING' })
  const next = await checkShopperJwk(input.publicKeyJwk)
  const newKeyThumbprint = jwkThumbprint(next)
  const now = scope.deps.clock.now()
  await verifyShopperKeyChange(input.authorization, before.publicKeyJwk, { shopperId, newKeyThumbprint }, now)
  if (newKeyThumbprint === jwkThumbprint(before.publicKeyJwk)) return shopperView(before)
  const environments = await environmentOf(scope, before.merchantId)
  return scope.deps.database.write(async (tx) => {
    const cur = await repo.findShopper(tx, scope.tenantId, shopperId)
    if (!cur) throw notFound()
    if (thumbprintOf(cur.publicKeyJwk) !== thumbprintOf(before.publicKeyJwk)) throw new ConflictError(prose`
      The shopper's key changed meanwhile: sign with its current key`, { code: 'SHOPPER_KEY_CHANGED' })
    const after: ShopperRow = { ...cur, publicKeyJwk: next, keyChangedAt: now, updatedAt: now }
    await repo.updateShopper(tx, scope.tenantId, shopperId, { publicKeyJwk: next, keyChangedAt: now, updatedAt: now })
    await recordChange(tx, scope, { resourceType: 'shopper', resourceId: shopperId, change: 'key_changed', before: shopperView(cur), after: shopperView(after), environments }, now)
    return shopperView(after)
  })
}

/** Removes the shopper: it answers 404 after; its mandates keep its id (and a JWS can no longer authorize them). */
export async function deleteShopper(scope: Scope, shopperId: string) {
  const before = await visibleShopper(scope, shopperId)
  const now = scope.deps.clock.now()
  const environments = await environmentOf(scope, before.merchantId)
  await scope.deps.database.write(async (tx) => {
    await repo.updateShopper(tx, scope.tenantId, shopperId, { deletedAt: now, updatedAt: now })
    await recordChange(tx, scope, { resourceType: 'shopper', resourceId: shopperId, change: 'deleted', before: shopperView(before), after: null, environments }, now)
  })
  return shopperView({ ...before, updatedAt: now })
}

export async function shopperMandates(scope: Scope, shopperId: string, q: { limit?: number; offset?: number }) {
  const shopper = await visibleShopper(scope, shopperId)
  const { rows, total } = await repo.listMandates(scope.deps.database.db, scope.tenantId, { shopperId: shopper.id, limit: q.limit ?? 50, offset: q.offset ?? 0 })
  return { data: rows.map(mandateView), total }
}

export async function shopperExecutions(scope: Scope, shopperId: string, q: { limit?: number; offset?: number }) {
  const shopper = await visibleShopper(scope, shopperId)
  const { rows, total } = await repo.listExecutions(scope.deps.database.db, scope.tenantId, { shopperId: shopper.id, limit: q.limit ?? 50, offset: q.offset ?? 0 })
  return { data: rows.map(executionView), total }
}
