/**
 * The attempt log's group commit on a real database: the attempts that finish together
 * share one transaction, each record is exactly what one attempt at a time wrote, a
 * delivery moved on meanwhile is logged but not settled, and one bad record fails
 * alone.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { and, eq } from 'drizzle-orm'
import { makeApp, ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, type Tenant } from '@tests/helpers/factories'
import { outbox } from '@/jobs/schema'
import { AttemptLog, type FinishedAttempt } from '@/modules/webhooks/attempt-log'
import { publishEvent } from '@/modules/webhooks/publish'
import { dropDelivery } from '@/modules/webhooks/repo'
import { RETRY_DELAYS_MS } from '@/modules/webhooks/schedule'
import { webhookDeliveries, webhookDeliveryAttempts } from '@/modules/webhooks/schema'

let t: TestApp
let clock: ManualClock
let f: Factory
let tenant: Tenant

beforeAll(async () => {
  clock = new ManualClock(Date.now())
  // No runner: the tests record attempts themselves.
  t = await makeApp({ clock, env: { WEBHOOK_DEV_ROUTES: 'hooks.slipway.test=http://127.0.0.1:9' } })
  f = new Factory(t)
  const admin = await f.adminToken()
  tenant = await f.tenant({ bankRamp: { sandbox: { connected: true } } })
  const res = await f.api.put(`/v1/admin/tenants/${tenant.id}/webhooks/sandbox`, { url: 'https://hooks.slipway.test/log' }, { token: admin })
  expect(res.status).toBe(201)
})
afterAll(() => t.close())

async function newDelivery() {
  const id = await t.deps.database.write((tx) => publishEvent(tx, {
    tenantId: tenant.id, environment: 'sandbox', type: 'ramp.kyc.updated', data: { userId: 'u1', kycStatus: 'approved' }, occurredAt: clock.now(),
  }, clock.now()))
  return (await t.deps.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id!)).get())!
}

const finished = (d: { id: string; tenantId: string; maxAttempts: number }, ok: boolean, over: Partial<FinishedAttempt> = {}): FinishedAttempt => ({
  delivery: d,
  job: { deliveryId: d.id, round: 1, attempt: 1 },
  outcome: ok ? { ok: true, statusCode: 204, error: null } : { ok: false, statusCode: 500, error: 'answered 500' },
  at: clock.now(),
  durationMs: 3,
  ...over,
})

const attemptsOf = (id: string) => t.deps.database.db.select().from(webhookDeliveryAttempts)
  .where(and(eq(webhookDeliveryAttempts.tenantId, tenant.id), eq(webhookDeliveryAttempts.deliveryId, id))).all()
const deliveryOf = (id: string) => t.deps.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get()
const jobOf = (id: string) => t.deps.database.db.select().from(outbox).where(eq(outbox.id, id)).get()

describe('attempt log', () => {
  test('attempts finishing together share one transaction; each is recorded as one at a time would', async () => {
    const [a, b, c] = [await newDelivery(), await newDelivery(), await newDelivery()]
    const log = new AttemptLog(t.deps, 1000)
    for (let i = 0; i < 3; i++) log.begin()
    await Promise.all([log.record(finished(a, true)), log.record(finished(b, false)), log.record(finished(c, true))])
    expect(log.transactions).toBe(1)

    for (const d of [a, c]) {
      expect(await deliveryOf(d.id)).toMatchObject({ status: 'done', attempts: 1, lastStatusCode: 204, lastError: null, nextAttemptAt: null })
      expect(await attemptsOf(d.id)).toMatchObject([{ round: 1, attempt: 1, statusCode: 204, error: null, durationMs: 3 }])
    }
    // the failure is queued again on the spec schedule, with its next attempt's job
    const retryAt = clock.now() + RETRY_DELAYS_MS[0]!
    expect(await deliveryOf(b.id)).toMatchObject({ status: 'queued', attempts: 1, lastStatusCode: 500, lastError: 'answered 500', nextAttemptAt: retryAt })
    expect(await attemptsOf(b.id)).toMatchObject([{ round: 1, attempt: 1, statusCode: 500, error: 'answered 500' }])
    expect(await jobOf(`${b.id}:1:2`)).toMatchObject({ runAt: retryAt, tenantId: tenant.id, payload: { deliveryId: b.id, round: 1, attempt: 2 } })
  })

  test('a record waits for the attempts still running, but at most the wait given', async () => {
    const d = await newDelivery()
    const log = new AttemptLog(t.deps, 30)
    log.begin()
    log.begin() // never finishes
    const started = performance.now()
    await log.record(finished(d, true))
    expect(performance.now() - started).toBeGreaterThanOrEqual(25)
    expect(await deliveryOf(d.id)).toMatchObject({ status: 'done' })
    // alone, it does not wait at all
    const e = await newDelivery()
    const alone = new AttemptLog(t.deps, 10_000)
    alone.begin()
    await alone.record(finished(e, true))
    expect(await deliveryOf(e.id)).toMatchObject({ status: 'done' })
  })

  test('the last of 10 failed attempts stops the delivery: failed, no next attempt', async () => {
    const d = await newDelivery()
    await t.deps.database.write((tx) => tx.update(webhookDeliveries).set({ attempts: 9 }).where(eq(webhookDeliveries.id, d.id)))
    const log = new AttemptLog(t.deps)
    log.begin()
    await log.record(finished(d, false, { job: { deliveryId: d.id, round: 1, attempt: 10 } }))
    expect(await deliveryOf(d.id)).toMatchObject({ status: 'failed', attempts: 10, nextAttemptAt: null })
    expect(await jobOf(`${d.id}:1:11`)).toBeUndefined()
  })

  test('a delivery dropped meanwhile, or the same attempt recorded twice: logged, settled once, never scheduled again', async () => {
    const dropped = await newDelivery()
    await t.deps.database.write((tx) => dropDelivery(tx, tenant.id, dropped.id, 1, 'webhook disabled', clock.now()))
    const twice = await newDelivery()
    const log = new AttemptLog(t.deps)
    for (let i = 0; i < 3; i++) log.begin()
    await Promise.all([log.record(finished(dropped, false)), log.record(finished(twice, false)), log.record(finished(twice, true))])
    expect(await deliveryOf(dropped.id)).toMatchObject({ status: 'dropped', attempts: 0, lastError: 'webhook disabled' })
    expect(await attemptsOf(dropped.id)).toHaveLength(1)
    expect(await jobOf(`${dropped.id}:1:2`)).toBeUndefined()
    // the first record of the pair settles it (a failure: queued for attempt 2); the second finds it moved on
    expect(await deliveryOf(twice.id)).toMatchObject({ status: 'queued', attempts: 1, lastStatusCode: 500 })
    expect(await attemptsOf(twice.id)).toHaveLength(2)
    expect(await jobOf(`${twice.id}:1:2`)).toBeDefined()
  })

  test('another tenant\'s delivery id is never settled through this tenant\'s record', async () => {
    const mine = await newDelivery()
    const log = new AttemptLog(t.deps)
    log.begin()
    await log.record(finished({ ...mine, tenantId: crypto.randomUUID() }, true))
    expect(await deliveryOf(mine.id)).toMatchObject({ status: 'queued', attempts: 0 })
  })

  test('one bad record fails alone; the others in its batch are committed', async () => {
    const [good, bad] = [await newDelivery(), await newDelivery()]
    const log = new AttemptLog(t.deps, 1000)
    log.begin()
    log.begin()
    // durationMs is NOT NULL: this record's insert fails, and with it the batch's transaction
    const results = await Promise.allSettled([log.record(finished(good, true)), log.record(finished(bad, true, { durationMs: null as unknown as number }))])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected'])
    expect(await deliveryOf(good.id)).toMatchObject({ status: 'done' })
    expect(await attemptsOf(good.id)).toHaveLength(1)
    // nothing of the bad one: its job fails, and bunqueue runs it again (sent again, never dropped)
    expect(await deliveryOf(bad.id)).toMatchObject({ status: 'queued', attempts: 0 })
    expect(await attemptsOf(bad.id)).toHaveLength(0)
  })
})
