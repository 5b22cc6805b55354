/**
 * The attempt's read (repo.ts, findDeliveryWithWebhook): on a local file a native read on the
 * reader connection, in memory drizzle's prepared query. Both answer the same: the delivery
 * with its webhook, the webhook null once removed, nothing for another tenant, and only what
 * is committed on the file.
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/client'
import { applyMigrations } from '../../src/db/migrate'
import { deleteWebhook, findDeliveryWithWebhook, insertDelivery, insertWebhook } from '../../src/modules/webhooks/repo'

const dir = mkdtempSync(join(tmpdir(), 'slipway-attempt-read-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

for (const kind of ['file', 'memory'] as const) {
  test(`${kind}: the delivery with its webhook; null once removed; another tenant's id answers nothing`, async () => {
    const database = await openDatabase({ url: kind === 'file' ? `file:${join(dir, 'a.db')}` : ':memory:', migrate: applyMigrations })
    try {
      expect(database.reader !== undefined).toBe(kind === 'file')
      const now = 1_700_000_000_000
      await database.write(async (tx) => {
        await insertWebhook(tx, 't1', {
          id: 'w1', environment: 'sandbox', url: 'https://hooks.example.com/in', eventTypes: ['a.b'], status: 'active',
          secretSealed: 'sealed', secretHint: 'hint', createdAt: now, updatedAt: now,
        })
        await insertDelivery(tx, 't1', { id: 'evt_1', environment: 'sandbox', webhookId: 'w1', type: 'a.b', body: '{}', maxAttempts: 10 }, now)
      })
      const found = await findDeliveryWithWebhook(database, 't1', 'evt_1')
      expect(found).toEqual({
        delivery: { id: 'evt_1', tenantId: 't1', environment: 'sandbox', webhookId: 'w1', type: 'a.b', body: '{}', status: 'queued', round: 1, attempts: 0, maxAttempts: 10 },
        webhook: { id: 'w1', tenantId: 't1', url: 'https://hooks.example.com/in', eventTypes: ['a.b'], status: 'active', secretSealed: 'sealed' },
      })
      expect(await findDeliveryWithWebhook(database, 't2', 'evt_1')).toBeUndefined()
      if (kind === 'file') {
        // a removal not yet committed is not seen by the reader
        const undone = new Error('undone')
        await database.write(async (tx) => {
          await deleteWebhook(tx, 't1', 'w1')
          expect((await findDeliveryWithWebhook(database, 't1', 'evt_1'))?.webhook?.id).toBe('w1')
          throw undone
        }).catch((err) => {
          if (err !== undone) throw err
        })
      }
      await database.write((tx) => deleteWebhook(tx, 't1', 'w1'))
      const removed = await findDeliveryWithWebhook(database, 't1', 'evt_1')
      expect(removed?.delivery.id).toBe('evt_1')
      expect(removed?.webhook).toBeNull()
    } finally {
      database.close()
    }
  })
}
