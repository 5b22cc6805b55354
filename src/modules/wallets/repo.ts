/**
 * The wallets module's tables: wallets, their single-use challenges, key export tokens
 * and the devices keys are handed to. This is the only file that reads or writes them.
 * Every function takes the tenant first and filters by it; deleted wallets are never returned.
 */
import { and, asc, eq, gt, isNotNull, isNull, lt, or, sql, type SQL } from 'drizzle-orm'
import type { InStatement } from '@libsql/client'
import { statementOf } from '../../db/batch'
import type { Executor } from '../../db/client'
import { sealedTextColumn, type SealedColumn } from '../../db/sealed-columns'
import { walletChallenges, walletDevices, walletExportTokens, wallets, type WalletRow } from './schema'

export type ChallengeRow = typeof walletChallenges.$inferSelect
export type ChallengePurpose = ChallengeRow['purpose']
export type ExportTokenRow = typeof walletExportTokens.$inferSelect
export type DeviceRow = typeof walletDevices.$inferSelect
/** What a wallet's changes may touch: never its identity, owner or tenant. */
export type WalletChanges = Partial<Omit<WalletRow, 'id' | 'tenantId' | 'userId' | 'createdAt'>>

const live = (tenantId: string) => and(eq(wallets.tenantId, tenantId), isNull(wallets.deletedAt))

export function findWallet(db: Executor, tenantId: string, id: string) {
  return db.select().from(wallets).where(and(live(tenantId), eq(wallets.id, id))).get()
}

/** `findWallet` as a query (a list of at most one), to send with other reads (`readAll`); its id may be a subquery. */
export function walletQuery(db: Executor, tenantId: string, id: string | SQL) {
  return db.select().from(wallets).where(and(live(tenantId), eq(wallets.id, id))).limit(1)
}

/**
 * The wallet as read, still live (its owner, chain and network unchanged, not deleted): a condition
 * of another module's write batch that judged from an earlier read of it.
 */
export const walletAsRead = (tenantId: string, w: Pick<WalletRow, 'id' | 'userId' | 'chain' | 'isTestnet'>): SQL =>
  sql`EXISTS (SELECT 1 FROM wallets WHERE tenant_id = ${tenantId} AND id = ${w.id} AND user_id = ${w.userId} AND chain = ${w.chain}
    AND is_testnet = ${w.isTestnet ? 1 : 0} AND deleted_at IS NULL)`

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

/** Up to `limit` owners of live wallets on mainnets (`isTestnet` false) or testnets, in id order after `afterUserId`: pages for the portfolio's daily job. */
export async function ownersWithWallets(db: Executor, tenantId: string, isTestnet: boolean, afterUserId: string, limit: number): Promise<string[]> {
  const rows = await db.selectDistinct({ userId: wallets.userId }).from(wallets)
    .where(and(live(tenantId), eq(wallets.isTestnet, isTestnet), gt(wallets.userId, afterUserId)))
    .orderBy(asc(wallets.userId)).limit(limit)
  return rows.map((r) => r.userId)
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
/** Whether any tenant has a live wallet: an operational check (the portfolio's first daily run), across tenants on purpose. */
export async function anyLiveWallet(db: Executor): Promise<boolean> {
  const row = await db.select({ id: wallets.id }).from(wallets).where(isNull(wallets.deletedAt)).limit(1).get()
  return !!row
}

export async function ownersMatching(db: Executor, tenantId: string, q: string): Promise<string[]> {
  const rows = await db.selectDistinct({ userId: wallets.userId }).from(wallets)
    .where(and(live(tenantId), sql`(${wallets.id} = ${q} or ${wallets.addressKey} = ${q} or ${wallets.addressKey} = ${q.toLowerCase()})`))
  return rows.map((r) => r.userId)
}

export async function insertWallet(db: Executor, row: WalletRow) {
  await db.insert(wallets).values(row)
  return row
}

/** The same insert as a statement of a write batch (`Database.writeBatch`): the unique indexes refuse a second primary or a known address. */
export function insertWalletStatement(db: Executor, row: WalletRow): InStatement {
  return statementOf(db.insert(wallets).values(row))
}

export async function updateWallet(db: Executor, tenantId: string, id: string, changes: WalletChanges) {
  await db.update(wallets).set(changes).where(and(eq(wallets.tenantId, tenantId), eq(wallets.id, id)))
}

/** Unsets the user's primary wallet of one chain and network type, if any. */
export async function demotePrimary(db: Executor, tenantId: string, userId: string, chain: string, isTestnet: boolean, now: number) {
  await db.update(wallets).set({ isPrimary: false, updatedAt: now }).where(and(
    eq(wallets.tenantId, tenantId), eq(wallets.userId, userId), eq(wallets.chain, chain),
    eq(wallets.isTestnet, isTestnet), eq(wallets.isPrimary, true), isNull(wallets.deletedAt),
  ))
}

/** Soft delete: the row stays for history, its key material goes at once. */
export async function softDeleteWallet(db: Executor, tenantId: string, id: string, now: number) {
  await updateWallet(db, tenantId, id, { deletedAt: now, updatedAt: now, dataKeyWrapped: null, keySealed: null, migrationDeviceId: null })
}

/** Drops a user's spent and expired export tokens. */
export async function dropStaleExportTokens(db: Executor, tenantId: string, userId: string, now: number) {
  await db.delete(walletExportTokens).where(and(
    eq(walletExportTokens.tenantId, tenantId), eq(walletExportTokens.userId, userId),
    or(lt(walletExportTokens.expiresAt, now), isNotNull(walletExportTokens.usedAt)),
  ))
}

export async function insertExportToken(db: Executor, row: ExportTokenRow) {
  await db.insert(walletExportTokens).values(row)
}

export function findExportToken(db: Executor, tenantId: string, tokenHash: string) {
  return db.select().from(walletExportTokens).where(and(eq(walletExportTokens.tenantId, tenantId), eq(walletExportTokens.tokenHash, tokenHash))).get()
}

export async function markExportTokenUsed(db: Executor, tenantId: string, id: string, now: number) {
  await db.update(walletExportTokens).set({ usedAt: now }).where(and(eq(walletExportTokens.tenantId, tenantId), eq(walletExportTokens.id, id)))
}

/** Drops a user's spent and expired challenges of one purpose. */
export async function dropStaleChallenges(db: Executor, tenantId: string, userId: string, purpose: ChallengePurpose, now: number) {
  await db.delete(walletChallenges).where(and(
    eq(walletChallenges.tenantId, tenantId), eq(walletChallenges.userId, userId), eq(walletChallenges.purpose, purpose),
    or(lt(walletChallenges.expiresAt, now), isNotNull(walletChallenges.usedAt)),
  ))
}

export async function insertChallenge(db: Executor, row: ChallengeRow) {
  await db.insert(walletChallenges).values(row)
}

export function findChallenge(db: Executor, tenantId: string, id: string) {
  return db.select().from(walletChallenges).where(and(eq(walletChallenges.tenantId, tenantId), eq(walletChallenges.id, id))).get()
}

export async function markChallengeUsed(db: Executor, tenantId: string, id: string, now: number) {
  await db.update(walletChallenges).set({ usedAt: now }).where(and(eq(walletChallenges.tenantId, tenantId), eq(walletChallenges.id, id)))
}

/** The wallet's unused migration challenges stop working. */
export async function expireWalletChallenges(db: Executor, tenantId: string, walletId: string, now: number) {
  await db.update(walletChallenges).set({ usedAt: now }).where(and(eq(walletChallenges.tenantId, tenantId), eq(walletChallenges.walletId, walletId), isNull(walletChallenges.usedAt)))
}

export async function insertDevice(db: Executor, row: DeviceRow) {
  await db.insert(walletDevices).values(row)
}

export function findUserDevice(db: Executor, tenantId: string, userId: string, id: string) {
  return db.select().from(walletDevices).where(and(eq(walletDevices.tenantId, tenantId), eq(walletDevices.userId, userId), eq(walletDevices.id, id))).get()
}

/**
 * Platform-wide, for `slipway reseal` (listed in sealed.ts): every wallet's wrapped data
 * key, read and rewritten here; `aad` and `alsoSet` (the key version kept beside it) come
 * from the caller.
 */
export function dataKeyColumn(o: { aad(row: { id: string; tenantId: string }): string; alsoSet(next: string): Partial<WalletRow> }): SealedColumn {
  return sealedTextColumn({
    name: 'wallets.data_key_wrapped',
    table: wallets,
    id: wallets.id,
    value: wallets.dataKeyWrapped,
    tenantId: wallets.tenantId,
    aad: (r) => o.aad({ id: r.id, tenantId: r.tenantId! }),
    alsoSet: o.alsoSet,
  })
}
