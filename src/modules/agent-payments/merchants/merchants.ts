/** Merchants (routes 17-21): who agents pay, and where (`payTo`). */
import { base58 } from '@scure/base'
import { getAddress, isAddress } from 'viem'
import { BadRequestError, NotFoundError } from '../../../lib/errors'
import { newId } from '../../../lib/ids'
import { lookupChain } from '../../tokens'
import { recordChange } from '../changes'
import type { Scope } from '../agents/credentials'
import type { CreateMerchant, UpdateMerchant } from '../model'
import * as repo from '../repo'
import type { MerchantRow } from '../schema'
import type { ApEnvironment } from '../record-types'
import { merchantView } from '../views'

const payToError = (message: string) => new BadRequestError(message, { code: 'MERCHANT_PAY_TO_INVALID' })

/** `payTo` checked against the registry: a known network, an address of its family in display form. */
export function checkPayTo(payTo: { network: string; address: string }): { network: string; address: string; environment: ApEnvironment } {
  const found = lookupChain(payTo.network)
  if (!found) throw payToError(`Unknown network ${payTo.network}`)
  const { chain, network } = found
  let address: string | null = null
  if (chain.family === 'evm') address = isAddress(payTo.address, { strict: false }) ? getAddress(payTo.address) : null
  else {
    try {
      address = base58.decode(payTo.address).length === 32 ? payTo.address : null
    } catch {
      address = null
    }
  }
  if (!address) throw payToError(`Not an address of ${network.id}: ${payTo.address}`)
  if (chain.family === 'evm' && /^0x0{40}$/i.test(address)) throw payToError('The zero address cannot be paid')
  return { network: network.id, address, environment: network.isTestnet ? 'sandbox' : 'production' }
}

export async function visibleMerchant(scope: Scope, merchantId: string): Promise<MerchantRow> {
  const row = await repo.findMerchant(scope.deps.database.db, scope.tenantId, merchantId)
  if (!row) throw new NotFoundError('Merchant not found')
  return row
}

export async function createMerchant(scope: Scope, input: CreateMerchant) {
  const payTo = checkPayTo(input.payTo)
  const now = scope.deps.clock.now()
  const row: MerchantRow = {
    id: newId(), tenantId: scope.tenantId, name: input.name, website: input.website ?? null, category: input.category ?? null,
    payToNetwork: payTo.network, payToAddress: payTo.address, environment: payTo.environment, status: 'active',
    createdAt: now, updatedAt: now, disabledAt: null,
  }
  await scope.deps.database.write(async (tx) => {
    await repo.insertMerchant(tx, row)
    await recordChange(tx, scope, { resourceType: 'merchant', resourceId: row.id, change: 'created', before: null, after: merchantView(row), environments: [row.environment] }, now)
  })
  return merchantView(row)
}

export async function listMerchants(scope: Scope, q: { status?: MerchantRow['status']; limit?: number; offset?: number }) {
  const { rows, total } = await repo.listMerchants(scope.deps.database.db, scope.tenantId, { status: q.status, limit: q.limit ?? 50, offset: q.offset ?? 0 })
  return { data: rows.map(merchantView), total }
}

export async function getMerchant(scope: Scope, merchantId: string) {
  return merchantView(await visibleMerchant(scope, merchantId))
}

export async function updateMerchant(scope: Scope, merchantId: string, input: UpdateMerchant) {
  const before = await visibleMerchant(scope, merchantId)
  const changes: Partial<MerchantRow> = {}
  if (input.name !== undefined) changes.name = input.name
  if (input.website !== undefined) changes.website = input.website
  if (input.category !== undefined) changes.category = input.category
  if (input.payTo) {
    const p = checkPayTo(input.payTo)
    Object.assign(changes, { payToNetwork: p.network, payToAddress: p.address, environment: p.environment })
  }
  const now = scope.deps.clock.now()
  const after: MerchantRow = { ...before, ...changes, updatedAt: now }
  if (JSON.stringify(merchantView({ ...after, updatedAt: before.updatedAt })) === JSON.stringify(merchantView(before))) return merchantView(before)
  await scope.deps.database.write(async (tx) => {
    await repo.updateMerchant(tx, scope.tenantId, merchantId, { ...changes, updatedAt: now })
    await recordChange(
      tx, scope,
      {
        resourceType: 'merchant', resourceId: merchantId, change: 'updated', before: merchantView(before),
        after: merchantView(after), environments: [...new Set([before.environment, after.environment])],
      },
      now,
    )
  })
  return merchantView(after)
}

/** Disables the merchant (final: executions to it are refused); its keys are revoked with it. A disabled one answers as it is. */
export async function disableMerchant(scope: Scope, merchantId: string) {
  const before = await visibleMerchant(scope, merchantId)
  if (before.status === 'disabled') return merchantView(before)
  const now = scope.deps.clock.now()
  const after: MerchantRow = { ...before, status: 'disabled', disabledAt: now, updatedAt: now }
  await scope.deps.database.write(async (tx) => {
    await repo.updateMerchant(tx, scope.tenantId, merchantId, { status: 'disabled', disabledAt: now, updatedAt: now })
    for (const keyId of await repo.revokeOwnerKeys(tx, scope.tenantId, 'merchant', merchantId, now)) {
      await recordChange(
        tx, scope,
        {
          resourceType: 'merchant_api_key', resourceId: keyId, change: 'revoked',
          before: { id: keyId, merchantId, revokedAt: null },
          after: { id: keyId, merchantId, revokedAt: new Date(now).toISOString() },
          environments: [before.environment],
        },
        now,
      )
    }
    await recordChange(
      tx, scope,
      { resourceType: 'merchant', resourceId: merchantId, change: 'disabled', before: merchantView(before), after: merchantView(after), environments: [before.environment] },
      now,
    )
  })
  return merchantView(after)
}
