/**
 * The `outbox` table's one owner: scheduling work (a row written in the caller's
 * transaction), and the reads and writes the runner and other layers need of it.
 */
import { and, asc, eq, gt, inArray, isNull, lte, sql } from 'drizzle-orm'
import type { Executor, InStatement } from '../db/client'
import { statementOf } from '../db/batch'
import { nativeTx, txRead, txReadOne, txWrite } from '../db/native-tx'
import { hintScheduled } from '../db/placement'
import { newId } from '../lib/ids'
import { outbox } from './schema'

export type OutboxRow = typeof outbox.$inferSelect

export interface NewJob {
  topic: string
  payload: Record<string, unknown>
  tenantId?: string | null
  /** Unix ms; defaults to now */
  runAt?: number
  /** stable id: the same id never runs twice (use for idempotent follow-ups) */
  id?: string
}

/** In-process listeners told when a job is scheduled, so the dispatcher need not wait for its next poll. */
const listeners = new Set<() => void>()
export const onJobScheduled = (fn: () => void) => {
  listeners.add(fn)
  return () => listeners.delete(fn)
}

/**
 * Tells the listeners after the scheduling caller's transaction had a chance to commit (an
 * early nudge just finds nothing, and the next poll does). One timer at a time: jobs scheduled
 * while one is pending get one more nudge after it, not a timer each. A timer per job was a
 * timer per published event: 100,000 events left the process about 150 MiB larger, memory the
 * collector did not count as its own, so it never hurried to collect it.
 */
let nudge: 'idle' | 'pending' | 'again' = 'idle'
function nudgeListeners() {
  if (nudge !== 'idle') {
    nudge = 'again'
    return
  }
  nudge = 'pending'
  queueMicrotask(() => setTimeout(() => {
    const again = nudge === 'again'
    nudge = 'idle'
    listeners.forEach((l) => l())
    if (again) nudgeListeners()
  }, 0))
}

// every scheduled job writes one (each published webhook event): run natively inside a local transaction (src/db/native-tx.ts)
const outboxInsert = txWrite((db, v: OutboxRow) => db.insert(outbox).values({
  id: v.id, topic: v.topic, tenantId: v.tenantId, payload: v.payload, runAt: v.runAt, createdAt: v.createdAt, dispatchedAt: v.dispatchedAt,
}).onConflictDoNothing())

export async function scheduleJob(db: Executor, job: NewJob, now: number): Promise<string> {
  const id = job.id ?? newId()
  await outboxInsert(db, { id, topic: job.topic, tenantId: job.tenantId ?? null, payload: job.payload, runAt: job.runAt ?? now, createdAt: now, dispatchedAt: null })
  // tenants on databases of their own (docs/scaling.md): this database goes on the worker's list
  hintScheduled()
  nudgeListeners()
  return id
}

/**
 * The same row as `scheduleJob` writes, as a statement of a write batch (`Database.writeBatch`);
 * call `jobsScheduled()` once the batch has committed.
 */
export function scheduleJobStatement(db: Executor, job: NewJob & { id: string }, now: number): InStatement {
  return statementOf(db.insert(outbox).values({
    id: job.id, topic: job.topic, tenantId: job.tenantId ?? null, payload: job.payload, runAt: job.runAt ?? now, createdAt: now, dispatchedAt: null,
  }).onConflictDoNothing())
}

/** After a write batch with jobs from `scheduleJobStatement` committed: what `scheduleJob` does after its insert. */
export function jobsScheduled() {
  hintScheduled()
  nudgeListeners()
}

/**
 * Claims up to `limit` rows due at `now` for this worker, earliest first, in one
 * conditional write: their `run_at` moves to `until`, only where they are still due and
 * not queued (a row another worker claimed has its `run_at` ahead and is left alone).
 * Returns the rows this write changed. Inside a local transaction (which holds the file's
 * write lock from its start, so no other writer comes between) the due rows' ids are read,
 * then each row is claimed by its id, natively (src/db/native-tx.ts): the one statement's
 * builder cost more than the rows, and SQLite ran its outer loop over every due row.
 */
export async function claimDueJobs(tx: Executor, now: number, until: number, limit: number): Promise<OutboxRow[]> {
  if (nativeTx(tx)) {
    const claimed: OutboxRow[] = []
    for (const { id } of await dueIds(tx, { now, limit })) {
      const row = await claimOne(tx, { id, now, until })
      if (row) claimed.push(row)
    }
    return claimed
  }
  const due = and(isNull(outbox.dispatchedAt), lte(outbox.runAt, now))
  return tx.update(outbox).set({ runAt: until })
    .where(and(inArray(outbox.id, tx.select({ id: outbox.id }).from(outbox).where(due).orderBy(asc(outbox.runAt)).limit(limit)), due))
    .returning()
}

const dueIds = txRead((db, v: { now: number; limit: number }) =>
  db.select({ id: outbox.id }).from(outbox).where(and(isNull(outbox.dispatchedAt), lte(outbox.runAt, v.now))).orderBy(asc(outbox.runAt)).limit(v.limit))
const claimOne = txReadOne((db, v: { id: string; now: number; until: number }) =>
  db.update(outbox).set({ runAt: v.until }).where(and(eq(outbox.id, v.id), isNull(outbox.dispatchedAt), lte(outbox.runAt, v.now))).returning())
const markOne = txWrite((db, v: { id: string; now: number }) => db.update(outbox).set({ dispatchedAt: v.now }).where(eq(outbox.id, v.id)))

/** Whether a row is due at `now` and not queued: a read (on the pending index), so a sweep of an idle database writes nothing. */
export async function hasDueJob(db: Executor, now: number): Promise<boolean> {
  return (await db.select({ id: outbox.id }).from(outbox).where(and(isNull(outbox.dispatchedAt), lte(outbox.runAt, now))).limit(1).get()) !== undefined
}

export async function markDispatched(db: Executor, ids: string[], now: number): Promise<void> {
  if (nativeTx(db)) {
    for (const id of ids) await markOne(db, { id, now })
    return
  }
  await db.update(outbox).set({ dispatchedAt: now }).where(inArray(outbox.id, ids))
}

/** Rows not yet in the queue. */
export async function pendingCount(db: Executor): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)` }).from(outbox).where(isNull(outbox.dispatchedAt))
  return Number(row?.n ?? 0)
}

/** Rows not yet in the queue per topic, and how many of them are due at `now` (the operators' page). */
export function pendingByTopic(db: Executor, now: number) {
  return db.select({ topic: outbox.topic, waiting: sql<number>`count(*)`, due: sql<number>`sum(case when ${outbox.runAt} <= ${now} then 1 else 0 end)` })
    .from(outbox).where(isNull(outbox.dispatchedAt)).groupBy(outbox.topic)
}

/** Up to `limit` rows of a topic not yet in the queue, after the id `after`, in id order. */
export function pendingJobsAfter(db: Executor, topic: string, after: string, limit: number) {
  return db.select({ id: outbox.id, payload: outbox.payload }).from(outbox)
    .where(and(eq(outbox.topic, topic), isNull(outbox.dispatchedAt), gt(outbox.id, after))).orderBy(asc(outbox.id)).limit(limit)
}

/** Every payload of a topic not yet in the queue. */
export async function pendingPayloads(db: Executor, topic: string): Promise<Array<Record<string, unknown>>> {
  return (await db.select({ payload: outbox.payload }).from(outbox).where(and(eq(outbox.topic, topic), isNull(outbox.dispatchedAt)))).map((r) => r.payload)
}

/**
 * Rewrites the payload of a row not yet in the queue, when `change` answers a new one
 * for the payload as it is now; false when the row is gone, queued, or `change` declines.
 * Call inside a write transaction so the read and the write see the same row.
 */
export async function replacePendingPayload(tx: Executor, id: string, change: (payload: Record<string, unknown>) => Record<string, unknown> | null): Promise<boolean> {
  const row = await tx.select({ payload: outbox.payload }).from(outbox).where(and(eq(outbox.id, id), isNull(outbox.dispatchedAt))).get()
  const next = row ? change(row.payload) : null
  if (!next) return false
  await tx.update(outbox).set({ payload: next }).where(eq(outbox.id, id))
  return true
}
