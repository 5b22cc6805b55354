/**
 * The only file that touches the bank ramp tables, with the parts it hands on: repo-payouts.ts
 * (payout quotes and payouts, address challenges and proven addresses) and repo-feed.ts (the
 * unified feed's reads). Tenant id first after the executor, always in the filter.
 */
import { and, count, desc, eq, isNotNull, isNull } from 'drizzle-orm'
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
export * from './repo-payouts'
export * from './repo-feed'

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
