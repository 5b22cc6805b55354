/**
 * The only file that touches the transactions module's tables: transactions, prepared
 * transactions, wallet nonces and wallet holds. Every function takes the executor (the database or a
 * write transaction) and then the tenant id, and filters by it.
 */
import { and, count, desc, eq, gt, inArray, isNull, ne, or, type SQL } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { preparedTransactions, transactions, walletHolds, walletNonces, type HoldRow, type PreparedRow, type TransactionRow, type TxStatus } from './schema'

export type { HoldRow, PreparedRow, TransactionRow, TxStatus }
export type NewTransaction = typeof transactions.$inferInsert
export type NewPrepared = typeof preparedTransactions.$inferInsert
export type NonceRow = typeof walletNonces.$inferSelect

const txWhere = (tenantId: string, id: string) => and(eq(transactions.tenantId, tenantId), eq(transactions.id, id))

export async function insertTransaction(db: Executor, row: NewTransaction) {
  await db.insert(transactions).values(row)
}

export function findTransaction(db: Executor, tenantId: string, id: string) {
  return db.select().from(transactions).where(txWhere(tenantId, id)).get()
}

export function findUserTransaction(db: Executor, tenantId: string, userId: string, id: string) {
  return db.select().from(transactions).where(and(txWhere(tenantId, id), eq(transactions.userId, userId))).get()
}

/** A user's transactions recorded with this hash (a client-signed transaction broadcast again finds its record). */
export function findUserTransactionsByHash(db: Executor, tenantId: string, userId: string, txHash: string) {
  return db.select().from(transactions).where(and(eq(transactions.tenantId, tenantId), eq(transactions.userId, userId), eq(transactions.txHash, txHash)))
}

export interface TransactionFilter {
  walletId?: string
  /** family chain id, lower case */
  chain?: string
  /** only the chain's testnet (the filter named a testnet's registry id) */
  testnetOnly?: boolean
  status?: TxStatus
}

/** A user's transactions, newest first, and how many match in all. */
export async function listUserTransactions(db: Executor, tenantId: string, userId: string, f: TransactionFilter, limit: number, offset: number) {
  const conds: SQL[] = [eq(transactions.tenantId, tenantId), eq(transactions.userId, userId)]
  if (f.walletId) conds.push(eq(transactions.walletId, f.walletId))
  if (f.chain) conds.push(eq(transactions.chain, f.chain))
  if (f.testnetOnly) conds.push(eq(transactions.isTestnet, true))
  if (f.status) conds.push(eq(transactions.status, f.status))
  const where = and(...conds)
  const [rows, [total]] = await Promise.all([
    db.select().from(transactions).where(where).orderBy(desc(transactions.createdAt), desc(transactions.id)).limit(limit).offset(offset),
    db.select({ n: count() }).from(transactions).where(where),
  ])
  return { rows, total: Number(total?.n ?? 0) }
}

/**
 * Changes one transaction; with `only`, just while its status and/or hash are still
 * those (another reader may have moved it on). Answers how many rows changed (0 or 1).
 */
export async function updateTransaction(db: Executor, tenantId: string, id: string, set: Partial<NewTransaction>, only: { status?: TxStatus; txHash?: string } = {}) {
  const conds: SQL[] = [eq(transactions.tenantId, tenantId), eq(transactions.id, id)]
  if (only.status !== undefined) conds.push(eq(transactions.status, only.status))
  if (only.txHash !== undefined) conds.push(eq(transactions.txHash, only.txHash))
  const changed = await db.update(transactions).set(set).where(and(...conds)).returning({ id: transactions.id })
  return changed.length
}

export async function insertPrepared(db: Executor, row: NewPrepared) {
  await db.insert(preparedTransactions).values(row)
}

export function findPrepared(db: Executor, tenantId: string, id: string) {
  return db.select().from(preparedTransactions).where(and(eq(preparedTransactions.tenantId, tenantId), eq(preparedTransactions.id, id))).get()
}

/** The user's prepared transaction by its id, or by the id of the transaction it belongs to. */
export async function findUserPrepared(db: Executor, tenantId: string, userId: string, id: string): Promise<PreparedRow | undefined> {
  const mine = and(eq(preparedTransactions.tenantId, tenantId), eq(preparedTransactions.userId, userId))
  return (await db.select().from(preparedTransactions).where(and(mine, eq(preparedTransactions.id, id))).get())
    ?? (await db.select().from(preparedTransactions).where(and(mine, eq(preparedTransactions.transactionId, id))).get())
}

export function findPreparedFor(db: Executor, tenantId: string, transactionId: string) {
  return db.select().from(preparedTransactions).where(and(eq(preparedTransactions.tenantId, tenantId), eq(preparedTransactions.transactionId, transactionId))).get()
}

/** Marks a prepared transaction used if it still is `prepared` and unexpired at `now`; false when another broadcast won or it expired. */
export async function consumePrepared(db: Executor, tenantId: string, id: string, now: number): Promise<boolean> {
  const res = await db.update(preparedTransactions).set({ status: 'used', usedAt: now })
    .where(and(eq(preparedTransactions.tenantId, tenantId), eq(preparedTransactions.id, id), eq(preparedTransactions.status, 'prepared'), gt(preparedTransactions.expiresAt, now)))
    .returning({ id: preparedTransactions.id })
  return res.length > 0
}

/** Hands a consumed prepared transaction back (its submission never reached a node). */
export async function restorePrepared(db: Executor, tenantId: string, id: string) {
  await db.update(preparedTransactions).set({ status: 'prepared', usedAt: null }).where(and(eq(preparedTransactions.tenantId, tenantId), eq(preparedTransactions.id, id)))
}

const nonceWhere = (tenantId: string, walletId: string, network: string) =>
  and(eq(walletNonces.tenantId, tenantId), eq(walletNonces.walletId, walletId), eq(walletNonces.network, network))

export function findNonceRow(db: Executor, tenantId: string, walletId: string, network: string) {
  return db.select().from(walletNonces).where(nonceWhere(tenantId, walletId, network)).get()
}

/** Creates the counter unless it exists (another send may have created it meanwhile). */
export async function createNonceRow(db: Executor, tenantId: string, walletId: string, network: string, nextNonce: number, now: number) {
  await db.insert(walletNonces).values({ tenantId, walletId, network, nextNonce, freeNonces: [], updatedAt: now }).onConflictDoNothing()
}

export async function setNonceRow(db: Executor, tenantId: string, walletId: string, network: string, set: { nextNonce?: number; freeNonces?: number[] }, now: number) {
  await db.update(walletNonces).set({ ...set, updatedAt: now }).where(nonceWhere(tenantId, walletId, network))
}

// ---- what a custodial wallet has in flight (holds.ts)

/**
 * A wallet's custodial sends on one network that the chain's balance at `block` may not
 * show yet: those still pending, and those mined (confirmed or reverted) after `block`.
 */
export function sendsInFlight(db: Executor, tenantId: string, walletId: string, network: string, block: number) {
  return db.select({
    status: transactions.status, amount: transactions.amount, tokenAddress: transactions.tokenAddress, gasLimit: transactions.gasLimit,
    maxFeePerGas: transactions.maxFeePerGas, feePaid: transactions.feePaid, metadata: transactions.metadata,
  }).from(transactions).where(and(
    eq(transactions.tenantId, tenantId), eq(transactions.walletId, walletId), eq(transactions.network, network),
    eq(transactions.requiresClientSigning, false), eq(transactions.simulation, false),
    or(eq(transactions.status, 'pending'), and(inArray(transactions.status, ['confirmed', 'failed']), gt(transactions.blockNumber, block))),
  ))
}

/** Holds on the wallet's network whose send does not exist yet, unreleased and unexpired at `now`, but `except`. */
export function openHolds(db: Executor, tenantId: string, walletId: string, network: string, now: number, except: string | null) {
  const conds: SQL[] = [
    eq(walletHolds.tenantId, tenantId), eq(walletHolds.walletId, walletId), eq(walletHolds.network, network),
    isNull(walletHolds.transactionId), isNull(walletHolds.releasedAt), gt(walletHolds.expiresAt, now),
  ]
  if (except) conds.push(ne(walletHolds.id, except))
  return db.select({ id: walletHolds.id, amount: walletHolds.amount, tokenAddress: walletHolds.tokenAddress }).from(walletHolds).where(and(...conds))
}

export async function insertHold(db: Executor, row: typeof walletHolds.$inferInsert) {
  await db.insert(walletHolds).values(row)
}

export function findHold(db: Executor, tenantId: string, id: string) {
  return db.select().from(walletHolds).where(and(eq(walletHolds.tenantId, tenantId), eq(walletHolds.id, id))).get()
}

/** The send that spends the hold: from now on the send holds the amount. False when the hold was released, expired or spent. */
export async function attachHold(db: Executor, tenantId: string, id: string, transactionId: string, now: number): Promise<boolean> {
  const changed = await db.update(walletHolds).set({ transactionId })
    .where(and(eq(walletHolds.tenantId, tenantId), eq(walletHolds.id, id), isNull(walletHolds.transactionId), isNull(walletHolds.releasedAt), gt(walletHolds.expiresAt, now)))
    .returning({ id: walletHolds.id })
  return changed.length > 0
}

/** Counts a hold no longer than `until` (an x402 payment settled: its transfer is on chain, and balances read from a little later show it). */
export async function shortenHold(db: Executor, tenantId: string, id: string, until: number) {
  await db.update(walletHolds).set({ expiresAt: until }).where(and(eq(walletHolds.tenantId, tenantId), eq(walletHolds.id, id), gt(walletHolds.expiresAt, until)))
}

/** Gives a hold up (its owner will not send); a hold already spent by a send is left alone. */
export async function releaseHold(db: Executor, tenantId: string, id: string, now: number) {
  await db.update(walletHolds).set({ releasedAt: now }).where(and(eq(walletHolds.tenantId, tenantId), eq(walletHolds.id, id), isNull(walletHolds.transactionId), isNull(walletHolds.releasedAt)))
}

/**
 * A wallet's pending sends on one network whose nonce is `fromNonce` or later, by nonce:
 * the send next in line and those queued behind it (evm-refresh.ts hands their stored
 * signed bytes to the node again, in order).
 */
export async function pendingSendsFrom(db: Executor, tenantId: string, walletId: string, network: string, fromNonce: number) {
  const rows = await db.select().from(transactions).where(and(
    eq(transactions.tenantId, tenantId), eq(transactions.walletId, walletId), eq(transactions.network, network),
    eq(transactions.status, 'pending'), eq(transactions.simulation, false), gt(transactions.nonce, fromNonce - 1),
  ))
  return rows.sort((x, y) => x.nonce! - y.nonce!)
}
