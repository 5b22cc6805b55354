/** The gas sponsorship tables: every query takes the tenant first (the deployment's paymaster signers have none: they are no tenant's). */
import { and, eq, inArray, lt } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { sealedTextColumn, type SealedColumn } from '../../db/sealed-columns'
import {
  gasPolicies, gasSponsorships, gasUsageCounters, paymasterSigners, type GasPolicyRow, type PaymasterSignerRow, type SponsorshipRow,
} from './schema'
import { formatUsd, parseUsd } from './usd'

export function findPolicy(db: Executor, tenantId: string, network: string) {
  return db.select().from(gasPolicies).where(and(eq(gasPolicies.tenantId, tenantId), eq(gasPolicies.network, network))).get()
}

export function listPolicies(db: Executor, tenantId: string) {
  return db.select().from(gasPolicies).where(eq(gasPolicies.tenantId, tenantId)).orderBy(gasPolicies.network).all()
}

export async function upsertPolicy(db: Executor, row: GasPolicyRow) {
  const { tenantId, network, createdAt, ...rest } = row
  void createdAt
  await db.insert(gasPolicies).values(row).onConflictDoUpdate({ target: [gasPolicies.tenantId, gasPolicies.network], set: rest })
}

export interface CounterKey {
  tenantId: string
  network: string
  scope: string
  period: string
}

const counterWhere = (k: CounterKey) => and(eq(gasUsageCounters.tenantId, k.tenantId), eq(gasUsageCounters.network, k.network),
  eq(gasUsageCounters.scope, k.scope), eq(gasUsageCounters.period, k.period))

export async function readCounter(db: Executor, k: CounterKey): Promise<{ totalWei: bigint; totalUsd: bigint; operations: number }> {
  const r = await db.select().from(gasUsageCounters).where(counterWhere(k)).get()
  return { totalWei: BigInt(r?.totalWei ?? '0'), totalUsd: parseUsd(r?.totalUsd ?? '0'), operations: r?.operations ?? 0 }
}

/** adds `wei` and `usd` (atto-USD; either may be negative) and `operations` to the counter, inside the caller's write */
export async function addToCounter(db: Executor, k: CounterKey, add: { wei: bigint; usd: bigint; operations: number }, now: number) {
  const cur = await readCounter(db, k)
  const floor = (v: bigint) => (v < 0n ? 0n : v)
  const set = {
    totalWei: floor(cur.totalWei + add.wei).toString(), totalUsd: formatUsd(floor(cur.totalUsd + add.usd)), operations: cur.operations + add.operations, updatedAt: now,
  }
  await db.insert(gasUsageCounters).values({ ...k, ...set })
    .onConflictDoUpdate({ target: [gasUsageCounters.tenantId, gasUsageCounters.network, gasUsageCounters.scope, gasUsageCounters.period], set })
}

/** the counters of one scope for the given periods, every network */
export function countersOf(db: Executor, tenantId: string, scope: string, periods: string[]) {
  return db.select().from(gasUsageCounters)
    .where(and(eq(gasUsageCounters.tenantId, tenantId), eq(gasUsageCounters.scope, scope), inArray(gasUsageCounters.period, periods))).all()
}

export function insertSponsorship(db: Executor, row: SponsorshipRow) {
  return db.insert(gasSponsorships).values(row)
}

export function findSponsorship(db: Executor, tenantId: string, id: string) {
  return db.select().from(gasSponsorships).where(and(eq(gasSponsorships.tenantId, tenantId), eq(gasSponsorships.id, id))).get()
}

export function findByUserOpHash(db: Executor, tenantId: string, userOpHash: string) {
  return db.select().from(gasSponsorships).where(and(eq(gasSponsorships.tenantId, tenantId), eq(gasSponsorships.userOpHash, userOpHash))).get()
}

/** moves a reserved sponsorship to its outcome; false when it had one already */
export async function closeSponsorship(
  db: Executor, tenantId: string, id: string, to: { status: 'settled' | 'released'; actualCostWei: string | null; actualCostUsd: string | null; updatedAt: number },
) {
  const r = await db.update(gasSponsorships).set(to)
    .where(and(eq(gasSponsorships.tenantId, tenantId), eq(gasSponsorships.id, id), eq(gasSponsorships.status, 'reserved'))).returning({ id: gasSponsorships.id })
  return r.length === 1
}

export function setTransaction(db: Executor, tenantId: string, id: string, transactionId: string) {
  return db.update(gasSponsorships).set({ transactionId }).where(and(eq(gasSponsorships.tenantId, tenantId), eq(gasSponsorships.id, id)))
}

/** ERC-7677 reservations whose signature ran out (Unix s) while still reserved, across tenants (the settle job) */
export function expiredReservations(db: Executor, nowSeconds: number, limit: number) {
  return db.select().from(gasSponsorships)
    .where(and(eq(gasSponsorships.status, 'reserved'), eq(gasSponsorships.source, 'erc7677'), lt(gasSponsorships.validUntil, nowSeconds))).limit(limit).all()
}

export function findSigner(db: Executor, network: string) {
  return db.select().from(paymasterSigners).where(eq(paymasterSigners.network, network)).get()
}

/** stores the network's signer; `replace` false keeps one already there (a concurrent first import) */
export async function putSigner(db: Executor, row: PaymasterSignerRow, replace: boolean) {
  const q = db.insert(paymasterSigners).values(row)
  await (replace
    ? q.onConflictDoUpdate({ target: paymasterSigners.network, set: { address: row.address, keySealed: row.keySealed, updatedAt: row.updatedAt } })
    : q.onConflictDoNothing())
}

export function signerColumn(aad: (network: string) => string): SealedColumn {
  return sealedTextColumn({ name: 'paymaster_signers.key_sealed', table: paymasterSigners, id: paymasterSigners.network, value: paymasterSigners.keySealed, aad: (r) => aad(r.id) })
}

/** One sponsorship of the sender still open (reserved: signed, its outcome unknown), any source but ERC-7677's. */
export function findOpenOfSender(db: Executor, tenantId: string, network: string, sender: string) {
  return db.select().from(gasSponsorships).where(and(
    eq(gasSponsorships.status, 'reserved'), eq(gasSponsorships.tenantId, tenantId), eq(gasSponsorships.network, network), eq(gasSponsorships.sender, sender),
    eq(gasSponsorships.source, 'custodial'),
  )).get()
}
