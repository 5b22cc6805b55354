/**
 * The bound on how far an edge's pulls are behind its own writes (src/db/replica.ts, `beforeWrite`):
 * with pulls off the event loop, a write waits while `maxBehind` or more of this process's writes
 * are not yet pulled, and goes on once a pull begun after enough of them has finished; a write whose
 * deadline comes first is not sent. The pulls here are held and released by the test (a pull's
 * answer is the only thing ReplicaSync reads of it), so nothing depends on timing.
 */
import { describe, expect, test } from 'bun:test'
import { ReplicaSync } from '@/db/client'

function heldPulls() {
  const waiting: Array<() => void> = []
  let begun = 0
  const pull = () => {
    begun++
    return new Promise<{ frames_synced: number; frame_no: number }>((resolve) => waiting.push(() => resolve({ frames_synced: 3, frame_no: begun })))
  }
  return { pull, begun: () => begun, release: () => waiting.shift()?.() }
}

const tick = () => new Promise((r) => setTimeout(r, 0))
const far = () => Date.now() + 60_000

describe('an edge\'s writes bounded by its pulls', () => {
  test('past the bound a write waits for a pull begun after the writes, which a write at half the bound has started', async () => {
    const p = heldPulls()
    const sync = new ReplicaSync(p.pull, 'http://127.0.0.1:9', 1000, 5000, 4)
    expect(await sync.beforeWrite(far())).toBe(true)
    for (let i = 0; i < 2; i++) {
      sync.ledger.writtenAny()
      sync.wrote()
    }
    await tick()
    // half the bound: a pull began in the background, covering the 2 writes so far
    expect(p.begun()).toBe(1)
    for (let i = 0; i < 2; i++) {
      sync.ledger.writtenAny()
      sync.wrote()
    }
    let through = false
    const waiting = sync.beforeWrite(far()).then((ok) => { through = ok })
    await tick()
    expect(through).toBe(false)
    // the pull finishes: 2 of the 4 writes are pulled, 2 behind, under the bound
    p.release()
    await waiting
    expect(through).toBe(true)
    expect(sync.status()).toMatchObject({ pulls: 1, framesPulled: 3 })
  })

  test('a write still waiting at its deadline is refused (not sent)', async () => {
    const p = heldPulls()
    const sync = new ReplicaSync(p.pull, 'http://127.0.0.1:9', 1000, 5000, 2)
    for (let i = 0; i < 2; i++) sync.ledger.writtenAny()
    expect(await sync.beforeWrite(Date.now() + 30)).toBe(false)
    expect(p.begun()).toBe(1)
    p.release()
  })

  test('no bound (0, the synchronous pull): a write never waits for a pull', async () => {
    const p = heldPulls()
    const sync = new ReplicaSync(p.pull, 'http://127.0.0.1:9', 1000, 5000, 0)
    for (let i = 0; i < 100; i++) {
      sync.ledger.writtenAny()
      sync.wrote()
    }
    expect(await sync.beforeWrite(far())).toBe(true)
    await tick()
    expect(p.begun()).toBe(0)
  })

  test('a primary that cannot be reached: writes are not held for pulls that fail', async () => {
    const sync = new ReplicaSync(() => Promise.reject(new Error('unreachable')), 'http://127.0.0.1:9', 1000, 5000, 2)
    for (let i = 0; i < 3; i++) sync.ledger.writtenAny()
    expect(await sync.beforeWrite(far())).toBe(true)
    expect(sync.primaryReachable).toBe(false)
  })
})
