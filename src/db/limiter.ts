/**
 * The bound on writes in flight per process (DATABASE_MAX_WRITES). A write past the bound waits
 * in line, first come first served, for at most DATABASE_WRITE_WAIT_MS; one still waiting then
 * answers 503 DATABASE_BUSY with `retry-after`, quickly, instead of joining a queue that would
 * run into DATABASE_TIMEOUT_MS (what made 3 edges x 32 connections collapse: every request
 * waited, none finished in time, and the primary kept working for answers nobody read).
 */
import { DatabaseBusyError } from './errors'

export const DEFAULT_MAX_WRITES = 32
export const DEFAULT_WRITE_WAIT_MS = 1000

export class WriteLimiter {
  private inFlight = 0
  private readonly waiting: Array<{ go: () => void }> = []
  /** writes refused since start (for the metrics and the tests) */
  refused = 0

  constructor(readonly max: number, readonly waitMs: number) {}

  get active() {
    return this.inFlight
  }

  /**
   * Runs `fn` once a place is free, within `waitMs` (or `maxWaitMs`, when less: what is left of the caller's
   * own deadline); else DatabaseBusyError. `fn` is told how long it waited.
   */
  async run<T>(fn: (waitedMs: number) => Promise<T>, maxWaitMs = this.waitMs): Promise<T> {
    const t0 = Date.now()
    if (this.inFlight >= this.max) await this.wait(Math.max(0, Math.min(this.waitMs, maxWaitMs)))
    else this.inFlight++
    try {
      return await fn(Date.now() - t0)
    } finally {
      const next = this.waiting.shift()
      // the place passes to the next in line, or is freed
      if (next) next.go()
      else this.inFlight--
    }
  }

  private wait(waitMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry = {
        go: () => {
          clearTimeout(timer)
          resolve()
        },
      }
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(entry)
        if (i >= 0) this.waiting.splice(i, 1)
        this.refused++
        reject(new DatabaseBusyError(Math.max(1, Math.ceil(this.waitMs / 1000))))
      }, waitMs)
      this.waiting.push(entry)
    })
  }
}
