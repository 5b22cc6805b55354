/**
 * The embedded simulator's persistence on Slipway's own database (the only file that touches
 * ./schema.ts): its records, the IBAN counter, and the log of customers reset. Every write
 * goes through `database.write`, the process's single writer.
 */
import { and, asc, eq, gt, inArray, lte, sql } from 'drizzle-orm'
import type { Database, Executor } from '../../db/client'
import type { CustomerReset, RecordChange, SavedRecord, SimulatorPersistence } from './persistence'
import type { StoreKind } from './state'
import { sandboxBankRampCounters, sandboxBankRampRecords, sandboxBankRampResets } from './schema'

/**
 * The first number the counter hands out is one above this. Simulators before this table
 * counted virtual IBANs from 1 in each process's memory (account numbers from 1001), and
 * Slipway's records still hold some of those: starting a million above keeps every number
 * the database hands out clear of them.
 */
export const IBAN_COUNTER_START = 1_000_000
/** rows per INSERT: 6 columns each, well under SQLite's limit of bound parameters */
const CHUNK = 100

const resetsAfter = (db: Executor, seq: number) =>
  db.select().from(sandboxBankRampResets).where(gt(sandboxBankRampResets.seq, seq)).orderBy(asc(sandboxBankRampResets.seq)).all()

export function libsqlPersistence(database: Database, now: () => number): SimulatorPersistence {
  return {
    async load() {
      // expired records are of no use to anyone: gone before the rest is read
      await database.write((tx) => tx.delete(sandboxBankRampRecords).where(lte(sandboxBankRampRecords.expiresAt, now())))
      const rows = await database.db.select().from(sandboxBankRampRecords)
        .orderBy(asc(sandboxBankRampRecords.expiresAt), asc(sql`rowid`)).all()
      const [last] = await database.db.select({ seq: sql<number>`coalesce(max(${sandboxBankRampResets.seq}), 0)` }).from(sandboxBankRampResets).all()
      return { records: rows.map((r) => ({ ...r, kind: r.kind as StoreKind })), resetSeq: last?.seq ?? 0 }
    },

    save: (changes: RecordChange[], resetSeq: number) => database.write(async (tx) => {
      // read inside the write: a reset committed before it is seen here, one after it deletes what it wrote
      const resets: CustomerReset[] = await resetsAfter(tx, resetSeq)
      const gone = new Set(resets.map((r) => `${r.accountId}\u0000${r.customerId}`))
      const puts = changes.filter((c): c is SavedRecord => !('deleted' in c) && !(c.customerId && gone.has(`${c.accountId}\u0000${c.customerId}`)))
      const deletes = changes.filter((c) => 'deleted' in c)
      for (let i = 0; i < puts.length; i += CHUNK) {
        await tx.insert(sandboxBankRampRecords).values(puts.slice(i, i + CHUNK)).onConflictDoUpdate({
          target: [sandboxBankRampRecords.kind, sandboxBankRampRecords.id],
          set: { accountId: sql`excluded.account_id`, customerId: sql`excluded.customer_id`, body: sql`excluded.body`, expiresAt: sql`excluded.expires_at` },
        })
      }
      const byKind = new Map<string, string[]>()
      for (const d of deletes) byKind.set(d.kind, [...(byKind.get(d.kind) ?? []), d.id])
      for (const [kind, ids] of byKind) {
        for (let i = 0; i < ids.length; i += CHUNK * 5) {
          await tx.delete(sandboxBankRampRecords).where(and(eq(sandboxBankRampRecords.kind, kind), inArray(sandboxBankRampRecords.id, ids.slice(i, i + CHUNK * 5))))
        }
      }
      return resets
    }),

    resetsSince: (seq: number) => resetsAfter(database.db, seq),

    async nextIbanNumber() {
      const [row] = await database.write((tx) => tx.insert(sandboxBankRampCounters).values({ name: 'iban', value: IBAN_COUNTER_START + 1 })
        .onConflictDoUpdate({ target: sandboxBankRampCounters.name, set: { value: sql`${sandboxBankRampCounters.value} + 1` } })
        .returning({ value: sandboxBankRampCounters.value }))
      return row!.value
    },
  }
}

/**
 * Forgets every record the simulator keeps of one customer of one account (the tenant), and
 * logs the reset so running simulators forget it in memory too. Run it in the caller's write
 * transaction. Answers how many records were deleted. The IBAN counter is left as it is, so
 * the customer's numbers are never handed out again.
 */
export async function forgetCustomer(tx: Executor, accountId: string, customerId: string, at: number): Promise<number> {
  const deleted = await tx.delete(sandboxBankRampRecords)
    .where(and(eq(sandboxBankRampRecords.accountId, accountId), eq(sandboxBankRampRecords.customerId, customerId)))
    .returning({ id: sandboxBankRampRecords.id })
  await tx.insert(sandboxBankRampResets).values({ accountId, customerId, at })
  return deleted.length
}
