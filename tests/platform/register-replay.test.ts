/**
 * Registration records its signature's replay row in the user's own write batch
 * (`tenantSignedWrite`, src/http/replay.ts): a replay is still refused with 401 Replay
 * detected, two copies at once still make one user, and a refused registration still
 * records its signature, so its replay never succeeds later.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { InStatement } from '@libsql/client'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { signedHeaders } from '@tests/helpers/client'
import { Factory, unique, type Tenant } from '@tests/helpers/factories'

let t: TestApp
let f: Factory
let tenant: Tenant
let second = 0

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  tenant = await f.tenant()
  // the first signed request of a process also deletes expired entries, and records its row with them, alone
  expect((await f.api.get('/v1/tenant/public', { signedBy: tenant })).status).toBe(200)
})
afterAll(() => t.close())

/** One signed registration request, its headers fixed, to be sent as many times as a test likes. */
function signedRegistration(body: Record<string, unknown>) {
  const text = JSON.stringify(body)
  // a timestamp no other request of this file signs
  const headers = signedHeaders(tenant, 'POST', '/v1/auth/register', text, String(Math.floor(t.clock.now() / 1000) - 100 + second++))
  return async () => {
    const res = await t.handle(new Request('http://slipway.test/v1/auth/register', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text }))
    return { status: res.status, body: await res.json() as Record<string, any> }
  }
}

const replayRefusal = { statusCode: 401, error: 'UnauthorizedError', message: 'Replay detected' }
const count = async (sql: string, ...args: string[]) => Number((await t.deps.database.client.execute({ sql, args })).rows[0]!.n)
const usersNamed = (username: string) => count('select count(*) as n from users where tenant_id = ? and username = ?', tenant.id, username)
const replayRows = () => count('select count(*) as n from signature_replays where tenant_id = ?', tenant.id)

/** Watches the write batches: each batch's statements and, when it failed, its error. */
function watchBatches() {
  const database = t.deps.database
  const original = database.writeBatch
  const seen: Array<{ stmts: InStatement[]; error?: unknown }> = []
  database.writeBatch = async (stmts) => {
    const entry: { stmts: InStatement[]; error?: unknown } = { stmts }
    seen.push(entry)
    try {
      return await original(stmts)
    } catch (err) {
      entry.error = err
      throw err
    }
  }
  return { seen, stop: () => { database.writeBatch = original } }
}
const sqlOf = (s: InStatement) => (typeof s === 'string' ? s : s.sql)

describe('a registration\'s signature is recorded in its write', () => {
  test('one write batch holds the replay row, the user and the session; the replay answers 401 and writes nothing', async () => {
    const username = unique('once')
    const send = signedRegistration({ username, email: `${username}@example.com`, password: 'Sup3rsecret' })
    const rows = await replayRows()
    const watch = watchBatches()
    try {
      const first = await send()
      expect(first.status).toBe(201)
      expect(watch.seen).toHaveLength(1)
      expect(watch.seen[0]!.stmts.map(sqlOf).map((s) => /insert into "(\w+)"/i.exec(s)?.[1])).toEqual(['signature_replays', 'users', 'refresh_tokens'])
      expect(await replayRows()).toBe(rows + 1)
      const again = await send()
      expect(again).toEqual({ status: 401, body: replayRefusal })
      // refused at the check, before any work: no second batch
      expect(watch.seen).toHaveLength(1)
    } finally {
      watch.stop()
    }
    expect(await usersNamed(username)).toBe(1)
    expect(await replayRows()).toBe(rows + 1)
  })

  test('two copies at once both pass the check; the second batch fails on the replay row: 401 Replay detected, nothing of it written', async () => {
    const username = unique('twin')
    const send = signedRegistration({ username, email: `${username}@example.com`, password: 'Sup3rsecret' })
    const rows = await replayRows()
    const tokens = await count('select count(*) as n from refresh_tokens')
    const watch = watchBatches()
    let answers: Array<{ status: number; body: Record<string, any> }>
    try {
      answers = await Promise.all([send(), send()])
    } finally {
      watch.stop()
    }
    expect(answers.map((a) => a.status).sort()).toEqual([201, 401])
    expect(answers.find((a) => a.status === 401)!.body).toEqual(replayRefusal)
    // both reached their write: the second was refused by the replay row's primary key, not by the username
    expect(watch.seen).toHaveLength(2)
    expect(watch.seen.filter((b) => b.error).map((b) => String((b.error as Error).message))).toEqual([expect.stringContaining('signature_replays.signature')])
    expect(await usersNamed(username)).toBe(1)
    expect(await count('select count(*) as n from refresh_tokens')).toBe(tokens + 1)
    expect(await replayRows()).toBe(rows + 1)
  })

  test('a registration refused before its write (409 taken) records its signature: its replay answers 401', async () => {
    const username = unique('taken')
    expect((await f.api.post('/v1/auth/register', { username, email: `${username}@example.com`, password: 'Sup3rsecret' }, { signedBy: tenant })).status).toBe(201)
    const send = signedRegistration({ username, email: `${username}.2@example.com`, password: 'Sup3rsecret' })
    const rows = await replayRows()
    expect((await send()).status).toBe(409)
    expect(await replayRows()).toBe(rows + 1)
    expect(await send()).toEqual({ status: 401, body: replayRefusal })
    expect(await replayRows()).toBe(rows + 1)
  })

  test('a refused password and a wallet without its chain (422 each) record their signatures too', async () => {
    const username = unique('weak')
    const weak = signedRegistration({ username, email: `${username}@example.com`, password: 'alllowercase1' })
    expect((await weak()).status).toBe(422)
    expect(await weak()).toEqual({ status: 401, body: replayRefusal })
    const noChain = signedRegistration({ username, email: `${username}@example.com`, password: 'Sup3rsecret', wallet: { option: 'create' } })
    expect((await noChain()).status).toBe(422)
    expect(await noChain()).toEqual({ status: 401, body: replayRefusal })
    expect(await usersNamed(username)).toBe(0)
  })

  test('two copies of a refused registration at once: one answers the refusal, the other 401 Replay detected', async () => {
    const username = unique('taken2')
    expect((await f.api.post('/v1/auth/register', { username, email: `${username}@example.com`, password: 'Sup3rsecret' }, { signedBy: tenant })).status).toBe(201)
    const send = signedRegistration({ username, email: `${username}.2@example.com`, password: 'Sup3rsecret' })
    const rows = await replayRows()
    const answers = await Promise.all([send(), send()])
    expect(answers.map((a) => a.status).sort()).toEqual([401, 409])
    expect(answers.find((a) => a.status === 401)!.body).toEqual(replayRefusal)
    expect(await replayRows()).toBe(rows + 1)
  })
})
