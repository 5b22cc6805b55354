/**
 * The app runs as a child process on a file database (bunqueue's embedded manager is
 * process-wide), is killed with SIGKILL while a delivery is in flight, and is started
 * again on the same files: the delivery is made after the restart, with the same id.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { Webhook } from 'standardwebhooks'
import { PROCESS_ADMIN } from '@tests/helpers/process'
import { tenantWithHook, webhookProcess } from './process-app'
import { Api } from '@tests/helpers/client'
import { WebhookReceiver } from '@tests/fakes/webhook-receiver'

const receiver = new WebhookReceiver()
let dir: string

const startApp = (extraEnv: Record<string, string> = {}) => webhookProcess(dir, receiver, extraEnv)

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
      const { tenantId, secret, sendTest } = await tenantWithHook(app.url, 'crash-tenant', '/in')
      const sentId = await sendTest()
      await receiver.waitFor(1, 10_000)
      app.proc.kill(9)
      await app.proc.exited
      receiver.delayMs = 0

      app = await startApp()
      const api2 = new Api(app.url)
      const token2 = (await api2.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
      await receiver.waitFor(2, 45_000)
      const ids = receiver.received.map((r) => r.headers['x-webhook-id'])
      expect(ids).toEqual([sentId, sentId])
      const last = receiver.received[1]!
      expect(new Webhook(secret).verify(last.body, last.headers)).toMatchObject({ id: sentId, type: 'webhook.test' })
      let status = ''
      for (let i = 0; i < 100 && status !== 'done'; i++) {
        const log = await api2.get(`/v1/admin/tenants/${tenantId}/webhooks/sandbox/deliveries`, { token: token2 })
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
      const { tenantId, sendTest } = await tenantWithHook(app.url, 'crash-tenant-2', '/second')
      const sentId = await sendTest()
      await Bun.sleep(300)
      expect(receiver.received).toHaveLength(0)
      app.proc.kill(9)
      await app.proc.exited

      app = await startApp()
      await receiver.waitFor(1, 20_000)
      expect(receiver.received.map((r) => r.headers['x-webhook-id'])).toEqual([sentId])
      expect(receiver.received[0]!.path).toBe('/second')
    } finally {
      app.proc.kill(9)
      await app.proc.exited
    }
  }, 60_000)
  test('kill -9 after the receiver answered, before the attempt was recorded; the restarted app delivers the same id again', async () => {
    receiver.received.length = 0
    // The answer is held long enough for this test to take SQLite's write lock on the
    // app's database file: the app gets its 200 but cannot commit the attempt's record. 2 s, and a
    // busy timeout on the lock: on a busy machine the app was writing at the moment the test asked
    // for the lock (SQLITE_BUSY at once without one), and 800 ms left little room to wait.
    receiver.delayMs = 2000
    let app = await startApp()
    let lock: Database | undefined
    try {
      const { tenantId, sendTest } = await tenantWithHook(app.url, 'crash-tenant-3', '/third')
      const sentId = await sendTest()
      await receiver.waitFor(1, 10_000)
      lock = new Database(join(dir, 'slipway.db'))
      lock.run('PRAGMA busy_timeout = 1000')
      lock.run('BEGIN IMMEDIATE')
      // the answer goes out after 2 s; the app then waits on the lock to record it
      await Bun.sleep(2500)
      app.proc.kill(9)
      await app.proc.exited
      lock.run('ROLLBACK')
      lock.close()
      lock = undefined
      receiver.delayMs = 0

      app = await startApp()
      const api2 = new Api(app.url)
      const token2 = (await api2.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
      // (the earlier tests' app, killed on this file, may deliver its own leftovers too: only /third counts)
      const third = () => receiver.received.filter((r) => r.path === '/third')
      for (let i = 0; i < 450 && third().length < 2; i++) await Bun.sleep(100)
      expect(third().map((r) => r.headers['x-webhook-id'])).toEqual([sentId, sentId])
      let row: { status: string; attemptLog: unknown[] } | undefined
      for (let i = 0; i < 100 && row?.status !== 'done'; i++) {
        const log = await api2.get(`/v1/admin/tenants/${tenantId}/webhooks/sandbox/deliveries`, { token: token2 })
        row = log.body.data.find((d: { id: string }) => d.id === sentId)
        if (row?.status !== 'done') await Bun.sleep(100)
      }
      // the unrecorded first attempt is not in the history; the repeat that reached the receiver is
      expect(row).toMatchObject({ status: 'done', attempts: 1 })
      expect(row!.attemptLog).toHaveLength(1)
    } finally {
      lock?.close()
      app.proc.kill(9)
      await app.proc.exited
    }
  }, 90_000)
})
