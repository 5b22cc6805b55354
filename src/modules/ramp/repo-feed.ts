/**
 * The bank ramp's reads for the unified feed (deposits with the wallet their IBAN converts to,
 * payouts). Part of the module's repo (repo.ts hands it on). Tenant id first after the
 * executor, always in the filter.
 */
import { and, count, desc, eq, inArray } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { rampDeposits, rampPaymentMethods, rampPayouts, type RampEnv } from './schema'

/** What the unified feed filters ramp records by: the wallet, its chain, and statuses in the ramp's words. */
export interface FeedRows { walletId?: string; chain?: string; statuses?: string[]; environment?: RampEnv }

const depositFeedColumns = {
  id: rampDeposits.id, environment: rampDeposits.environment, status: rampDeposits.status, fiatAmount: rampDeposits.fiatAmount, fiatCurrency: rampDeposits.fiatCurrency,
  createdAt: rampDeposits.createdAt, updatedAt: rampDeposits.updatedAt, walletId: rampPaymentMethods.walletId, chain: rampPaymentMethods.chain,
}
export type DepositFeedRow = {
  id: string
  environment: RampEnv
  status: string
  fiatAmount: string
  fiatCurrency: string
  createdAt: number
  updatedAt: number
  walletId: string | null
  chain: string | null
}

function depositFeedWhere(tenantId: string, userId: string, f: FeedRows) {
  const conds = [eq(rampDeposits.tenantId, tenantId), eq(rampDeposits.userId, userId)]
  if (f.walletId) conds.push(eq(rampPaymentMethods.walletId, f.walletId))
  if (f.chain) conds.push(eq(rampPaymentMethods.chain, f.chain))
  if (f.statuses) conds.push(inArray(rampDeposits.status, f.statuses))
  if (f.environment) conds.push(eq(rampDeposits.environment, f.environment))
  return and(...conds)
}

/** The user's newest `take` deposits (both environments) with the wallet their IBAN converts to, and how many match. */
export async function depositsForFeed(db: Executor, tenantId: string, userId: string, f: FeedRows, take: number) {
  const join = and(eq(rampPaymentMethods.tenantId, rampDeposits.tenantId), eq(rampPaymentMethods.id, rampDeposits.paymentMethodId))
  const where = depositFeedWhere(tenantId, userId, f)
  const rows = await db.select(depositFeedColumns).from(rampDeposits).leftJoin(rampPaymentMethods, join).where(where)
    .orderBy(desc(rampDeposits.createdAt), desc(rampDeposits.id)).limit(take).all() as DepositFeedRow[]
  const [{ n }] = await db.select({ n: count() }).from(rampDeposits).leftJoin(rampPaymentMethods, join).where(where).all() as [{ n: number }]
  return { rows, total: n }
}

export async function depositForFeed(db: Executor, tenantId: string, userId: string, id: string) {
  const join = and(eq(rampPaymentMethods.tenantId, rampDeposits.tenantId), eq(rampPaymentMethods.id, rampDeposits.paymentMethodId))
  return await db.select(depositFeedColumns).from(rampDeposits).leftJoin(rampPaymentMethods, join)
    .where(and(eq(rampDeposits.tenantId, tenantId), eq(rampDeposits.userId, userId), eq(rampDeposits.id, id))).get() as DepositFeedRow | undefined
}

export async function payoutsForFeed(db: Executor, tenantId: string, userId: string, f: FeedRows, take: number) {
  const conds = [eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.userId, userId)]
  if (f.walletId) conds.push(eq(rampPayouts.walletId, f.walletId))
  if (f.chain) conds.push(eq(rampPayouts.chain, f.chain))
  if (f.statuses) conds.push(inArray(rampPayouts.status, f.statuses))
  if (f.environment) conds.push(eq(rampPayouts.environment, f.environment))
  const where = and(...conds)
  const rows = await db.select().from(rampPayouts).where(where).orderBy(desc(rampPayouts.createdAt), desc(rampPayouts.id)).limit(take).all()
  const [{ n }] = await db.select({ n: count() }).from(rampPayouts).where(where).all() as [{ n: number }]
  return { rows, total: n }
}

export const payoutForFeed = (db: Executor, tenantId: string, userId: string, id: string) =>
  db.select().from(rampPayouts).where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.userId, userId), eq(rampPayouts.id, id))).get()
