/**
 * An edge's reads of its replica's file (src/db/client.ts, replica.ts, native-read.ts): the
 * credential read runs natively on the replica's file and keeps the replica's rules (it waits
 * for a pull after this process wrote users, asks the primary for a row not pulled yet, and
 * sees another process's change with the next pull); the reader connection cannot write the
 * replica's file.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { createClient, type Client } from '@libsql/client'
import { findActor } from '@/db/callers'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser } from '@tests/helpers/factories'
import { startSqld, type Sqld } from '@tests/helpers/sqld'

let sqld: Sqld
let edge: TestApp
let onPrimary: TestApp
let other: Client
let user: SignedInUser
beforeAll(async () => {
  sqld = await startSqld()
  // a long interval: only the pulls this process asks for (and the primary fallback) explain what is seen
  const dir = mkdtempSync(join(sqld.dir, 'edge-'))
  edge = await makeApp({ env: { DATABASE_URL: `file:${join(dir, 'replica.db')}`, DATABASE_SYNC_URL: sqld.url, DATABASE_SYNC_INTERVAL_MS: '600000' } })
  onPrimary = await makeApp({ env: { DATABASE_URL: sqld.url }, admin: false })
  other = createClient({ url: sqld.url })
  user = await new Factory(edge).user(await new Factory(edge).tenant())
}, 30_000)
afterAll(async () => {
  other?.close()
  await edge?.close()
  await onPrimary?.close()
  await sqld?.stop()
})

test('the credential read on an edge: native on the replica\'s file, this process\'s writes waited for, a row not pulled yet asked of the primary', async () => {
  const database = edge.deps.database
  expect(database.mode).toBe('replica')
  expect(database.reader).toBeDefined()
  // the replica holds the user (its pulls: at start, then only those this process asks for): what follows reads its copy
  await database.replica!.syncNow()
  const first = await findActor(database, user.id)
  expect(first?.user.id).toBe(user.id)
  // another process changes the row: the replica has not pulled, so the edge still reads its own copy
  await other.execute({ sql: 'update users set display_name = ? where id = ?', args: ['elsewhere', user.id] })
  expect((await findActor(database, user.id))?.user.displayName).toBe(first!.user.displayName)
  // this process writes users: the next credential read pulls first and sees both changes
  await database.write((tx) => tx.run(`update users set updated_at = updated_at + 1 where id = '${user.id}'`))
  const after = await findActor(database, user.id)
  expect(after?.user.displayName).toBe('elsewhere')
  expect(after?.user.updatedAt).toBe(first!.user.updatedAt + 1)
  // a user created through another process, not pulled here yet: found on the primary
  const elsewhere = await new Factory(onPrimary).user(await new Factory(onPrimary).tenant())
  expect((await findActor(database, elsewhere.id))?.user.username).toBe(elsewhere.username)
  // and its token works on the edge at once
  expect((await new Factory(edge).api.get('/v1/wallets/', { token: elsewhere.accessToken })).status).toBe(200)
})

test('a user disabled through the edge answers 401 on the edge\'s next request', async () => {
  const u = await new Factory(edge).user(await new Factory(edge).tenant())
  const api = new Factory(edge).api
  expect((await api.get('/v1/wallets/', { token: u.accessToken })).status).toBe(200)
  // the replica holds the user (this edge pulls on its own only every 600 s): a 401 then means the read after the
  // write below pulled first, as the write ledger asks; the primary is asked again only for a row the replica lacks
  await edge.deps.database.replica!.syncNow()
  const reader = edge.deps.database.reader!() as unknown as { prepare(sql: string): { get(...args: unknown[]): unknown } }
  const status = () => reader.prepare('select status from users where id = ?').get(u.id)
  expect(status()).toMatchObject({ status: 'active' })
  await edge.deps.database.write((tx) => tx.run(`update users set status = 'deleted' where id = '${u.id}'`))
  expect((await api.get('/v1/wallets/', { token: u.accessToken })).status).toBe(401)
  expect(status()).toMatchObject({ status: 'deleted' })
})

test('the reader connection on the replica\'s file cannot write it', () => {
  const reader = edge.deps.database.reader!() as unknown as { prepare(sql: string): { run(): unknown } }
  expect(() => reader.prepare(`update users set display_name = 'x' where id = '${user.id}'`).run()).toThrow(/readonly|read-only|query_only/i)
})
