import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { eq, like } from 'drizzle-orm'
import { Webhook } from 'standardwebhooks'
import { makeApp, ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, type Tenant } from '@tests/helpers/factories'
import { WebhookReceiver } from '@tests/fakes/webhook-receiver'
import { outbox } from '@/jobs/schema'
import { publishEvent, type PublishedEvent } from '@/modules/webhooks/publish'
import { RETRY_DELAYS_MS } from '@/modules/webhooks/schedule'
import { webhookDeliveries } from '@/modules/webhooks/schema'

let t: TestApp
let clock: ManualClock
let f: Factory
let admin: string
const receiver = new WebhookReceiver()

const HOOK_URL = 'https://hooks.slipway.test/in/slipway?src=ramp'
const path = (tenantId: string, env = 'sandbox') => `/v1/admin/tenants/${tenantId}/webhooks/${env}`

beforeAll(async () => {
  receiver.start()
  clock = new ManualClock(Date.now())
  t = await makeApp({ jobs: true, clock, env: { WEBHOOK_DEV_ROUTES: `hooks.slipway.test=${receiver.origin}` } })
  f = new Factory(t)
  admin = await f.adminToken()
})
afterAll(async () => {
  await t.close()
  receiver.stop()
})
/** Tests move the clock by hours, so access tokens are taken again when needed. */
async function signInAgain() {
  f = new Factory(t)
  admin = await f.adminToken()
}

beforeEach(async () => {
  await signInAgain()
  receiver.plan = []
  receiver.delayMs = 0
})

async function tenantWithHook(body: Record<string, unknown> = {}) {
  const tenant = await f.tenant({ bankRamp: { sandbox: { connected: true }, production: { connected: true } } })
  const res = await f.api.put(path(tenant.id), { url: HOOK_URL, ...body }, { token: admin })
  expect(res.status).toBe(201)
  return { tenant, hook: res.body as { id: string; secret: string } }
}

function publish(tenant: Tenant, over: Partial<PublishedEvent> = {}) {
  return t.deps.database.write((tx) => publishEvent(tx, {
    tenantId: tenant.id, environment: 'sandbox', type: 'ramp.kyc.updated', data: { userId: 'u1', kycStatus: 'approved' }, occurredAt: clock.now() - 1000, ...over,
  }, clock.now()))
}

const delivery = (id: string) => t.deps.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get()

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await fn()
    if (ok(v)) return v
    if (Date.now() > end) throw new Error(`condition not met: ${JSON.stringify(v)}`)
    await Bun.sleep(10)
  }
}

const requestsFor = (id: string) => receiver.received.filter((r) => r.headers['x-webhook-id'] === id)

/** Moves time to the delivery's next attempt and runs the due jobs. */
async function nextAttempt(id: string) {
  const d = await delivery(id)
  clock.set(d!.nextAttemptAt!)
  await t.runner!.pump()
}

describe('delivery', () => {
  test('posts the spec body and headers; the standardwebhooks library verifies it', async () => {
    const { tenant, hook } = await tenantWithHook()
    const occurredAt = clock.now() - 5000
    const id = (await publish(tenant, { occurredAt }))!
    expect(id).toMatch(/^evt_[0-9a-f]{32}$/)
    const d = await until(() => delivery(id), (d) => d?.status === 'done')
    expect(d!.attempts).toBe(1)
    const [req] = requestsFor(id)
    expect(req!.path).toBe('/in/slipway?src=ramp')
    const body = JSON.parse(req!.body)
    expect(body).toEqual({ id, type: 'ramp.kyc.updated', environment: 'sandbox', occurredAt: new Date(occurredAt).toISOString(), createdAt: expect.any(String), data: { userId: 'u1', kycStatus: 'approved' } })
    expect(req!.headers['content-type']).toBe('application/json')
    expect(req!.headers['user-agent']).toBe('Slipway-Webhooks/1.0')
    expect(req!.headers['x-webhook-event']).toBe('ramp.kyc.updated')
    expect(req!.headers['x-webhook-timestamp']).toMatch(/^\d+$/)
    expect(req!.headers['webhook-id']).toBe(id)
    expect(new Webhook(hook.secret).verify(req!.body, req!.headers)).toEqual(body)
    // The spec's own header, checked as a receiver following the spec would.
    const expected = new Webhook(hook.secret).sign(id, new Date(Number(req!.headers['x-webhook-timestamp']) * 1000), req!.body).replace(/^v1,/, 'v1=')
    expect(req!.headers['x-webhook-signature']).toBe(expected)
    const log = await f.api.get(path(tenant.id) + '/deliveries', { token: admin })
    expect(log.body.data[0]).toMatchObject({ id, status: 'done', attempts: 1, lastStatusCode: 200, lastError: null, nextAttemptAt: null })
    expect(log.body.data[0].attemptLog).toEqual([expect.objectContaining({ round: 1, attempt: 1, statusCode: 200, error: null })])
  })

  test('only a webhook asking for the type receives it; sandbox never reaches production', async () => {
    const { tenant } = await tenantWithHook({ eventTypes: ['ramp.deposit.updated'] })
    expect(await publish(tenant, { type: 'ramp.kyc.updated' })).toBeNull()
    expect(await publish(tenant, { environment: 'production' })).toBeNull()
    const id = await publish(tenant, { type: 'ramp.deposit.updated' })
    await until(() => delivery(id!), (d) => d?.status === 'done')
  })

  test('the event is written in the caller\'s transaction: a rolled-back change leaves no delivery and no job', async () => {
    const { tenant } = await tenantWithHook()
    let id: string | null = null
    await expect(t.deps.database.write(async (tx) => {
      id = await publishEvent(tx, { tenantId: tenant.id, environment: 'sandbox', type: 'ramp.kyc.updated', data: {}, occurredAt: clock.now() }, clock.now())
      throw new Error('the change failed')
    })).rejects.toThrow('the change failed')
    expect(id).toMatch(/^evt_/)
    expect(await delivery(id!)).toBeUndefined()
    expect(await t.deps.database.db.select().from(outbox).where(like(outbox.id, `${id}%`))).toEqual([])
  })

  test('a failure is retried after 30 s with the same id and body and a new timestamp', async () => {
    const { tenant, hook } = await tenantWithHook()
    receiver.plan = [500]
    const id = (await publish(tenant))!
    const first = await until(() => delivery(id), (d) => d?.attempts === 1)
    expect(first!.status).toBe('queued')
    expect(first!.lastStatusCode).toBe(500)
    expect(first!.nextAttemptAt! - clock.now()).toBe(30_000)
    await nextAttempt(id)
    await until(() => delivery(id), (d) => d?.status === 'done')
    const [a, b] = requestsFor(id)
    expect(b!.body).toBe(a!.body)
    expect(Number(b!.headers['x-webhook-timestamp']) - Number(a!.headers['x-webhook-timestamp'])).toBe(30)
    const wh = new Webhook(hook.secret)
    for (const r of [a!, b!]) expect(wh.sign(id, new Date(Number(r.headers['webhook-timestamp']) * 1000), r.body)).toBe(r.headers['webhook-signature']!)
  })

  test('10 failed attempts on the spec schedule, then delivery stops; re-queue sends the same id again', async () => {
    const { tenant } = await tenantWithHook()
    receiver.plan = Array(10).fill(503)
    const id = (await publish(tenant))!
    const gaps: number[] = []
    for (let attempt = 1; attempt <= 10; attempt++) {
      const d = await until(() => delivery(id), (d) => d!.attempts === attempt)
      if (attempt < 10) {
        gaps.push(d!.nextAttemptAt! - clock.now())
        await nextAttempt(id)
      }
    }
    expect(gaps).toEqual(RETRY_DELAYS_MS)
    expect(gaps).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_840_000, 7_680_000])
    const stopped = await delivery(id)
    expect(stopped).toMatchObject({ status: 'failed', attempts: 10, lastStatusCode: 503, nextAttemptAt: null })
    expect(await t.deps.database.db.select().from(outbox).where(like(outbox.id, `${id}:1:11`))).toEqual([])
    clock.advance(24 * 3600_000)
    await t.runner!.pump()
    await Bun.sleep(50)
    expect(requestsFor(id).length).toBe(10)
    await signInAgain()

    const log = await f.api.get(path(tenant.id) + '/deliveries', { token: admin })
    expect(log.body.data.find((x: any) => x.id === id).attemptLog).toHaveLength(10)

    const requeue = await f.api.post(`${path(tenant.id)}/deliveries/${id}/requeue`, undefined, { token: admin })
    expect(requeue.status).toBe(200)
    expect(requeue.body).toEqual({ id, status: 'queued' })
    await until(() => delivery(id), (d) => d?.status === 'done')
    expect(requestsFor(id).length).toBe(11)
    expect(requestsFor(id)[10]!.body).toBe(requestsFor(id)[0]!.body)
    expect((await f.api.post(`${path(tenant.id)}/deliveries/${id}/requeue`, undefined, { token: admin })).status).toBe(409)
    expect((await f.api.post(`${path(tenant.id)}/deliveries/evt_${'0'.repeat(32)}/requeue`, undefined, { token: admin })).status).toBe(404)
    const other = await f.tenant()
    const otherAdmin = await f.tenantAdmin(other)
    expect((await f.api.post(`${path(tenant.id)}/deliveries/${id}/requeue`, undefined, { token: otherAdmin.accessToken })).status).toBe(404)
  })

  test('a secret replaced between attempts signs the retry', async () => {
    const { tenant, hook } = await tenantWithHook()
    receiver.plan = [500]
    const id = (await publish(tenant))!
    await until(() => delivery(id), (d) => d?.attempts === 1)
    const rotated = await f.api.post(path(tenant.id) + '/rotate-secret', undefined, { token: admin })
    await nextAttempt(id)
    await until(() => delivery(id), (d) => d?.status === 'done')
    const retry = requestsFor(id)[1]!
    const ts = new Date(Number(retry.headers['webhook-timestamp']) * 1000)
    expect(new Webhook(rotated.body.secret).sign(id, ts, retry.body)).toBe(retry.headers['webhook-signature']!)
    expect(new Webhook(hook.secret).sign(id, ts, retry.body)).not.toBe(retry.headers['webhook-signature']!)
  })

  test('a webhook removed, disabled or no longer asking for the type stops the retries', async () => {
    for (const change of ['remove', 'disable', 'types'] as const) {
      const { tenant } = await tenantWithHook()
      receiver.plan = [500]
      const id = (await publish(tenant))!
      await until(() => delivery(id), (d) => d?.attempts === 1)
      const nextAt = (await delivery(id))!.nextAttemptAt!
      if (change === 'remove') expect((await f.api.delete(path(tenant.id), { token: admin })).status).toBe(204)
      if (change === 'disable') expect((await f.api.put(path(tenant.id), { status: 'disabled' }, { token: admin })).status).toBe(200)
      if (change === 'types') expect((await f.api.put(path(tenant.id), { eventTypes: ['ramp.payout.updated'] }, { token: admin })).status).toBe(200)
      clock.set(nextAt)
      await t.runner!.pump()
      const d = await until(() => delivery(id), (d) => d?.status === 'dropped')
      await Bun.sleep(50)
      expect(requestsFor(id).length).toBe(1)
      expect(d!.lastError).toBe({ remove: 'webhook removed', disable: 'webhook disabled', types: 'the webhook no longer asks for this type' }[change])
    }
  })

  test('nothing is published while the webhook is disabled, and re-enabling does not send it later', async () => {
    const { tenant } = await tenantWithHook({ status: 'disabled' })
    expect(await publish(tenant)).toBeNull()
    await f.api.put(path(tenant.id), { status: 'active' }, { token: admin })
    await t.runner!.pump()
    expect((await f.api.get(path(tenant.id) + '/deliveries', { token: admin })).body.data).toEqual([])
  })

  test('a redirect fails the attempt and is not followed', async () => {
    const { tenant } = await tenantWithHook()
    receiver.plan = [302]
    const before = receiver.received.length
    const id = (await publish(tenant))!
    const d = await until(() => delivery(id), (d) => d?.attempts === 1)
    expect(d).toMatchObject({ status: 'queued', lastStatusCode: 302, lastError: 'redirect 302 not followed' })
    await Bun.sleep(50)
    expect(receiver.received.length).toBe(before + 1)
  })
})

describe('address checks at every attempt (no server-side request forgery)', () => {
  test('a host resolving to any non-public address is refused and retried later', async () => {
    const tenant = await f.tenant({ bankRamp: { sandbox: { connected: true } } })
    expect((await f.api.put(path(tenant.id), { url: 'https://rebind.example.com/h' }, { token: admin })).status).toBe(201)
    const asked: string[] = []
    for (const answer of [['10.0.0.5'], ['93.184.216.34', '::ffff:127.0.0.1'], ['64:ff9b::a00:1'], ['169.254.169.254']]) {
      t.deps.resolveHost = async (host) => { asked.push(host); return answer }
      const id = (await publish(tenant))!
      const d = await until(() => delivery(id), (d) => d?.attempts === 1)
      expect(d).toMatchObject({ status: 'queued', lastStatusCode: null, lastError: 'address refused: the host resolves to a non-public address' })
      expect(d!.nextAttemptAt! - clock.now()).toBe(30_000)
    }
    t.deps.resolveHost = async () => { throw new Error('ENOTFOUND') }
    const id = (await publish(tenant))!
    expect(await until(() => delivery(id), (d) => d?.attempts === 1)).toMatchObject({ lastError: 'the host did not resolve' })
    t.deps.resolveHost = undefined
    expect(asked).toEqual(Array(4).fill('rebind.example.com'))
  })
})

describe('test delivery', () => {
  test('202 { id }; posted now, also while disabled; never retried', async () => {
    // Back to real time, so the receiver library's 5-minute timestamp tolerance holds.
    clock.set(Date.now())
    await signInAgain()
    const { tenant, hook } = await tenantWithHook({ status: 'disabled' })
    const res = await f.api.post(path(tenant.id) + '/test', undefined, { token: admin })
    expect(res.status).toBe(202)
    const id = res.body.id as string
    await until(() => delivery(id), (d) => d?.status === 'done')
    const [req] = requestsFor(id)
    const body = new Webhook(hook.secret).verify(req!.body, req!.headers) as any
    expect(body.type).toBe('webhook.test')
    expect(body.data).toEqual({ tenantId: tenant.id, webhookId: hook.id, message: expect.any(String) })

    receiver.plan = [500]
    const failed = await f.api.post(path(tenant.id) + '/test', undefined, { token: admin })
    const d = await until(() => delivery(failed.body.id), (d) => d?.status === 'failed')
    expect(d).toMatchObject({ attempts: 1, lastStatusCode: 500, nextAttemptAt: null })
    clock.advance(3600_000)
    await t.runner!.pump()
    await Bun.sleep(50)
    expect(requestsFor(failed.body.id).length).toBe(1)
    await signInAgain()
    expect((await f.api.post(`${path(tenant.id)}/deliveries/${failed.body.id}/requeue`, undefined, { token: admin })).status).toBe(409)
    const activity = await f.api.get(`/v1/admin/tenants/${tenant.id}/activity`, { token: admin })
    expect(activity.body.data.filter((e: any) => e.action === 'webhook.tested')).toHaveLength(2)
  })

  test('limited to 10 per minute; 404 without a webhook', async () => {
    const fresh = await makeApp({ env: { WEBHOOK_DEV_ROUTES: `hooks.slipway.test=${receiver.origin}` } })
    try {
      const ff = new Factory(fresh)
      const token = await ff.adminToken()
      const tenant = await ff.tenant({ bankRamp: { sandbox: { connected: true } } })
      expect((await ff.api.post(path(tenant.id) + '/test', undefined, { token })).status).toBe(404)
      await ff.api.put(path(tenant.id), { url: HOOK_URL }, { token })
      const statuses: number[] = []
      for (let i = 0; i < 10; i++) statuses.push((await ff.api.post(path(tenant.id) + '/test', undefined, { token })).status)
      expect(statuses.filter((s) => s === 202)).toHaveLength(9)
      const limited = await ff.api.post(path(tenant.id) + '/test', undefined, { token })
      expect(limited.status).toBe(429)
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/)
    } finally {
      await fresh.close()
    }
  })
})

describe('queue dashboard', () => {
  const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` })
  const get = (path: string, headers: Record<string, string> = {}) => t.handle(new Request(`http://slipway.test${path}`, { headers }))
  const PAGES = ['/admin/queues', '/admin/queues/api/queues', '/admin/queues/static/favicon-32x32.png', '/admin/webhook-deliveries']

  test('every page asks for credentials and refuses non-admins', async () => {
    const tenant = await f.tenant()
    const ta = await f.tenantAdmin(tenant)
    for (const page of PAGES) {
      const anon = await get(page)
      expect(anon.status).toBe(401)
      expect(anon.headers.get('www-authenticate')).toContain('Basic')
      expect((await get(page, basic('root', 'wrong'))).status).toBe(401)
      expect((await get(page, { authorization: `Bearer ${ta.accessToken}` })).status).toBe(401)
    }
  })

  test('bull-board shows the bunqueue queue read-only; the delivery summary lists deliveries', async () => {
    const { tenant } = await tenantWithHook()
    const id = (await publish(tenant))!
    await until(() => delivery(id), (d) => d?.status === 'done')
    const admin = basic('root', 'Root-Passw0rd')
    const index = await get('/admin/queues', admin)
    expect(index.status).toBe(200)
    expect(await index.text()).toContain('Slipway queues')
    const api = await get('/admin/queues/api/queues?activeQueue=&page=1&jobsPerPage=10', admin)
    expect(api.status).toBe(200)
    const queues = (await api.json() as any).queues
    expect(queues).toHaveLength(1)
    expect(queues[0].readOnlyMode).toBe(true)
    // completed jobs are not kept (the runner's worker removes them; the deliveries are in the summary below)
    expect(queues[0].counts).toMatchObject({ completed: 0, active: 0, waiting: 0 })
    const pause = await t.handle(new Request(`http://slipway.test/admin/queues/api/queues/${queues[0].name}/pause`, { method: 'PUT', headers: admin }))
    expect(pause.status).toBe(405)
    expect((await get('/admin/queues/static/..%2f..%2fpackage.json', admin)).status).toBe(404)
    // a name the file system refuses (ENAMETOOLONG) is not found, not a 500
    expect((await get(`/admin/queues/static/${'a'.repeat(10_000)}.js`, admin)).status).toBe(404)
    const summary = await get('/admin/webhook-deliveries', admin)
    expect(summary.status).toBe(200)
    expect(summary.headers.get('cache-control')).toBe('no-store')
    const html = await summary.text()
    expect(html).toContain(id)
    expect(html).not.toContain('whsec_')
    expect((await get('/admin/webhook-deliveries', { authorization: `Bearer ${admin}` })).status).toBe(401)
  })

  test('a platform admin bearer token works too; 20 failed tries a minute then 429', async () => {
    expect((await get('/admin/webhook-deliveries', { authorization: `Bearer ${admin}` })).status).toBe(200)
    const fresh = await makeApp()
    try {
      const statuses: number[] = []
      for (let i = 0; i < 21; i++) statuses.push((await fresh.handle(new Request('http://slipway.test/admin/queues', { headers: basic('root', `wrong-${i}`) }))).status)
      expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true)
      expect(statuses[20]).toBe(429)
      expect((await fresh.handle(new Request('http://slipway.test/admin/queues', { headers: basic('root', 'Root-Passw0rd') }))).status).toBe(429)
    } finally {
      await fresh.close()
    }
  })
})
