/**
 * The garbage-collection governor (Bun only).
 *
 * JavaScriptCore sizes its collection thresholds from the machine's RAM, not from the
 * process's needs: on a host with a lot of memory, a busy Slipway lets garbage (and the
 * native libSQL statements that garbage holds, about 6 KB each until collected) pile up
 * for seconds, and resident memory climbs by 80 MiB or more. Slipway is meant for small
 * boxes, so this governor watches the heap and collects early:
 * - a young-generation (eden) collection once the heap has grown by `edenBytes` since
 *   the last collection: a pause of about 2 ms, which frees each request's garbage;
 * - a full collection once it has grown by `budgetBytes` since the last full one (what
 *   eden collections promote): a pause of about 20 ms on this machine.
 * It looks every 50 ms while the heap grows and backs off to every 250 ms when it does
 * not, so an idle process does next to nothing. Pauses go to `onCollect` (the metric
 * `slipway_gc_pause_seconds`). `GC_HEAP_BUDGET_MIB=0` turns it off and leaves
 * JavaScriptCore to its own policy.
 */
import { edenGC, heapSize } from 'bun:jsc'

export interface GcGovernorOptions {
  /** heap growth since the last full collection that triggers the next one */
  budgetBytes: number
  /** heap growth since the last collection of any kind that triggers an eden collection */
  edenBytes?: number
  onCollect?: (pauseSeconds: number, kind: 'eden' | 'full') => void
  /** shortest and longest look interval */
  minIntervalMs?: number
  maxIntervalMs?: number
}

export function startGcGovernor(opts: GcGovernorOptions): { stop(): void } {
  if (opts.budgetBytes <= 0) return { stop() {} }
  const eden = opts.edenBytes ?? 256 * 1024
  const min = opts.minIntervalMs ?? 50
  const max = opts.maxIntervalMs ?? 250
  let fullBase = heapSize()
  let anyBase = fullBase
  let interval = min
  let timer: ReturnType<typeof setTimeout> | undefined
  const collect = (kind: 'eden' | 'full') => {
    const t0 = performance.now()
    if (kind === 'full') Bun.gc(true)
    else edenGC()
    opts.onCollect?.((performance.now() - t0) / 1000, kind)
    anyBase = heapSize()
    if (kind === 'full') fullBase = anyBase
  }
  const tick = () => {
    const size = heapSize()
    // the engine collected on its own: measure growth from there
    if (size < anyBase) anyBase = size
    if (size < fullBase) fullBase = size
    let collected = true
    if (size - fullBase >= opts.budgetBytes) collect('full')
    else if (size - anyBase >= eden) collect('eden')
    else collected = false
    interval = collected ? min : Math.min(interval * 2, max)
    timer = setTimeout(tick, interval)
    timer.unref()
  }
  timer = setTimeout(tick, interval)
  timer.unref()
  return { stop: () => clearTimeout(timer) }
}
