/**
 * Batched topics: one bunqueue job carries the outbox rows of one topic that one dispatch
 * pass claimed (up to 100), instead of one job per row.
 *
 * bunqueue's own bookkeeping is per job and, in embedded mode, one SQLite write each: the
 * durable insert, the acknowledgement with its removal, and a telemetry event per state
 * change (docs/benchmarks.md, "Webhook deliveries"). For a topic of many small jobs (a
 * webhook delivery is one POST) that was about 30% of the process's CPU; a batch pays it
 * once per pass. The rows' own work is unchanged: each runs its topic's handler, at most
 * the runner's concurrency of them at once across all batches (Slots).
 *
 * Durability is the queue's, as for single jobs: the batch is added durable before its
 * rows are marked dispatched, and is acknowledged only once every row has run, so a crash
 * mid-batch runs the whole batch again after the restart (handlers are idempotent: at
 * least once, as ever). A row whose handler throws is queued again alone, durable, with the
 * topic's attempts and backoff (jobId = its outbox id, as a single job), before the batch
 * is acknowledged. The batch's job id is a digest of its rows' ids, so a pass that claims
 * the same rows again (a crash between the add and the mark) adds the same job, once.
 */
import { createHash } from 'node:crypto'

export interface BatchItem {
  outboxId: string
  tenantId: string | null
  payload: Record<string, unknown>
}

/** The job id of a batch: the same rows give the same id (bunqueue then keeps one job). */
export function batchJobId(topic: string, outboxIds: string[]): string {
  return `batch:${topic}:${createHash('sha256').update(outboxIds.join(',')).digest('hex').slice(0, 32)}`
}

/** A counting semaphore: at most `n` holders at once, the others waiting in order. */
export class Slots {
  private free: number
  private waiters: Array<() => void> = []
  constructor(n: number) {
    this.free = Math.max(1, n)
  }
  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--
      return
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve))
  }
  give() {
    const next = this.waiters.shift()
    if (next) next()
    else this.free++
  }
}

/**
 * Runs every item of a batch, at most as many at once as `slots` allows (shared by all
 * batches of the runner); answers the items whose run threw, each with its error.
 */
export async function runItems(items: BatchItem[], slots: Slots, run: (item: BatchItem) => Promise<void>): Promise<Array<{ item: BatchItem; error: unknown }>> {
  const failed: Array<{ item: BatchItem; error: unknown }> = []
  await Promise.all(items.map(async (item) => {
    await slots.take()
    try {
      await run(item)
    } catch (error) {
      failed.push({ item, error })
    } finally {
      slots.give()
    }
  }))
  return failed
}
