/**
 * Native statements inside a write transaction (src/db/native-tx.ts): on a local file and in
 * memory they run on the transaction's own connection, so they see its writes, are rolled back
 * with it, and encode and decode columns as drizzle does; outside a transaction the same
 * statement runs through drizzle.
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { openDatabase, type Database } from '../../src/db/client'
import { applyMigrations } from '../../src/db/migrate'
import { nativeTx, txRead, txReadOne, txWrite } from '../../src/db/native-tx'
import { outbox } from '../../src/jobs/schema'

const dir = mkdtempSync(join(tmpdir(), 'slipway-native-tx-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

type Row = typeof outbox.$inferSelect
const insert = txWrite((db, v: Row) => db.insert(outbox).values({
  id: v.id, topic: v.topic, tenantId: v.tenantId, payload: v.payload, runAt: v.runAt, createdAt: v.createdAt, dispatchedAt: v.dispatchedAt,
}).onConflictDoNothing())
const byId = txReadOne((db, v: { id: string }) => db.select().from(outbox).where(eq(outbox.id, v.id)))
const ofTopic = txRead((db, v: { topic: string }) => db.select({ id: outbox.id, payload: outbox.payload }).from(outbox).where(eq(outbox.topic, v.topic)).orderBy(outbox.id))
const row = (id: string, topic = 't'): Row => ({ id, topic, tenantId: null, payload: { n: id, list: [1, 'a'] }, runAt: 5, createdAt: 6, dispatchedAt: null })

for (const kind of ['file', 'memory'] as const) {
  test(`${kind}: the statements run natively on the transaction's connection, see its writes and roll back with it`, async () => {
    const database: Database = await openDatabase({ url: kind === 'file' ? `file:${join(dir, 'n.db')}` : ':memory:', migrate: applyMigrations })
    try {
      expect(nativeTx(database.db)).toBeUndefined()
      let seen: Row | undefined
      await database.write(async (tx) => {
        expect(nativeTx(tx)).toBeDefined()
        expect(await insert(tx, row(`${kind}-a`))).toBe(1)
        // a repeat changes nothing (on conflict do nothing)
        expect(await insert(tx, row(`${kind}-a`))).toBe(0)
        seen = await byId(tx, { id: `${kind}-a` })
      })
      // the JSON column was encoded on the way in and decoded on the way out, as drizzle does
      expect(seen).toEqual(row(`${kind}-a`))
      expect(await database.db.select().from(outbox).where(eq(outbox.id, `${kind}-a`)).get()).toEqual(row(`${kind}-a`))

      const undone = new Error('undone')
      await database.write(async (tx) => {
        await insert(tx, row(`${kind}-b`))
        expect(await byId(tx, { id: `${kind}-b` })).toBeDefined()
        throw undone
      }).catch((err) => {
        if (err !== undone) throw err
      })
      expect(await byId(database.db, { id: `${kind}-b` })).toBeUndefined()
    } finally {
      database.close()
    }
  })
}

test('a statement the client has just run with other values does not answer its row to the native read', async () => {
  const database = await openDatabase({ url: `file:${join(dir, 'shared.db')}`, migrate: applyMigrations })
  try {
    await database.write(async (tx) => {
      await insert(tx, row('x1', 'one'))
      await insert(tx, row('x2', 'two'))
    })
    // drizzle through the client, outside a transaction, then natively inside one, alternating
    for (let i = 0; i < 3; i++) {
      expect(await byId(database.db, { id: 'x1' })).toMatchObject({ id: 'x1' })
      expect(await database.write((tx) => byId(tx, { id: 'x2' }))).toMatchObject({ id: 'x2' })
      expect(await database.write((tx) => byId(tx, { id: 'nope' }))).toBeUndefined()
      expect((await database.write((tx) => ofTopic(tx, { topic: 'one' }))).map((r) => r.id)).toEqual(['x1'])
      expect(await ofTopic(database.db, { topic: 'two' })).toEqual([{ id: 'x2', payload: { n: 'x2', list: [1, 'a'] } }])
    }
  } finally {
    database.close()
  }
})
