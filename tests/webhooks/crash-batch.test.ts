/**
 * 1,000 webhook deliveries through the batched runner, with the process killed (SIGKILL)
 * in the middle of them and started again on the same files: every delivery arrives,
 * and an id arrives twice only if its attempt was in flight when the process died
 * (at least once: at most the worker's concurrency, 8, can be).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROCESS_ADMIN } from '@tests/helpers/process'
import { webhookProcess } from './process-app'
import { Api } from '@tests/helpers/client'
import { WebhookReceiver } from '@tests/fakes/webhook-receiver'

const N = 1000
const receiver = new WebhookReceiver()
let dir: string

const startApp = (extraEnv: Record<string, string> = {}) => webhookProcess(dir, receiver, {
  // the test event route is limited per client IP: each request below poses as its own client
  TRUSTED_PROXIES: '127.0.0.1',
  ...extraEnv,
})

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'slipway-crash-batch-'))
  receiver.start()
})
afterAll(() => {
  receiver.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('kill -9 during a batch of 1,000 deliveries', () => {
  test('none lost, none repeated beyond the attempts in flight', async () => {
    // An API-only process stores the 1,000 events and their outbox rows; it runs no queue.
    let app = await startApp({ SLIPWAY_ROLE: 'api' })
    const sent: string[] = []
    try {
      const api = new Api(app.url)
      const token = (await api.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
      const tenant = await api.post('/v1/admin/tenants', { name: 'batch-tenant', settings: { bankRamp: { sandbox: { connected: true } } } }, { token })
      expect(tenant.status).toBe(201)
      const hook = await api.put(`/v1/admin/tenants/${tenant.body.id}/webhooks/sandbox`, { url: 'https://hooks.slipway.test/batch' }, { token })
      expect(hook.status).toBe(201)
      let next = 0
      await Promise.all(Array.from({ length: 16 }, async () => {
        while (next < N) {
          const i = next++
          const res = await fetch(`${app.url}/v1/admin/tenants/${tenant.body.id}/webhooks/sandbox/test`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': `10.0.${i >> 8}.${i & 255}` },
          })
          expect(res.status).toBe(202)
          sent.push(((await res.json()) as { id: string }).id)
        }
      }))
    } finally {
      app.proc.kill(9)
      await app.proc.exited
    }
    expect(new Set(sent).size).toBe(N)
    expect(receiver.received).toHaveLength(0)

    // A full process delivers them; it is killed once a fifth have arrived, with attempts in flight.
    receiver.delayMs = 5
    app = await startApp()
    await receiver.waitFor(N / 5, 20_000)
    app.proc.kill(9)
    await app.proc.exited
    const beforeKill = receiver.received.length
    expect(beforeKill).toBeLessThan(N)

    app = await startApp()
    try {
      const ids = () => new Set(receiver.received.map((r) => r.headers['webhook-id'] ?? r.headers['x-webhook-id']))
      // until all have arrived and nothing more came for a second (the restarted queue
      // runs again what the killed one had in flight, possibly after the rest)
      const deadline = Date.now() + 25_000
      let seen = -1
      let quietSince = Date.now()
      while (Date.now() < deadline) {
        if (receiver.received.length !== seen) {
          seen = receiver.received.length
          quietSince = Date.now()
        } else if (ids().size >= N && Date.now() - quietSince >= 1000) break
        await Bun.sleep(50)
      }
      const got = ids()
      expect(sent.filter((id) => !got.has(id))).toEqual([])
      expect(got.size).toBe(N)
      // at least once: the only repeats are attempts the killed process had in flight,
      // so each repeated id had arrived before the kill, and there are at most 8 (the worker's concurrency)
      const count = new Map<string, number>()
      for (const r of receiver.received) {
        const id = r.headers['webhook-id'] ?? r.headers['x-webhook-id']!
        count.set(id, (count.get(id) ?? 0) + 1)
      }
      const repeated = [...count].filter(([, n]) => n > 1)
      expect(repeated.every(([, n]) => n === 2)).toBe(true)
      expect(repeated.length).toBeLessThanOrEqual(8)
      const firstBeforeKill = new Set(receiver.received.slice(0, beforeKill).map((r) => r.headers['webhook-id'] ?? r.headers['x-webhook-id']))
      expect(repeated.filter(([id]) => !firstBeforeKill.has(id))).toEqual([])
      expect(receiver.received.length).toBe(N + repeated.length)
    } finally {
      app.proc.kill(9)
      await app.proc.exited
    }
  }, 60_000)
})
