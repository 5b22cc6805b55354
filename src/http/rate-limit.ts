/**
 * Per-route, per-client-IP limits with fixed windows, counted in this process's
 * memory as the spec says ("counters are kept in memory by each API instance").
 */
import type { Clock } from '../lib/clock'

export interface LimitResult {
  allowed: boolean
  limit: number
  remaining: number
  /** seconds until the window resets */
  resetSeconds: number
}

export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>()
  private lastSweep = 0
  constructor(private readonly clock: Clock) {}

  hit(bucket: string, max: number, windowMs: number): LimitResult {
    const now = this.clock.now()
    this.sweep(now, windowMs)
    let w = this.windows.get(bucket)
    if (!w || now - w.start >= windowMs) {
      w = { start: now, count: 0 }
      this.windows.set(bucket, w)
    }
    w.count++
    const resetSeconds = Math.max(1, Math.ceil((w.start + windowMs - now) / 1000))
    return { allowed: w.count <= max, limit: max, remaining: Math.max(0, max - w.count), resetSeconds }
  }

  /** The bucket's state without counting a hit: for limits that count only failures. */
  peek(bucket: string, max: number, windowMs: number): LimitResult {
    const now = this.clock.now()
    const w = this.windows.get(bucket)
    if (!w || now - w.start >= windowMs) return { allowed: true, limit: max, remaining: max, resetSeconds: Math.max(1, Math.ceil(windowMs / 1000)) }
    const resetSeconds = Math.max(1, Math.ceil((w.start + windowMs - now) / 1000))
    return { allowed: w.count < max, limit: max, remaining: Math.max(0, max - w.count), resetSeconds }
  }

  /** Drops finished windows now and then, so memory stays bounded by active clients. */
  private sweep(now: number, windowMs: number) {
    if (now - this.lastSweep < 60_000 || this.windows.size < 10_000) return
    this.lastSweep = now
    for (const [k, w] of this.windows) if (now - w.start >= Math.max(windowMs, 3_600_000)) this.windows.delete(k)
  }

  reset() {
    this.windows.clear()
  }
}
