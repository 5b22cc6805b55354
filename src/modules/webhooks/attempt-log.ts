/**
 * Records finished delivery attempts, several in one write transaction (group commit).
 *
 * Each attempt job waits until its own record is committed before it returns, so the
 * queue marks a job done only after its attempt is in the database: a crash between
 * the POST and the commit leaves the job unfinished in the durable queue, it runs again
 * after the restart, finds the delivery still at that attempt, and sends again (at
 * least once, never lost). At most the worker's concurrency can be in that window, as
 * before batching.
 *
 * A transaction starts as soon as every attempt under way has finished (none is left to
 * join it), or 2 ms after the first record waiting for it, whichever comes first; records
 * that arrive while one is open go into the next, which starts when it commits. So under
 * load each commit carries the attempts that finished together, and an attempt alone is
 * recorded at once. If a batch's transaction fails, each record is written again alone,
 * so one bad record cannot fail the others; a record that still fails rejects its own
 * job (bunqueue retries it: the delivery is sent again, never dropped).
 */
import type { Deps } from '../../deps'
import type { Tx } from '../../db/client'
import { currentScope, type CurrentScope } from '../../db/placement'
import { insertAttempts, settleAttempts, type DeliveryRow } from './repo'
import { retryAt, scheduleAttempt, type DeliveryJobPayload } from './schedule'
import type { AttemptOutcome } from './transport'

export interface FinishedAttempt {
  delivery: Pick<DeliveryRow, 'id' | 'tenantId' | 'maxAttempts'>
  job: DeliveryJobPayload
  outcome: AttemptOutcome
  /** when the attempt started (Unix ms) */
  at: number
  durationMs: number
}

/** Attempts per transaction at most, so one commit never holds the write gate long. */
const MAX_BATCH = 64
/** The longest a finished attempt waits for others before its transaction starts. */
const MAX_WAIT_MS = 2

interface Waiting {
  attempt: FinishedAttempt
  /** the database its job works on: with tenants placed on their own (docs/scaling.md), one transaction takes one database's records */
  scope: CurrentScope
  resolve: () => void
  reject: (err: unknown) => void
}

export class AttemptLog {
  private waiting: Waiting[] = []
  private timer: ReturnType<typeof setTimeout> | null = null
  private writing = false
  /** Attempts begun and not yet recorded or abandoned: the ones a commit may still wait for. */
  private running = 0
  /** Transactions committed (batches and single retries), for tests. */
  transactions = 0

  constructor(private readonly deps: Pick<Deps, 'database' | 'clock'>, private readonly maxWaitMs = MAX_WAIT_MS) {}

  /** An attempt begins: a commit may wait up to `maxWaitMs` for it to finish and share the transaction. */
  begin() {
    this.running++
  }

  /** An attempt begun ends without a record (nothing to send, or it threw). */
  abandon() {
    this.running--
    this.schedule()
  }

  /**
   * Ends an attempt begun with `begin`: resolves once the attempt, the delivery's new
   * state and any next attempt are committed; rejects when they could not be.
   */
  record(attempt: FinishedAttempt): Promise<void> {
    this.running--
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ attempt, scope: currentScope(this.deps.database), resolve, reject })
      this.schedule()
    })
  }

  /**
   * Commits at once when every running attempt is waiting (none can join), or the batch
   * is full; otherwise within `maxWaitMs` of the first waiting record.
   */
  private schedule() {
    if (this.writing || !this.waiting.length) return
    if (this.running <= 0 || this.waiting.length >= MAX_BATCH) {
      if (this.timer) clearTimeout(this.timer)
      this.timer = null
      void this.flush()
      return
    }
    this.timer ??= setTimeout(() => {
      this.timer = null
      void this.flush()
    }, this.maxWaitMs)
  }

  private async flush() {
    if (this.writing || !this.waiting.length) return
    this.writing = true
    // the records of the first one's database (all of them, without a placement)
    const { scope } = this.waiting[0]!
    const batch: Waiting[] = []
    this.waiting = this.waiting.filter((w) => (w.scope.database === scope.database && batch.length < MAX_BATCH ? (batch.push(w), false) : true))
    const write = (attempts: FinishedAttempt[]) => scope.run(() => this.deps.database.write((tx) => writeAttempts(tx, this.deps.clock.now(), attempts)))
    try {
      await write(batch.map((w) => w.attempt))
      this.transactions++
      for (const w of batch) w.resolve()
    } catch {
      for (const w of batch) {
        try {
          await write([w.attempt])
          this.transactions++
          w.resolve()
        } catch (err) {
          w.reject(err)
        }
      }
    } finally {
      this.writing = false
      // the records that came during this transaction have waited for it already
      if (this.waiting.length) void this.flush()
    }
  }
}

/**
 * The attempts' rows, then each delivery's new state, only where the delivery is still
 * at that attempt (dropped or re-queued meanwhile: the attempt is logged, the schedule
 * is not continued), and the next attempt of a failure that has attempts left. One
 * insert and one update per tenant in the batch, not two statements per attempt.
 */
async function writeAttempts(tx: Tx, now: number, attempts: FinishedAttempt[]) {
  for (const [tenantId, ofTenant] of byTenant(attempts)) {
    await insertAttempts(tx, tenantId, ofTenant.map(({ delivery, job, outcome, at, durationMs }) => ({
      deliveryId: delivery.id, round: job.round, attempt: job.attempt, at, statusCode: outcome.statusCode, error: outcome.error, durationMs,
    })))
    // A delivery twice in one batch (the same attempt run twice) is settled in a later
    // statement, so the first one settles it and the second finds it moved on, as one at a time.
    let rest = ofTenant
    while (rest.length) {
      const seen = new Set<string>()
      const first: FinishedAttempt[] = []
      const later: FinishedAttempt[] = []
      for (const a of rest) {
        if (seen.has(a.delivery.id)) later.push(a)
        else first.push(a)
        seen.add(a.delivery.id)
      }
      const settled = await settleAttempts(tx, tenantId, first.map(({ delivery: d, job, outcome }) => {
        const last = job.attempt >= d.maxAttempts
        const nextAttemptAt = outcome.ok || last ? null : retryAt(job.attempt, now)
        return {
          id: d.id, round: job.round, attempt: job.attempt,
          status: outcome.ok ? 'done' as const : last ? 'failed' as const : 'queued' as const,
          lastStatusCode: outcome.statusCode, lastError: outcome.error, nextAttemptAt,
        }
      }), now)
      for (const row of settled) {
        if (row.status !== 'queued' || row.nextAttemptAt === null) continue
        await scheduleAttempt(tx, tenantId, { deliveryId: row.id, round: row.round, attempt: row.attempts + 1 }, row.nextAttemptAt, now)
      }
      rest = later
    }
  }
}

function byTenant(attempts: FinishedAttempt[]): Map<string, FinishedAttempt[]> {
  const out = new Map<string, FinishedAttempt[]>()
  for (const a of attempts) {
    const list = out.get(a.delivery.tenantId)
    if (list) list.push(a)
    else out.set(a.delivery.tenantId, [a])
  }
  return out
}
