/**
 * A simulator given a persistence (src/sandbox/bank-ramp/persistence.ts) on Slipway's database:
 * the per-account bounds and expiry of its stores apply to the saved rows too (an evicted or
 * expired entry's row is deleted, an expired row is not loaded), and a save the database
 * refuses answers 503 and is made by the next request.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { createBankRampSimulator, type SimulatorOptions } from '@/sandbox/bank-ramp/app'
import { libsqlPersistence } from '@/sandbox/bank-ramp/repo'
import type { SimulatorPersistence } from '@/sandbox/bank-ramp/persistence'
import { sandboxBankRampRecords } from '@/sandbox/bank-ramp/schema'

const BASE = 'http://sim.test'
let t: TestApp
let clock = Date.parse('2026-11-20T10:00:00Z')
const now = () => clock

beforeAll(async () => {
  t = await makeApp()
})
afterAll(() => t.close())

function simulator(opts: Partial<SimulatorOptions> = {}) {
  const sim = createBankRampSimulator({
    accounts: (k) => (k.startsWith('key-') ? { id: k.slice(4) } : null),
    publicUrl: () => BASE,
    now,
    persistence: libsqlPersistence(t.deps.database, now),
    ...opts,
  })
  const onboard = async (account: string, customerId: string) => {
    const res = await sim.fetch(new Request(`${BASE}/v1/onboarding/${customerId}`, {
      method: 'POST', headers: { 'x-api-key': `key-${account}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ReturnURL: 'https://app.test/back', FiatOptions: [{ FiatCurrencyCode: 'EUR' }] }),
    }))
    return { status: res.status, url: (await res.json()).HostedURL as string | undefined }
  }
  return { sim, onboard }
}

const rows = (kind: string, accountId: string) =>
  t.deps.database.db.select().from(sandboxBankRampRecords).where(eq(sandboxBankRampRecords.kind, kind)).all()
    .then((all) => all.filter((r) => r.accountId === accountId))

test('an evicted or expired entry\'s row is deleted, and an expired row is not loaded again', async () => {
  const limits = { sessions: { perAccount: 2, ttlMs: 3600_000, graceMs: 0 } }
  const { onboard } = simulator({ limits })
  const links = []
  for (let i = 0; i < 3; i++) links.push((await onboard('bounded', 'c1')).url!)
  // the bound: the oldest link was evicted, and its row with it
  const saved = await rows('sessions', 'bounded')
  expect(saved.map((r) => r.id).sort()).toEqual(links.slice(1).map((u) => u.split('/').pop()!).sort())
  expect(saved.every((r) => r.customerId === 'c1')).toBe(true)

  // a restart loads the two live links: they open
  const second = simulator({ limits })
  expect((await second.sim.fetch(new Request(links[2]!))).status).toBe(200)
  expect((await second.sim.fetch(new Request(links[0]!))).status).toBe(404)

  // past their deadline (24 hours): expired rows are deleted by the next write of the account ...
  clock += 25 * 3600_000
  await second.onboard('bounded', 'c1')
  expect((await rows('sessions', 'bounded')).length).toBe(1)
  // ... and at load: a simulator started later does not load them
  clock += 25 * 3600_000
  const third = simulator({ limits })
  expect((await third.sim.fetch(new Request(links[2]!))).status).toBe(404)
  expect(await rows('sessions', 'bounded')).toEqual([])
})

test('a save the database refuses answers 503, and the next request saves the change', async () => {
  const real = libsqlPersistence(t.deps.database, now)
  let failNext = true
  const flaky: SimulatorPersistence = {
    ...real,
    save: (changes, seq) => {
      if (failNext) {
        failNext = false
        return Promise.reject(new Error('database unavailable'))
      }
      return real.save(changes, seq)
    },
  }
  const { onboard } = simulator({ persistence: flaky })
  expect((await onboard('flaky', 'c1')).status).toBe(503)
  expect(await rows('customers', 'flaky')).toEqual([])
  // the customer was made in memory: the next call answers 200 (not 201) and saves both
  expect((await onboard('flaky', 'c1')).status).toBe(200)
  expect((await rows('customers', 'flaky')).map((r) => r.id)).toEqual(['flaky:c1'])
  expect((await rows('sessions', 'flaky')).length).toBe(2)
})

test('IBAN numbers come from one counter in the database: simulators that never saw each other never hand out the same one', async () => {
  const a = libsqlPersistence(t.deps.database, now)
  const b = libsqlPersistence(t.deps.database, now)
  const numbers = await Promise.all([a, b, a, b, a, b].map((p) => p.nextIbanNumber()))
  expect(new Set(numbers).size).toBe(6)
  expect(Math.min(...numbers)).toBeGreaterThan(1_000_000)
})
