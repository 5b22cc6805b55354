/**
 * A preload (`bun --preload scripts/bench/servers/timer-costs.ts src/index.ts`): which timers run on the
 * JavaScript thread, how often, and the thread CPU of each callback's synchronous part (thread-clock.ts).
 * Each `setTimeout` and `setInterval` is counted by where it was set (three frames of the stack). On
 * SIGUSR2 it writes what it counted since the last signal to TIMER_COSTS_OUT (count, total µs, largest
 * µs, site) and starts again. What a callback starts without waiting (a query's promise) is not counted.
 */
import { writeFileSync } from 'node:fs'
import { threadMicros } from '../thread-clock'

const counted = new Map<string, { n: number; us: number; max: number }>()
const site = () => (new Error().stack ?? '').split('\n').slice(4, 7).map((l) => l.trim().replace(/^at /, '')).join(' < ')

function timed(kind: string, ms: number | undefined, fn: (...args: unknown[]) => unknown) {
  const key = `${kind} ${ms ?? 0} ms, set at ${site()}`
  return function (this: unknown, ...args: unknown[]) {
    const t0 = threadMicros()
    try {
      return fn.apply(this, args)
    } finally {
      const us = threadMicros() - t0
      const c = counted.get(key) ?? { n: 0, us: 0, max: 0 }
      c.n++
      c.us += us
      c.max = Math.max(c.max, us)
      counted.set(key, c)
    }
  }
}

const setTimeoutBefore = globalThis.setTimeout
const setIntervalBefore = globalThis.setInterval
const wrap = (kind: string, before: typeof setTimeout) => ((fn: unknown, ms?: number, ...args: unknown[]) =>
  before((typeof fn === 'function' ? timed(kind, ms, fn as (...a: unknown[]) => unknown) : fn) as () => void, ms, ...args)) as unknown as typeof setTimeout
;(globalThis as { setTimeout: unknown }).setTimeout = wrap('timeout', setTimeoutBefore)
;(globalThis as { setInterval: unknown }).setInterval = wrap('interval', setIntervalBefore as unknown as typeof setTimeout)

process.on('SIGUSR2', () => {
  const rows = [...counted].sort((a, b) => b[1].us - a[1].us).map(([k, c]) => `${c.n}\t${c.us.toFixed(0)} µs\tlargest ${c.max.toFixed(0)} µs\t${k}`)
  writeFileSync(process.env.TIMER_COSTS_OUT!, `${rows.join('\n')}\n`)
  counted.clear()
})
