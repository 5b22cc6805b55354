import { describe, expect, test } from 'bun:test'
import { loadConfig } from '@/config'
import { lazy } from '@/lib/lazy'
import { startGcGovernor } from '@/lib/memory'
import { startProcess } from '@tests/helpers/process'

describe('the garbage-collection governor', () => {
  test('collects the young generation as the heap grows, and the whole heap once it grew by the budget', async () => {
    const pauses: Array<{ s: number; kind: string }> = []
    const governor = startGcGovernor({ budgetBytes: 4 * 1024 * 1024, edenBytes: 256 * 1024, minIntervalMs: 5, maxIntervalMs: 10, onCollect: (s, kind) => pauses.push({ s, kind }) })
    try {
      // keep what is allocated for a while, as requests in flight do, so some of it survives eden collections
      let held: string[][] = []
      for (let i = 0; i < 1000 && !(pauses.some((p) => p.kind === 'full') && pauses.some((p) => p.kind === 'eden')); i++) {
        held.push(Array.from({ length: 500 }, (_, j) => `row ${i} ${j} ${Math.random()}`))
        if (held.length > 100) held = []
        await Bun.sleep(2)
      }
      expect(pauses.some((p) => p.kind === 'eden')).toBe(true)
      expect(pauses.some((p) => p.kind === 'full')).toBe(true)
      for (const p of pauses) expect(p.s).toBeGreaterThan(0)
      expect(Math.max(...pauses.map((p) => p.s))).toBeLessThan(5)
    } finally {
      governor.stop()
    }
  })

  test('an idle process is left alone', async () => {
    const pauses: number[] = []
    const governor = startGcGovernor({ budgetBytes: 4 * 1024 * 1024, minIntervalMs: 10, maxIntervalMs: 40, onCollect: (s) => pauses.push(s) })
    await Bun.sleep(300)
    governor.stop()
    expect(pauses).toEqual([])
  })

  test('a budget of 0 leaves JavaScriptCore to its own policy', async () => {
    const pauses: number[] = []
    const governor = startGcGovernor({ budgetBytes: 0, minIntervalMs: 10, onCollect: (s) => pauses.push(s) })
    const held = Array.from({ length: 50 }, (_, i) => Array.from({ length: 2000 }, (_, j) => `row ${i} ${j} ${Math.random()}`))
    await Bun.sleep(100)
    governor.stop()
    expect(held.length).toBe(50)
    expect(pauses).toEqual([])
  })

  test('a running server collects under load and reports the pauses in /metrics', async () => {
    const p = await startProcess([process.execPath, 'src/index.ts'], { env: { GC_HEAP_BUDGET_MIB: '1', METRICS_TOKEN: 'scrape-token-0123456789' } })
    try {
      for (let round = 0; round < 20; round++) {
        await Promise.all(Array.from({ length: 200 }, () => fetch(`${p.url}/v1/no/such/route`).then((r) => r.arrayBuffer())))
      }
      await Bun.sleep(400)
      const text = await (await fetch(`${p.url}/metrics`, { headers: { authorization: 'Bearer scrape-token-0123456789' } })).text()
      const count = (kind: string) => Number(new RegExp(`^slipway_gc_pause_seconds_count\\{kind="${kind}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0)
      expect(count('eden') + count('full')).toBeGreaterThan(0)
    } finally {
      await p.stop()
    }
  })

  test('GC_HEAP_BUDGET_MIB defaults to 4 and is validated', () => {
    expect(loadConfig({}).gcHeapBudgetMib).toBe(4)
    expect(loadConfig({ GC_HEAP_BUDGET_MIB: '0' }).gcHeapBudgetMib).toBe(0)
    expect(() => loadConfig({ GC_HEAP_BUDGET_MIB: '-1' })).toThrow(/GC_HEAP_BUDGET_MIB/)
    expect(() => loadConfig({ GC_HEAP_BUDGET_MIB: 'lots' })).toThrow(/GC_HEAP_BUDGET_MIB/)
  })
})

describe('lazy modules', () => {
  test('one load for concurrent first calls, shared after', async () => {
    let loads = 0
    const get = lazy(async () => {
      loads++
      await Bun.sleep(5)
      return { n: loads }
    })
    const [a, b] = await Promise.all([get(), get()])
    expect(a).toBe(b)
    expect(await get()).toBe(a)
    expect(loads).toBe(1)
  })

  test('a failed load is tried again on the next call', async () => {
    let tries = 0
    const get = lazy(async () => {
      if (++tries === 1) throw new Error('disk hiccup')
      return 'loaded'
    })
    await expect(get()).rejects.toThrow('disk hiccup')
    expect(await get()).toBe('loaded')
    expect(tries).toBe(2)
  })
})
