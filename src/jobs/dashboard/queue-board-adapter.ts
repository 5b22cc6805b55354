/**
 * bull-board has no adapter for bunqueue; this one shows a bunqueue queue through
 * bunqueue's BullMQ-style reads. The dashboard is read-only: every action refuses.
 */
import { BaseAdapter } from '@bull-board/api/dist/queueAdapters/base.js'
import type { JobCleanStatus, JobCounts, JobStatus, QueueJob, QueueJobJson, Status } from '@bull-board/api/typings/app'

interface BunqueueJob {
  id: string
  name: string
  data: unknown
  progress?: unknown
  attemptsMade?: number
  timestamp?: number
  processedOn?: number | null
  finishedOn?: number | null
  failedReason?: string | null
  stacktrace?: string[] | null
  returnvalue?: unknown
  opts?: Record<string, unknown>
  delay?: number
}

export interface BunqueueReads {
  name: string
  getJob(id: string): Promise<BunqueueJob | null>
  getJobState(id: string): Promise<string>
  getJobsAsync(opts: { state?: string | string[]; start?: number; end?: number; asc?: boolean }): Promise<BunqueueJob[]>
  getJobCountsAsync(): Promise<Record<string, number>>
  getJobLogs(id: string): Promise<{ logs: string[] }>
  isPausedAsync(): Promise<boolean>
}

const STATUSES = ['active', 'waiting', 'prioritized', 'completed', 'failed', 'delayed', 'paused'] as const
const readOnly = async (): Promise<never> => {
  throw new Error('The queue dashboard is read-only')
}

function toQueueJob(job: BunqueueJob, state: () => Promise<string>): QueueJob {
  const json: QueueJobJson = {
    id: job.id,
    name: job.name,
    data: job.data,
    progress: (job.progress as number | object | undefined) ?? 0,
    attemptsMade: job.attemptsMade ?? 0,
    timestamp: job.timestamp ?? 0,
    processedOn: job.processedOn ?? null,
    finishedOn: job.finishedOn ?? null,
    failedReason: job.failedReason ?? '',
    stacktrace: job.stacktrace ?? null,
    returnvalue: job.returnvalue ?? null,
    opts: job.opts ?? {},
    delay: job.delay,
  }
  return {
    opts: { delay: job.delay },
    promote: readOnly,
    remove: readOnly,
    retry: readOnly,
    toJSON: () => json,
    getState: state as QueueJob['getState'],
  }
}

export class BunqueueBoardAdapter extends BaseAdapter {
  /** `queue` is read at each call: the worker's queue exists only once the runner started. */
  constructor(private readonly queue: () => BunqueueReads | undefined, private readonly label: string) {
    super('bullmq', { readOnlyMode: true, allowRetries: false, displayName: label, description: 'bunqueue (embedded SQLite), read-only' })
  }

  getName() {
    return this.queue()?.name ?? this.label
  }

  async getRedisInfo(): Promise<string> {
    // Redis details are hidden in the board's UI config; bunqueue has no Redis.
    return ''
  }

  async getJob(id: string) {
    const q = this.queue()
    const job = q ? await q.getJob(id) : null
    return job ? toQueueJob(job, () => q!.getJobState(id)) : null
  }

  async getJobs(statuses: JobStatus[], start = 0, end = 9) {
    const q = this.queue()
    if (!q) return []
    const jobs = await q.getJobsAsync({ state: statuses as string[], start, end, asc: false })
    const state = statuses.length === 1 ? statuses[0]! : 'unknown'
    return jobs.map((j) => toQueueJob(j, async () => state))
  }

  async getJobCounts(): Promise<JobCounts> {
    const q = this.queue()
    const counts = q ? await q.getJobCountsAsync() : {}
    return Object.fromEntries(STATUSES.map((s) => [s, counts[s] ?? 0])) as JobCounts
  }

  async getJobLogs(id: string) {
    const q = this.queue()
    return q ? (await q.getJobLogs(id)).logs : []
  }

  async isPaused() {
    return (await this.queue()?.isPausedAsync()) ?? false
  }

  getStatuses(): Status[] {
    return ['latest', ...STATUSES] as Status[]
  }

  getJobStatuses(): JobStatus[] {
    return [...STATUSES] as JobStatus[]
  }

  async getGlobalConcurrency() {
    return null
  }

  clean(_status: JobCleanStatus, _grace: number) { return readOnly() }
  addJob(): Promise<QueueJob> { return readOnly() }
  pause() { return readOnly() }
  resume() { return readOnly() }
  empty() { return readOnly() }
  obliterate() { return readOnly() }
  promoteAll() { return readOnly() }
  removeJobScheduler(): Promise<boolean> { return readOnly() }
  setGlobalConcurrency() { return readOnly() }
}
