import { describe, expect, test } from 'bun:test'
import { loadConfig } from '@/config'
import { lazy } from '@/lib/lazy'
import { startGcGovernor } from '@/lib/memory'
import { startProcess } from '@tests/helpers/process'

describe('the garbage-collection governor', () => {
  test('runs a full collection once the heap has grown by the budget, and reports its pause', async () => {
    const pauses: number[] = []
    const governor = startGcGovernor({ budgetBytes: 1024 * 1024, intervalMs: 10, onCollect: (s) => pauses.push(s) })
    try {
      // hold about 8 MiB for a moment, as a burst of requests would
      let held: string[][] = []
      for (let i = 0; i < 200 && pauses.length === 0; i++) {
        held.push(Array.from({ length: 2000 }, (_, j) => `row ${i} ${j} ${Math.random()}`))
        if (held.length > 40) held = []
        await Bun.sleep(5)
      }
      expect(pauses.length).toBeGreaterThan(0)
      expect(pauses[0]).toBeGreaterThan(0)
      expect(pauses[0]).toBeLessThan(5)
    } finally {
      governor.stop()
    }
  })

  test('a budget of 0 leaves JavaScriptCore to its own policy', async () => {
    const pauses: number[] = []
    const governor = startGcGovernor({ budgetBytes: 0, intervalMs: 10, onCollect: (s) => pauses.push(s) })
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
      const count = Number(/^slipway_gc_pause_seconds_count (\d+)/m.exec(text)?.[1])
      expect(count).toBeGreaterThan(0)
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
