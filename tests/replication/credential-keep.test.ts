/**
 * The bearer check's read kept in memory on a server (topology b, src/db/callers.ts): a second
 * request within CREDENTIAL_KEEP_MS is answered without a round trip; this process's own write to
 * users drops it at once; another process's change is seen once the time has passed; and a user
 * deleted through this process answers 401 on the very next request.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createClient } from '@libsql/client'
import { CREDENTIAL_KEEP_MS, findActor } from '@/db/callers'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser } from '@tests/helpers/factories'
import { startSqld, type Sqld } from '@tests/helpers/sqld'

let sqld: Sqld
let t: TestApp
let f: Factory
let user: SignedInUser
beforeAll(async () => {
  sqld = await startSqld()
  t = await makeApp({ env: { DATABASE_URL: sqld.url } })
  f = new Factory(t)
  user = await f.user(await f.tenant())
}, 30_000)
afterAll(async () => {
  t?.close()
  await sqld?.stop()
})

test('kept for a moment on a server; dropped by this process\'s write; another process\'s change seen after the moment', async () => {
  const database = t.deps.database
  expect(database.mode).toBe('remote')
  const id = user.id
  const first = await findActor(database, id)
  expect(first?.user.status).toBe('active')
  // another process changes the row: within the moment the kept row answers
  const other = createClient({ url: sqld.url })
  await other.execute({ sql: 'update users set display_name = ? where id = ?', args: ['elsewhere', id] })
  const kept = await findActor(database, id)
  expect(kept?.user.displayName).toBe(first!.user.displayName)
  expect(kept?.user.displayName).not.toBe('elsewhere')
  // each request gets a copy of its own: changing one changes nothing another request reads
  expect(kept).toEqual(first!)
  expect(kept).not.toBe(first)
  kept!.user.displayName = 'changed by one request'
  expect((await findActor(database, id))?.user.displayName).toBe(first!.user.displayName)
  // this process writes users: read again at once
  await database.write((tx) => tx.run(`update users set updated_at = updated_at where id = '${id}'`))
  const again = await findActor(database, id)
  expect(again?.user.displayName).toBe('elsewhere')
  // another process's change after the moment
  await other.execute({ sql: 'update users set display_name = ? where id = ?', args: ['later', id] })
  await Bun.sleep(CREDENTIAL_KEEP_MS + 50)
  expect((await findActor(database, id))?.user.displayName).toBe('later')
  other.close()
})

test('a user deleted through this process answers 401 on the next request', async () => {
  const u = await f.user(await f.tenant())
  expect((await f.api.get('/v1/wallets/', { token: u.accessToken })).status).toBe(200)
  await t.deps.database.write((tx) => tx.run(`update users set status = 'deleted' where id = '${u.id}'`))
  expect((await f.api.get('/v1/wallets/', { token: u.accessToken })).status).toBe(401)
})

test('a write to a table with triggers counts for the tables its triggers write (an execution keeps the credential read)', async () => {
  const ledger = t.deps.database.writeLedger!
  const credentials = 'select 1 from users join tenants'
  const before = ledger.needs(credentials)
  // ap_executions' triggers (migration 0033) write ap_spend_totals only
  await t.deps.database.writeBatch([{ sql: 'update ap_executions set updated_at = updated_at where id = ?', args: ['none'] }])
  expect(ledger.seq).toBeGreaterThan(before)
  expect(ledger.needs('select 1 from ap_spend_totals')).toBe(ledger.seq)
  expect(ledger.needs('select 1 from ap_executions')).toBe(ledger.seq)
  expect(ledger.needs(credentials)).toBe(before)
  // a write to users still counts for the credential read
  await t.deps.database.writeBatch([{ sql: 'update users set updated_at = updated_at where id = ?', args: ['none'] }])
  expect(ledger.needs(credentials)).toBe(ledger.seq)
})
