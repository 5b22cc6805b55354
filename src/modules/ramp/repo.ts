/** The only file that touches the bank ramp tables. Tenant id first after the executor, always in the filter. */
import { and, count, desc, eq, inArray, isNotNull, isNull, lt, or } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { sealedTextColumn, type SealedColumn } from '../../db/sealed-columns'
import {
  rampAddressChallenges, rampCustomers, rampDeposits, rampOrchestrationIds, rampPaymentMethods, rampPayouts, rampPayoutQuotes,
  rampProvenAddresses, rampTransactions, type RampEnv,
} from './schema'

export type CustomerRow = typeof rampCustomers.$inferSelect
export type MethodRow = typeof rampPaymentMethods.$inferSelect
export type DepositRow = typeof rampDeposits.$inferSelect
export type TransactionRow = typeof rampTransactions.$inferSelect

export const findCustomer = (db: Executor, tenantId: string, env: RampEnv, userId: string) =>
  db.select().from(rampCustomers).where(and(eq(rampCustomers.tenantId, tenantId), eq(rampCustomers.environment, env), eq(rampCustomers.userId, userId))).get()

export const findCustomerById = (db: Executor, tenantId: string, env: RampEnv, id: string) =>
  db.select().from(rampCustomers).where(and(eq(rampCustomers.tenantId, tenantId), eq(rampCustomers.environment, env), eq(rampCustomers.id, id))).get()

export async function insertCustomer(db: Executor, tenantId: string, row: Omit<CustomerRow, 'tenantId'>) {
  await db.insert(rampCustomers).values({ ...row, tenantId }).onConflictDoNothing()
}

export async function updateCustomer(db: Executor, tenantId: string, id: string, patch: Partial<Omit<CustomerRow, 'id' | 'tenantId'>>) {
  await db.update(rampCustomers).set(patch).where(and(eq(rampCustomers.tenantId, tenantId), eq(rampCustomers.id, id)))
}

export const findMethodByRampId = (db: Executor, tenantId: string, env: RampEnv, rampId: string) =>
  db.select().from(rampPaymentMethods).where(and(eq(rampPaymentMethods.tenantId, tenantId), eq(rampPaymentMethods.environment, env), eq(rampPaymentMethods.rampPaymentMethodId, rampId))).get()

export const findMethod = (db: Executor, tenantId: string, env: RampEnv, userId: string, id: string) =>
  db.select().from(rampPaymentMethods).where(and(
    eq(rampPaymentMethods.tenantId, tenantId),
    eq(rampPaymentMethods.environment, env),
    eq(rampPaymentMethods.userId, userId),
    eq(rampPaymentMethods.id, id),
  )).get()

export const listMethods = (db: Executor, tenantId: string, env: RampEnv, userId: string) =>
  db.select().from(rampPaymentMethods).where(and(eq(rampPaymentMethods.tenantId, tenantId), eq(rampPaymentMethods.environment, env), eq(rampPaymentMethods.userId, userId)))
    .orderBy(desc(rampPaymentMethods.createdAt)).all()

/** Inserts the virtual IBAN, or refreshes the row the partner's id already has; answers the row. */
export async function upsertMethod(db: Executor, tenantId: string, row: Omit<MethodRow, 'tenantId'>): Promise<MethodRow> {
  const { id: _id, createdAt: _c, ...changes } = row
  const [out] = await db.insert(rampPaymentMethods).values({ ...row, tenantId })
    .onConflictDoUpdate({ target: [rampPaymentMethods.tenantId, rampPaymentMethods.environment, rampPaymentMethods.rampPaymentMethodId], set: changes })
    .returning()
  return out!
}

export const findDepositByRampId = (db: Executor, tenantId: string, env: RampEnv, rampId: string) =>
  db.select().from(rampDeposits).where(and(eq(rampDeposits.tenantId, tenantId), eq(rampDeposits.environment, env), eq(rampDeposits.rampDepositId, rampId))).get()

export async function insertDeposit(db: Executor, tenantId: string, row: Omit<DepositRow, 'tenantId'>) {
  const [out] = await db.insert(rampDeposits).values({ ...row, tenantId }).onConflictDoNothing().returning()
  return out
}

export async function updateDeposit(db: Executor, tenantId: string, id: string, patch: Partial<Omit<DepositRow, 'id' | 'tenantId'>>) {
  await db.update(rampDeposits).set(patch).where(and(eq(rampDeposits.tenantId, tenantId), eq(rampDeposits.id, id)))
}

export async function listDeposits(db: Executor, tenantId: string, env: RampEnv, userId: string, limit: number, offset: number) {
  const where = and(eq(rampDeposits.tenantId, tenantId), eq(rampDeposits.environment, env), eq(rampDeposits.userId, userId))
  const rows = await db.select().from(rampDeposits).where(where).orderBy(desc(rampDeposits.createdAt), desc(rampDeposits.id)).limit(limit).offset(offset).all()
  const [{ n }] = await db.select({ n: count() }).from(rampDeposits).where(where).all() as [{ n: number }]
  return { rows, total: n }
}

export const findTransactionByRampId = (db: Executor, tenantId: string, env: RampEnv, rampId: string) =>
  db.select().from(rampTransactions).where(and(eq(rampTransactions.tenantId, tenantId), eq(rampTransactions.environment, env), eq(rampTransactions.rampTransactionId, rampId))).get()

export async function insertTransaction(db: Executor, tenantId: string, row: Omit<TransactionRow, 'tenantId'>) {
  await db.insert(rampTransactions).values({ ...row, tenantId })
}

export async function updateTransaction(db: Executor, tenantId: string, id: string, patch: Partial<Omit<TransactionRow, 'id' | 'tenantId'>>) {
  await db.update(rampTransactions).set(patch).where(and(eq(rampTransactions.tenantId, tenantId), eq(rampTransactions.id, id)))
}

/** Slipway's id of a partner rule or rule execution, made the first time the partner's id is seen (run in the event's write). */
export async function orchestrationId(db: Executor, tenantId: string, env: RampEnv, kind: 'rule' | 'rule_execution', rampId: string, newId: string, now: number) {
  const where = and(eq(rampOrchestrationIds.tenantId, tenantId), eq(rampOrchestrationIds.environment, env), eq(rampOrchestrationIds.kind, kind), eq(rampOrchestrationIds.rampId, rampId))
  await db.insert(rampOrchestrationIds).values({ id: newId, tenantId, environment: env, kind, rampId, createdAt: now }).onConflictDoNothing()
  return (await db.select({ id: rampOrchestrationIds.id }).from(rampOrchestrationIds).where(where).get())!.id
}

/** The deposit a rule execution converted (rule 5): the conversion of that execution that names one. */
export async function depositOfExecution(db: Executor, tenantId: string, env: RampEnv, ruleExecutionId: string) {
  const row = await db.select({ depositId: rampTransactions.depositId, rampDepositId: rampTransactions.rampDepositId }).from(rampTransactions)
    .where(and(eq(rampTransactions.tenantId, tenantId), eq(rampTransactions.environment, env), eq(rampTransactions.ruleExecutionId, ruleExecutionId), isNotNull(rampTransactions.depositId)))
    .get()
  return row ?? null
}

/** Transactions of an execution still without a deposit get it once it is known (their next event carries it). */
export async function fillExecutionDeposit(db: Executor, tenantId: string, env: RampEnv, ruleExecutionId: string, depositId: string, rampDepositId: string | null) {
  await db.update(rampTransactions).set({ depositId, rampDepositId })
    .where(and(eq(rampTransactions.tenantId, tenantId), eq(rampTransactions.environment, env), eq(rampTransactions.ruleExecutionId, ruleExecutionId), isNull(rampTransactions.depositId)))
}

/** Conversions that named a deposit Slipway had not recorded yet. */
export async function fillDepositByRampId(db: Executor, tenantId: string, env: RampEnv, rampDepositId: string, depositId: string) {
  await db.update(rampTransactions).set({ depositId })
    .where(and(eq(rampTransactions.tenantId, tenantId), eq(rampTransactions.environment, env), eq(rampTransactions.rampDepositId, rampDepositId), isNull(rampTransactions.depositId)))
}

export async function listTransactions(db: Executor, tenantId: string, env: RampEnv, userId: string, limit: number, offset: number) {
  const where = and(eq(rampTransactions.tenantId, tenantId), eq(rampTransactions.environment, env), eq(rampTransactions.userId, userId))
  const rows = await db.select().from(rampTransactions).where(where).orderBy(desc(rampTransactions.createdAt), desc(rampTransactions.id)).limit(limit).offset(offset).all()
  const [{ n }] = await db.select({ n: count() }).from(rampTransactions).where(where).all() as [{ n: number }]
  return { rows, total: n }
}

export type QuoteRow = typeof rampPayoutQuotes.$inferSelect
export type PayoutRow = typeof rampPayouts.$inferSelect

export async function insertQuote(db: Executor, tenantId: string, row: Omit<QuoteRow, 'tenantId'>) {
  await db.insert(rampPayoutQuotes).values({ ...row, tenantId })
}

export const findQuote = (db: Executor, tenantId: string, env: RampEnv, userId: string, id: string) =>
  db.select().from(rampPayoutQuotes).where(and(eq(rampPayoutQuotes.tenantId, tenantId), eq(rampPayoutQuotes.environment, env), eq(rampPayoutQuotes.userId, userId), eq(rampPayoutQuotes.id, id))).get()

export const findPayoutOfQuote = (db: Executor, tenantId: string, quoteId: string) =>
  db.select().from(rampPayouts).where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.quoteId, quoteId))).get()

/** Reserves the quote for one payout: false when another payout took it first. */
export async function insertPayout(db: Executor, tenantId: string, row: Omit<PayoutRow, 'tenantId'>): Promise<boolean> {
  const out = await db.insert(rampPayouts).values({ ...row, tenantId }).onConflictDoNothing().returning({ id: rampPayouts.id })
  return out.length === 1
}

export async function updatePayout(db: Executor, tenantId: string, id: string, patch: Partial<Omit<PayoutRow, 'id' | 'tenantId'>>) {
  await db.update(rampPayouts).set(patch).where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.id, id)))
}

export async function deletePayout(db: Executor, tenantId: string, id: string) {
  await db.delete(rampPayouts).where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.id, id)))
}

export const findPayout = (db: Executor, tenantId: string, env: RampEnv, userId: string, id: string) =>
  db.select().from(rampPayouts).where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.environment, env), eq(rampPayouts.userId, userId), eq(rampPayouts.id, id))).get()

export const findPayoutById = (db: Executor, tenantId: string, env: RampEnv, id: string) =>
  db.select().from(rampPayouts).where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.environment, env), eq(rampPayouts.id, id))).get()

export async function listPayouts(db: Executor, tenantId: string, env: RampEnv, userId: string, limit: number, offset: number) {
  const where = and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.environment, env), eq(rampPayouts.userId, userId))
  const rows = await db.select().from(rampPayouts).where(where).orderBy(desc(rampPayouts.createdAt), desc(rampPayouts.id)).limit(limit).offset(offset).all()
  const [{ n }] = await db.select({ n: count() }).from(rampPayouts).where(where).all() as [{ n: number }]
  return { rows, total: n }
}

export const findPayoutByRampTransaction = (db: Executor, tenantId: string, env: RampEnv, rampTransactionId: string) =>
  db.select().from(rampPayouts).where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.environment, env), eq(rampPayouts.rampTransactionId, rampTransactionId))).get()

export type ChallengeRow = typeof rampAddressChallenges.$inferSelect
export type ProvenAddressRow = typeof rampProvenAddresses.$inferSelect

/** Stores a challenge; the user's spent and expired ones are dropped as new ones come. */
export async function insertChallenge(db: Executor, tenantId: string, row: Omit<ChallengeRow, 'tenantId'>) {
  const mine = and(eq(rampAddressChallenges.tenantId, tenantId), eq(rampAddressChallenges.environment, row.environment), eq(rampAddressChallenges.userId, row.userId))
  await db.delete(rampAddressChallenges).where(and(mine, or(lt(rampAddressChallenges.expiresAt, row.createdAt), isNotNull(rampAddressChallenges.usedAt))))
  await db.insert(rampAddressChallenges).values({ ...row, tenantId })
}

export const findChallenge = (db: Executor, tenantId: string, env: RampEnv, userId: string, id: string) =>
  db.select().from(rampAddressChallenges).where(and(
    eq(rampAddressChallenges.tenantId, tenantId),
    eq(rampAddressChallenges.environment, env),
    eq(rampAddressChallenges.userId, userId),
    eq(rampAddressChallenges.id, id),
  )).get()

/** Spends a challenge: false when it was spent already (single use, also under concurrent requests). */
export async function spendChallenge(db: Executor, tenantId: string, id: string, now: number): Promise<boolean> {
  const out = await db.update(rampAddressChallenges).set({ usedAt: now })
    .where(and(eq(rampAddressChallenges.tenantId, tenantId), eq(rampAddressChallenges.id, id), isNull(rampAddressChallenges.usedAt))).returning({ id: rampAddressChallenges.id })
  return out.length === 1
}

/** Inserts the proven address, or refreshes the row the user already had for it; answers the row. */
export async function upsertProvenAddress(db: Executor, tenantId: string, row: Omit<ProvenAddressRow, 'tenantId'>): Promise<ProvenAddressRow> {
  const [out] = await db.insert(rampProvenAddresses).values({ ...row, tenantId })
    .onConflictDoUpdate({
      target: [rampProvenAddresses.tenantId, rampProvenAddresses.environment, rampProvenAddresses.userId, rampProvenAddresses.chain, rampProvenAddresses.address],
      set: { rampAddressId: row.rampAddressId, provenAt: row.provenAt },
    })
    .returning()
  return out!
}

export const listProvenAddresses = (db: Executor, tenantId: string, env: RampEnv, userId: string) =>
  db.select().from(rampProvenAddresses).where(and(eq(rampProvenAddresses.tenantId, tenantId), eq(rampProvenAddresses.environment, env), eq(rampProvenAddresses.userId, userId)))
    .orderBy(desc(rampProvenAddresses.provenAt), desc(rampProvenAddresses.id)).all()

export const findProvenAddress = (db: Executor, tenantId: string, env: RampEnv, userId: string, id: string) =>
  db.select().from(rampProvenAddresses).where(and(
    eq(rampProvenAddresses.tenantId, tenantId),
    eq(rampProvenAddresses.environment, env),
    eq(rampProvenAddresses.userId, userId),
    eq(rampProvenAddresses.id, id),
  )).get()

export async function deleteProvenAddress(db: Executor, tenantId: string, id: string) {
  await db.delete(rampProvenAddresses).where(and(eq(rampProvenAddresses.tenantId, tenantId), eq(rampProvenAddresses.id, id)))
}

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

/**
 * The ramp's sealed columns for `slipway reseal` (see sealed.ts): a virtual IBAN, and the
 * beneficiary id a quote names. Both were written in clear by earlier versions.
 */
export function ibanColumn(aad: (tenantId: string, id: string) => string): SealedColumn {
  return sealedTextColumn({
    name: 'ramp_payment_methods.iban', table: rampPaymentMethods, id: rampPaymentMethods.id, value: rampPaymentMethods.iban,
    tenantId: rampPaymentMethods.tenantId, aad: (r) => aad(r.tenantId!, r.id), clearLegacy: true,
  })
}

export function quoteMethodColumn(aad: (tenantId: string, id: string) => string): SealedColumn {
  return sealedTextColumn({
    name: 'ramp_payout_quotes.ramp_payment_method_id', table: rampPayoutQuotes, id: rampPayoutQuotes.id, value: rampPayoutQuotes.rampPaymentMethodId,
    tenantId: rampPayoutQuotes.tenantId, aad: (r) => aad(r.tenantId!, r.id), clearLegacy: true,
  })
}

/** The user's payouts in the environment that may still move money (`pending`, `processing`). */
export const unfinishedPayouts = (db: Executor, tenantId: string, env: RampEnv, userId: string) =>
  db.select({ id: rampPayouts.id, status: rampPayouts.status }).from(rampPayouts)
    .where(and(eq(rampPayouts.tenantId, tenantId), eq(rampPayouts.environment, env), eq(rampPayouts.userId, userId), inArray(rampPayouts.status, ['pending', 'processing']))).all()

/**
 * Deletes every bank ramp record of one user in one environment (`slipway sandbox reset-user`):
 * the customer (KYC), virtual IBANs, deposits, transactions, payout quotes and payouts, address
 * challenges and proven addresses. Answers how many rows each table lost.
 */
export async function deleteUserRecords(db: Executor, tenantId: string, env: RampEnv, userId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  const tables = {
    ramp_customers: rampCustomers, ramp_payment_methods: rampPaymentMethods, ramp_deposits: rampDeposits, ramp_transactions: rampTransactions,
    ramp_payout_quotes: rampPayoutQuotes, ramp_payouts: rampPayouts, ramp_address_challenges: rampAddressChallenges, ramp_proven_addresses: rampProvenAddresses,
  }
  for (const [name, t] of Object.entries(tables)) {
    const rows = await db.delete(t).where(and(eq(t.tenantId, tenantId), eq(t.environment, env), eq(t.userId, userId))).returning({ id: t.id })
    out[name] = rows.length
  }
  return out
}
