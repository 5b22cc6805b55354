/**
 * Scheduling a job nudges the in-process dispatcher once the scheduling turn is over, so a
 * job runs without waiting for the next poll. The nudges of a burst share one timer: a
 * timer per job was a timer per published event, and cost the process about 150 MiB of
 * resident memory per 100,000 events (scripts/bench/webhooks.ts, README).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { onJobScheduled, scheduleJob } from '@/jobs/outbox'

let t: TestApp
beforeAll(async () => {
  t = await makeApp({ admin: false })
})
afterAll(() => t.close())

const settle = () => new Promise((r) => setTimeout(r, 20))
/**
 * Until `n()` reaches `count`, then one more settle for any nudge beyond it. A fixed 20 ms was
 * not enough on a busy machine: a process paused for longer had the settle's timer come due
 * before the nudge timer set after it, and counted one nudge short.
 */
async function settleAt(n: () => number, count: number) {
  for (const end = Date.now() + 5000; n() < count && Date.now() < end;) await settle()
  await settle()
}

test('a burst of jobs in one transaction is one nudge and one more after it, not one per job', async () => {
  let nudges = 0
  const stop = onJobScheduled(() => nudges++)
  try {
    const now = t.clock.now()
    await t.deps.database.write(async (tx) => {
      for (let i = 0; i < 100; i++) await scheduleJob(tx, { topic: 'test.nudge', payload: { i } }, now)
    })
    await settleAt(() => nudges, 2)
    expect(nudges).toBe(2)
  } finally {
    stop()
  }
})

test('a job scheduled after a nudge went out gets a nudge of its own', async () => {
  const seen: number[] = []
  let scheduled = 0
  const stop = onJobScheduled(() => seen.push(scheduled))
  try {
    const now = t.clock.now()
    for (let i = 0; i < 3; i++) {
      await t.deps.database.write((tx) => scheduleJob(tx, { topic: 'test.nudge', payload: { i } }, now))
      scheduled++
      await settleAt(() => seen.length, scheduled)
      // every listener call came after the job it announces was committed
      expect(seen.at(-1)).toBe(scheduled)
    }
    expect(seen.length).toBe(3)
  } finally {
    stop()
  }
})
