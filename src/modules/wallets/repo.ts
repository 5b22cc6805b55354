/** Wallet rows. Every function takes the tenant first and filters by it; deleted wallets are never returned. */
import { and, asc, eq, isNull, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { wallets, type WalletRow } from './schema'

const live = (tenantId: string) => and(eq(wallets.tenantId, tenantId), isNull(wallets.deletedAt))

export function findWallet(db: Executor, tenantId: string, id: string) {
  return db.select().from(wallets).where(and(live(tenantId), eq(wallets.id, id))).get()
}

export function findUserWallet(db: Executor, tenantId: string, userId: string, id: string) {
  return db.select().from(wallets).where(and(live(tenantId), eq(wallets.userId, userId), eq(wallets.id, id))).get()
}

export async function listUserWallets(db: Executor, tenantId: string, userId: string, opts: { limit?: number; offset?: number; chain?: string; isTestnet?: boolean } = {}) {
  const where = and(
    live(tenantId),
    eq(wallets.userId, userId),
    opts.chain ? eq(wallets.chain, opts.chain) : undefined,
    opts.isTestnet === undefined ? undefined : eq(wallets.isTestnet, opts.isTestnet),
  )
  let q = db.select().from(wallets).where(where).orderBy(asc(wallets.createdAt), sql`rowid`).$dynamic()
  if (opts.limit !== undefined) q = q.limit(opts.limit).offset(opts.offset ?? 0)
  const [rows, [count]] = await Promise.all([q, db.select({ n: sql<number>`count(*)` }).from(wallets).where(where)])
  return { rows, total: Number(count?.n ?? 0) }
}

export function findPrimary(db: Executor, tenantId: string, userId: string, chain: string, isTestnet: boolean) {
  return db.select().from(wallets)
    .where(and(live(tenantId), eq(wallets.userId, userId), eq(wallets.chain, chain), eq(wallets.isTestnet, isTestnet), eq(wallets.isPrimary, true)))
    .get()
}

export function findByAddress(db: Executor, tenantId: string, chain: string, isTestnet: boolean, addressKey: string) {
  return db.select().from(wallets)
    .where(and(live(tenantId), eq(wallets.chain, chain), eq(wallets.isTestnet, isTestnet), eq(wallets.addressKey, addressKey)))
    .get()
}

/** Owners of live wallets whose id or address (any chain) is `q`. */
export async function ownersMatching(db: Executor, tenantId: string, q: string): Promise<string[]> {
  const rows = await db.selectDistinct({ userId: wallets.userId }).from(wallets)
    .where(and(live(tenantId), sql`(${wallets.id} = ${q} or ${wallets.addressKey} = ${q} or ${wallets.addressKey} = ${q.toLowerCase()})`))
  return rows.map((r) => r.userId)
}

export async function insertWallet(db: Executor, row: WalletRow) {
  await db.insert(wallets).values(row)
  return row
}
