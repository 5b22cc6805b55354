/** Merchants and shoppers. */
import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import type { Executor } from '../../../db/client'
import { apMerchants, apShoppers, type MerchantRow, type ShopperRow } from '../schema'
import { countOf, paged } from './paging'

// merchants

export async function insertMerchant(db: Executor, row: MerchantRow) {
  await db.insert(apMerchants).values(row)
}

export function findMerchant(db: Executor, tenantId: string, id: string) {
  return db.select().from(apMerchants).where(and(eq(apMerchants.tenantId, tenantId), eq(apMerchants.id, id))).get()
}

/** The ids among `ids` that are merchants of the tenant (enabled or not). */
export async function existingMerchantIds(db: Executor, tenantId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set()
  const rows = await db.select({ id: apMerchants.id }).from(apMerchants)
    .where(and(eq(apMerchants.tenantId, tenantId), sql`${apMerchants.id} in (select value from json_each(${JSON.stringify(ids)}))`))
  return new Set(rows.map((r) => r.id))
}

/** The tenant's merchants (enabled or not) paid on a network: whose `payTo` a payee's address may be. */
export function merchantsOnNetwork(db: Executor, tenantId: string, network: string) {
  return db.select({ id: apMerchants.id, address: apMerchants.payToAddress, status: apMerchants.status }).from(apMerchants)
    .where(and(eq(apMerchants.tenantId, tenantId), eq(apMerchants.payToNetwork, network)))
}

/** The tenant's merchants (enabled or not) whose `payTo` is this address on this network; EVM addresses compared without case. */
export function merchantsAt(db: Executor, tenantId: string, network: string, address: string, evm: boolean) {
  return db.select({ id: apMerchants.id, address: apMerchants.payToAddress, status: apMerchants.status }).from(apMerchants)
    .where(and(
      eq(apMerchants.tenantId, tenantId), eq(apMerchants.payToNetwork, network),
      evm ? sql`lower(${apMerchants.payToAddress}) = ${address.toLowerCase()}` : eq(apMerchants.payToAddress, address),
    ))
}

export function listMerchants(db: Executor, tenantId: string, f: { status?: MerchantRow['status']; limit: number; offset: number }) {
  const where = and(eq(apMerchants.tenantId, tenantId), f.status ? eq(apMerchants.status, f.status) : undefined)
  return paged(db.select().from(apMerchants).where(where).orderBy(desc(apMerchants.createdAt), desc(apMerchants.id)).limit(f.limit).offset(f.offset), countOf(db, apMerchants, where))
}

export async function updateMerchant(db: Executor, tenantId: string, id: string, changes: Partial<Omit<MerchantRow, 'id' | 'tenantId' | 'createdAt'>>) {
  await db.update(apMerchants).set(changes).where(and(eq(apMerchants.tenantId, tenantId), eq(apMerchants.id, id)))
}

// shoppers

export async function insertShopper(db: Executor, row: ShopperRow) {
  await db.insert(apShoppers).values(row)
}

/** A shopper not removed. */
export function findShopper(db: Executor, tenantId: string, id: string) {
  return db.select().from(apShoppers).where(and(eq(apShoppers.tenantId, tenantId), eq(apShoppers.id, id), isNull(apShoppers.deletedAt))).get()
}

export function findShopperByRef(db: Executor, tenantId: string, merchantId: string, externalRef: string) {
  return db.select().from(apShoppers).where(and(eq(apShoppers.tenantId, tenantId), eq(apShoppers.merchantId, merchantId), eq(apShoppers.externalRef, externalRef), isNull(apShoppers.deletedAt))).get()
}

export function listShoppers(db: Executor, tenantId: string, f: { merchantId?: string; limit: number; offset: number }) {
  const where = and(eq(apShoppers.tenantId, tenantId), isNull(apShoppers.deletedAt), f.merchantId ? eq(apShoppers.merchantId, f.merchantId) : undefined)
  return paged(db.select().from(apShoppers).where(where).orderBy(desc(apShoppers.createdAt), desc(apShoppers.id)).limit(f.limit).offset(f.offset), countOf(db, apShoppers, where))
}

export async function updateShopper(db: Executor, tenantId: string, id: string, changes: Partial<Omit<ShopperRow, 'id' | 'tenantId' | 'createdAt'>>) {
  await db.update(apShoppers).set(changes).where(and(eq(apShoppers.tenantId, tenantId), eq(apShoppers.id, id)))
}
