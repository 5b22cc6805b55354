/**
 * A statement the database's write lock refused, where no retry covers it, answers 503 DATABASE_BUSY
 * with `retry-after` in the error envelope, not 500 (src/http/core.ts; src/db/busy.ts): here another
 * process holds a local file's write lock past SQLite's busy timeout (5 s), and nothing is written.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createClient } from '@libsql/client/sqlite3'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory } from '@tests/helpers/factories'

let t: TestApp
let f: Factory
const file = join(mkdtempSync(join(tmpdir(), 'slipway-busy-')), 'slipway.db')

beforeAll(async () => {
  t = await makeApp({ env: { DATABASE_URL: `file:${file}` } })
  f = new Factory(t)
})
afterAll(async () => {
  await t?.close()
})

test('a write refused by another process\'s lock answers 503 DATABASE_BUSY with retry-after, and writes nothing', async () => {
  const tenant = await f.tenant()
  const user = await f.user(tenant)
  // libSQL's own driver, as a second Slipway process on the file would hold it
  const other = createClient({ url: `file:${file}` })
  const held = await other.transaction('write')
  await held.execute('select 1')
  const res = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: user.accessToken }).finally(async () => {
    await held.rollback()
    other.close()
  })
  expect(res.status).toBe(503)
  expect(res.body).toMatchObject({ code: 'DATABASE_BUSY', detail: expect.stringContaining('write lock is held by another writer') })
  expect(res.headers.get('retry-after')).toBe('1')
  const list = await f.api.get('/v1/wallets/', { token: user.accessToken })
  expect(list.status).toBe(200)
  expect(list.body.data ?? list.body.wallets ?? list.body).toHaveLength(0)
}, 30_000)
