/**
 * The app runs as a child process on a file database (bunqueue's embedded manager is
 * process-wide), is killed with SIGKILL while a delivery is in flight, and is started
 * again on the same files: the delivery is made after the restart, with the same id.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { PROCESS_ADMIN, startProcess } from '@tests/helpers/process'
import { Api } from '@tests/helpers/client'
import { WebhookReceiver } from '@tests/fakes/webhook-receiver'

const receiver = new WebhookReceiver()
let dir: string

/** The app as a child process on this test's database file, with PROCESS_ADMIN as its admin (see tests/helpers/process.ts). */
const startApp = (extraEnv: Record<string, string> = {}) => startProcess([process.execPath, 'src/index.ts'], {
  dir,
  env: {
    NODE_ENV: 'test',
    MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
    JWT_SECRET: 'crash-test-jwt-secret-0123456789abcdef',
    WEBHOOK_DEV_ROUTES: `hooks.slipway.test=${receiver.origin}`,
    ...extraEnv,
  },
})

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'slipway-crash-'))
  receiver.start()
})
afterAll(() => {
  receiver.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('crash between enqueue and delivery', () => {
  test('kill -9 while the attempt is in flight; the restarted app delivers the same id', async () => {
    // The first request is held (no answer) so the process dies mid-delivery.
    receiver.delayMs = 60_000
    let app = await startApp()
    try {
      const api = new Api(app.url)
      const token = (await api.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
      const tenant = await api.post('/v1/admin/tenants', { name: 'crash-tenant', settings: { bankRamp: { sandbox: { connected: true } } } }, { token })
      expect(tenant.status).toBe(201)
      const hook = await api.put(`/v1/admin/tenants/${tenant.body.id}/webhooks/sandbox`, { url: 'https://hooks.slipway.test/in' }, { token })
      expect(hook.status).toBe(201)
      const sent = await api.post(`/v1/admin/tenants/${tenant.body.id}/webhooks/sandbox/test`, undefined, { token })
      expect(sent.status).toBe(202)
      await receiver.waitFor(1, 10_000)
      app.proc.kill(9)
      await app.proc.exited
      receiver.delayMs = 0

      app = await startApp()
      const api2 = new Api(app.url)
      const token2 = (await api2.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
      await receiver.waitFor(2, 45_000)
      const ids = receiver.received.map((r) => r.headers['x-webhook-id'])
      expect(ids).toEqual([sent.body.id, sent.body.id])
      const last = receiver.received[1]!
      expect(new Webhook(hook.body.secret).verify(last.body, last.headers)).toMatchObject({ id: sent.body.id, type: 'webhook.test' })
      let status = ''
      for (let i = 0; i < 100 && status !== 'done'; i++) {
        const log = await api2.get(`/v1/admin/tenants/${tenant.body.id}/webhooks/sandbox/deliveries`, { token: token2 })
        status = log.body.data[0].status
        if (status !== 'done') await Bun.sleep(100)
      }
      expect(status).toBe('done')
    } finally {
      app.proc.kill(9)
      await app.proc.exited
    }
  }, 90_000)

  test('kill -9 after the event is stored but before any worker took it; the restarted app delivers it', async () => {
    receiver.received.length = 0
    receiver.delayMs = 0
    // An API-only process stores the delivery and its outbox row but runs no queue.
    let app = await startApp({ SLIPWAY_ROLE: 'api' })
    try {
      const api = new Api(app.url)
      const token = (await api.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
      const tenant = await api.post('/v1/admin/tenants', { name: 'crash-tenant-2', settings: { bankRamp: { sandbox: { connected: true } } } }, { token })
      await api.put(`/v1/admin/tenants/${tenant.body.id}/webhooks/sandbox`, { url: 'https://hooks.slipway.test/second' }, { token })
      const sent = await api.post(`/v1/admin/tenants/${tenant.body.id}/webhooks/sandbox/test`, undefined, { token })
      expect(sent.status).toBe(202)
      await Bun.sleep(300)
      expect(receiver.received).toHaveLength(0)
      app.proc.kill(9)
      await app.proc.exited

      app = await startApp()
      await receiver.waitFor(1, 20_000)
      expect(receiver.received.map((r) => r.headers['x-webhook-id'])).toEqual([sent.body.id])
      expect(receiver.received[0]!.path).toBe('/second')
    } finally {
      app.proc.kill(9)
      await app.proc.exited
    }
  }, 60_000)
})
