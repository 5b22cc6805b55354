/** Scheduling work: a row in the outbox, written in the caller's transaction. */
import type { Executor } from '../db/client'
import { newId } from '../lib/ids'
import { outbox } from './schema'

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

export async function scheduleJob(db: Executor, job: NewJob, now: number): Promise<string> {
  const id = job.id ?? newId()
  await db.insert(outbox).values({
    id, topic: job.topic, tenantId: job.tenantId ?? null, payload: job.payload, runAt: job.runAt ?? now, createdAt: now, dispatchedAt: null,
  }).onConflictDoNothing()
  // Nudged after the caller's transaction had a chance to commit; an early nudge just finds nothing.
  queueMicrotask(() => setTimeout(() => listeners.forEach((l) => l()), 0))
  return id
}
