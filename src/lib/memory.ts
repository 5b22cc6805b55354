/**
 * The garbage-collection governor (Bun only).
 *
 * JavaScriptCore sizes its collection thresholds from the machine's RAM, not from the
 * process's needs: on a host with a lot of memory, a busy Slipway lets garbage (and the
 * native statements and buffers that garbage holds) pile up for seconds before a full
 * collection, and resident memory climbs by 80 MiB or more. Slipway is meant for small
 * boxes, so this governor checks the heap every `intervalMs` and runs a full collection
 * once the heap has grown by `budgetBytes` since the last one. Idle processes never
 * collect; busy ones collect a few times a second, each a pause of a few tens of
 * milliseconds (reported to `onCollect`, which feeds `slipway_gc_pause_seconds`).
 * `GC_HEAP_BUDGET_MIB=0` turns it off and leaves JavaScriptCore to its own policy.
 */
import { heapSize } from 'bun:jsc'

export interface GcGovernorOptions {
  budgetBytes: number
  intervalMs?: number
  onCollect?: (pauseSeconds: number) => void
}

export function startGcGovernor(opts: GcGovernorOptions): { stop(): void } {
  if (opts.budgetBytes <= 0) return { stop() {} }
  let base = heapSize()
  const timer = setInterval(() => {
    if (heapSize() - base < opts.budgetBytes) return
    const t0 = performance.now()
    Bun.gc(true)
    opts.onCollect?.((performance.now() - t0) / 1000)
    base = heapSize()
  }, opts.intervalMs ?? 250)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
