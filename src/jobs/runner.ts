/**
 * The worker side: moves due outbox rows into bunqueue (durable, one job per outbox
 * id, so a crash between the two steps cannot queue a job twice) and runs each
 * topic's handler. Handlers must be idempotent: delivery is at least once.
 *
 * Several workers may share one database (processes on one file, or workers on one
 * libSQL primary), each with its own queue file. Rows are claimed before they are
 * queued, up to 100 at a time: one conditional write moves the `run_at` of rows still
 * due a lease ahead and returns them, and only the worker whose write changed a row
 * queues it. A topic marked `batch` has the rows of one pass queued as one job
 * (src/jobs/batch.ts); every other topic, one job per row. A worker that dies between the claim and the queue leaves its rows due
 * again once the lease is over; one that dies after queueing but before marking them
 * has them in its durable queue already (one job per outbox id).
 *
 * bunqueue (its code, its file and its worker) opens with the first due outbox row, not
 * at start: an idle process does not hold it (about 7 MiB resident). A start that finds
 * unfinished jobs in the queue file (a crash or a stop left them there) opens it at
 * once, and so does one that cannot tell. Until it opens, `counts()` has the outbox
 * alone.
 */
import type { Job, Queue, Worker } from 'bunqueue/client'
import type { Deps } from '../deps'
import { errorSummary } from '../lib/logger'
import { claimDueJobs, hasDueJob, markDispatched, onJobScheduled, pendingCount, type OutboxRow } from './outbox'
import { databaseScope, databasesToDrain, everyDatabase, placementOf } from '../db/placement'
import { batchJobId, runItems, Slots, type BatchItem } from './batch'
import { hasUnfinishedJobs } from './queue-file'

export { hasUnfinishedJobs }

export interface JobContext {
  deps: Deps
  /** outbox id (stable across retries) */
  id: string
  tenantId: string | null
  attempt: number
}

export interface JobDefinition {
  handler: (payload: Record<string, unknown>, ctx: JobContext) => Promise<void>
  /** bunqueue attempts, with exponential backoff from `backoffMs` */
  attempts?: number
  backoffMs?: number
  /**
   * Rows of this topic claimed in one pass run as one bunqueue job (src/jobs/batch.ts): for
   * topics of many small jobs, whose cost would otherwise be mostly bunqueue's per-job writes.
   */
  batch?: boolean
}

/** How long a claimed but not yet queued outbox row stays with the worker that claimed it. */
export const CLAIM_LEASE_MS = 60_000

/** Outbox rows claimed, queued and marked per pass: one statement each, not three per row. */
const BATCH = 100

interface QueuedJob {
  outboxId: string
  topic: string
  tenantId: string | null
  payload: Record<string, unknown>
  /** a batch (JobDefinition.batch): its rows, each run by the topic's handler */
  items?: BatchItem[]
  /** the database the row was claimed from, with tenants placed on their own (docs/scaling.md); absent: the one database */
  scope?: string
}

export class JobRunner {
  private readonly defs = new Map<string, JobDefinition>()
  private readonly startHooks: Array<(deps: Deps) => Promise<void>> = []
  private queue?: Queue<QueuedJob>
  private worker?: Worker<QueuedJob>
  private opening?: Promise<void>
  private timer?: ReturnType<typeof setInterval>
  private unsubscribe?: () => void
  private pumping: Promise<void> | null = null
  private again = false
  private stopped = false

  private readonly claimLeaseMs: number
  /** batch items in flight, across batches: at most the worker's concurrency, as single jobs */
  private readonly slots: Slots

  constructor(readonly deps: Deps, private readonly opts: { queueName: string; dataPath?: string; pollMs?: number; concurrency?: number; claimLeaseMs?: number }) {
    this.claimLeaseMs = opts.claimLeaseMs ?? CLAIM_LEASE_MS
    this.slots = new Slots(opts.concurrency ?? 8)
  }

  register(topic: string, def: JobDefinition) {
    this.defs.set(topic, def)
    return this
  }

  /**
   * Work to do when the runner starts, such as scheduling the first run of a periodic job
   * (which then schedules its next run itself). A failure is logged; the start goes on.
   */
  onStart(fn: (deps: Deps) => Promise<void>) {
    this.startHooks.push(fn)
    return this
  }

  /** Jobs by state: the outbox rows not yet queued, and bunqueue's own counts. */
  async counts(): Promise<Record<string, number>> {
    const pending = await pendingCount(this.deps.database.db)
    const q = (await (this.queue as unknown as { getJobCountsAsync?: () => Promise<Record<string, number>> })?.getJobCountsAsync?.()) ?? {}
    return { outbox: pending, ...q }
  }

  start() {
    this.deps.metrics.onCollect(async () => {
      for (const [state, n] of Object.entries(await this.counts())) if (typeof n === 'number') this.deps.metrics.queueDepth.set({ state }, n)
    })
    if (hasUnfinishedJobs(this.opts.dataPath)) this.open().catch((err) => this.deps.logger.error('job queue failed to open', errorSummary(err)))
    this.timer = setInterval(() => void this.pump(), this.opts.pollMs ?? 500)
    this.unsubscribe = onJobScheduled(() => void this.pump())
    // once per database: with tenants placed on their own, each database's periodic work runs on its own outbox
    for (const db of everyDatabase(this.deps.database)) {
      for (const hook of this.startHooks) db.run(() => hook(this.deps)).catch((err) => this.deps.logger.error('job runner start hook failed', errorSummary(err)))
    }
    void this.pump()
  }

  /** Opens bunqueue and its worker, once (a failed open is tried again by the next call). */
  open(): Promise<void> {
    this.opening ??= (async () => {
      const { Queue, Worker } = await import('bunqueue/client')
      if (this.stopped) return
      const { queueName, dataPath } = this.opts
      this.queue = new Queue<QueuedJob>(queueName, { embedded: true, dataPath })
      // A completed job is removed, not kept: each module's tables record what ran (deliveries,
      // mail, outbox), and bunqueue kept up to 50,000 completed jobs in memory, about 1.2 KB
      // each (a process that had delivered 50,000 webhooks held 83 MiB of heap after a full
      // collection, 25 MiB with this). Failed jobs stay, for the board and its dead letters.
      this.worker = new Worker<QueuedJob>(queueName, (job) => this.run(job), { embedded: true, dataPath, concurrency: this.opts.concurrency ?? 8, removeOnComplete: true })
    })().catch((err) => {
      this.opening = undefined
      throw err
    })
    return this.opening
  }

  /** Whether bunqueue has opened in this process. */
  get opened(): boolean {
    return this.queue !== undefined
  }

  /** Moves due outbox rows into the queue. Runs one pass at a time; a call during a pass schedules another. */
  pump(): Promise<void> {
    if (this.stopped) return Promise.resolve()
    if (this.pumping) {
      this.again = true
      return this.pumping
    }
    this.pumping = (async () => {
      do {
        this.again = false
        await this.dispatchDue()
      } while (this.again && !this.stopped)
    })()
      .catch((err) => this.deps.logger.error('outbox dispatch failed', errorSummary(err)))
      .finally(() => {
        this.pumping = null
      })
    return this.pumping
  }

  /**
   * Claims up to BATCH due rows in one conditional write (only rows still due and not
   * dispatched: a row another worker claimed has its `run_at` a lease ahead and is left
   * alone), queues them in one durable bulk add (one job per outbox id, so a row queued
   * twice is one job), then marks them dispatched in one write.
   */
  private async dispatchDue() {
    // the one database, or (tenants placed on their own) those with work scheduled lately, and all of them now and then
    for (const db of databasesToDrain(this.deps.database)) await db.run(() => this.dispatchFrom(db.key))
  }

  private async dispatchFrom(key: string) {
    const scope = placementOf(this.deps.database) !== undefined ? key : undefined
    for (;;) {
      if (this.stopped) return
      const now = this.deps.clock.now()
      // a placed database with nothing due costs its worker one read, not a write transaction on its primary
      if (scope !== undefined && !(await hasDueJob(this.deps.database.db, now))) return
      const claimed = await this.deps.database.write((tx) => claimDueJobs(tx, now, now + this.claimLeaseMs, BATCH))
      if (!claimed.length) return
      // A failed open leaves the claimed rows to come due again when their lease is over.
      await this.open()
      if (this.stopped) return
      await this.queue!.addBulk(this.jobsOf(claimed, scope))
      await this.deps.database.write((tx) => markDispatched(tx, claimed.map((r) => r.id), now))
      if (claimed.length < BATCH) return
    }
  }

  /** One row's bunqueue job: its id is the outbox id, durable, with the topic's attempts and backoff. */
  private singleJob(row: Pick<OutboxRow, 'id' | 'topic' | 'tenantId' | 'payload'>, scope: string | undefined, delay?: number) {
    const def = this.defs.get(row.topic)
    return {
      name: row.topic,
      data: { outboxId: row.id, topic: row.topic, tenantId: row.tenantId, payload: row.payload, ...(scope !== undefined ? { scope } : {}) } as QueuedJob,
      opts: { jobId: row.id, durable: true, attempts: def?.attempts ?? 5, backoff: { type: 'exponential' as const, delay: def?.backoffMs ?? 1000 }, ...(delay ? { delay } : {}) },
    }
  }

  /** The bunqueue jobs for claimed rows: one per row, or one per topic for batched topics. */
  private jobsOf(claimed: OutboxRow[], scope: string | undefined) {
    const batches = new Map<string, OutboxRow[]>()
    const jobs: Array<ReturnType<JobRunner['singleJob']>> = []
    for (const row of claimed) {
      if (!this.defs.get(row.topic)?.batch) jobs.push(this.singleJob(row, scope))
      else batches.set(row.topic, [...(batches.get(row.topic) ?? []), row])
    }
    for (const [topic, rows] of batches) {
      if (rows.length === 1) {
        jobs.push(this.singleJob(rows[0]!, scope))
        continue
      }
      const id = batchJobId(topic, rows.map((r) => r.id))
      const items = rows.map((r) => ({ outboxId: r.id, tenantId: r.tenantId, payload: r.payload }))
      // a batch that throws (its rows could not be queued again) runs again whole: its rows are idempotent
      const data: QueuedJob = { outboxId: id, topic, tenantId: null, payload: {}, items, ...(scope !== undefined ? { scope } : {}) }
      jobs.push({ name: topic, data, opts: { jobId: id, durable: true, attempts: 5, backoff: { type: 'exponential', delay: 1000 } } })
    }
    return jobs
  }

  private async run(job: Job<QueuedJob>) {
    const data = job.data
    const def = this.defs.get(data.topic)
    if (!def) throw new Error(`no handler for job topic ${data.topic}`)
    const inScope = databaseScope(this.deps.database, data.scope)
    if (data.items) return inScope.run(() => this.runBatch(data.topic, def, data.items!, data.scope))
    try {
      const ctx = { deps: this.deps, id: data.outboxId, tenantId: data.tenantId, attempt: (job.attemptsMade ?? 0) + 1 }
      await inScope.run(() => def.handler(data.payload, ctx))
      this.deps.metrics.job(data.topic, 'completed')
    } catch (err) {
      this.deps.metrics.job(data.topic, 'failed')
      this.deps.logger.warn('job failed', { topic: data.topic, jobId: data.outboxId, attempt: (job.attemptsMade ?? 0) + 1, ...errorSummary(err) })
      throw err
    }
  }

  /** Each row of a batch through the topic's handler (src/jobs/batch.ts); rows that throw are queued again alone, before the batch ends. */
  private async runBatch(topic: string, def: JobDefinition, items: BatchItem[], scope: string | undefined) {
    const failed = await runItems(items, this.slots, async (item) => {
      await def.handler(item.payload, { deps: this.deps, id: item.outboxId, tenantId: item.tenantId, attempt: 1 })
      this.deps.metrics.job(topic, 'completed')
    })
    if (!failed.length) return
    for (const { item, error } of failed) {
      this.deps.metrics.job(topic, 'failed')
      this.deps.logger.warn('job failed', { topic, jobId: item.outboxId, attempt: 1, ...errorSummary(error) })
    }
    // the first retry after the topic's backoff, as bunqueue's own retry of a single job would be
    await this.queue!.addBulk(failed.map(({ item }) => this.singleJob({ id: item.outboxId, topic, tenantId: item.tenantId, payload: item.payload }, scope, def.backoffMs ?? 1000)))
  }

  /** Stops polling, lets running jobs finish, and flushes the queue's buffered writes. */
  async stop() {
    this.stopped = true
    if (this.timer) clearInterval(this.timer)
    this.unsubscribe?.()
    await this.pumping
    await this.opening?.catch(() => undefined)
    await this.worker?.close()
    await (this.queue as unknown as { close?: () => Promise<void> })?.close?.()
  }

  get bunQueue() {
    return this.queue
  }
}
