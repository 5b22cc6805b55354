/**
 * Tenants on databases of their own (TENANT_PLACEMENT, docs/scaling.md): three tenants, two on
 * two namespaces of one sqld (created through its admin API) and one on a second sqld, the
 * control database a file. Each registers users, creates wallets and gets a signed webhook
 * delivery through the real HTTP API of a Slipway API process; then every database is read back
 * through sqld directly (@libsql/client to each namespace URL): each tenant's rows are in its
 * own database, and nothing of a tenant is in another's or in the control database. The
 * deliveries are made by a separate worker process, which finds them by sweeping every database.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient, type Client } from '@libsql/client'
import { Api } from '@tests/helpers/client'
import { PROCESS_ADMIN, startProcess, type RunningProcess } from '@tests/helpers/process'
import { startSqld, type Sqld } from '@tests/helpers/sqld'
import { WebhookReceiver } from '@tests/fakes/webhook-receiver'
import { SHARED_ENV } from './helpers'
import { startNamespacedSqld, type NamespacedSqld } from '@tests/helpers/sqld-namespaces'

interface Tenant {
  label: string
  id: string
  apiKey: string
  apiSecret: string
  url: string
  webhookSecret?: string
  users: Array<{ id: string; username: string; token: string; walletId: string; address: string }>
}

let ns: NamespacedSqld
let second: Sqld
let proc: RunningProcess | undefined
let worker: RunningProcess | undefined
const receiver = new WebhookReceiver()
const dir = mkdtempSync(join(tmpdir(), 'slipway-placement-'))
const controlUrl = `file:${dir}/slipway.db`
const tenants: Tenant[] = []
const env = { ...SHARED_ENV, LOG_LEVEL: 'warn' }

async function start(extra: Record<string, string> = {}) {
  return startProcess([process.execPath, 'src/index.ts'], { dir, env: { ...env, WEBHOOK_DEV_ROUTES: `hooks.slipway.test=${receiver.origin}`, ...extra } })
}

/** Every table's rows as text, by table name. */
async function dump(client: Client): Promise<Record<string, string>> {
  const names = (await client.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")).rows.map((r) => String(r.name))
  const out: Record<string, string> = {}
  for (const name of names) out[name] = JSON.stringify((await client.execute(`SELECT * FROM "${name}"`)).rows)
  return out
}

/** What of a tenant may be found in a database: its id, API key, usernames, wallet ids and addresses. */
const marks = (t: Tenant) => [t.id, t.apiKey, ...t.users.flatMap((u) => [u.id, u.username, u.walletId, u.address.toLowerCase()])]

beforeAll(async () => {
  receiver.start()
  ns = await startNamespacedSqld()
  second = await startSqld()
  // 1. The tenants are created as always, on the control database alone.
  proc = await start()
  const api = new Api(proc.url)
  const admin = (await api.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
  const urls = { a: await ns.create('tenant-a'), b: await ns.create('tenant-b'), c: second.url }
  for (const label of ['a', 'b', 'c'] as const) {
    const res = await api.post('/v1/admin/tenants', { name: `placed-${label}`, settings: { bankRamp: { sandbox: { connected: true } } } }, { token: admin })
    expect(res.status).toBe(201)
    tenants.push({ label, id: res.body.id, apiKey: res.body.apiKey, apiSecret: res.body.apiSecret, url: urls[label], users: [] })
  }
  expect(await proc.stop()).toBe(0)
  // 2. Placed: the operator names each tenant's database and restarts: an API process, and a
  // worker process that finds the tenants' due work by sweeping their databases (no hint reaches
  // it from the API process: docs/scaling.md, "The worker")
  const placement = JSON.stringify(Object.fromEntries(tenants.map((t) => [t.id, t.url])))
  proc = await start({ TENANT_PLACEMENT: placement, SLIPWAY_ROLE: 'api' })
  worker = await start({ TENANT_PLACEMENT: placement, SLIPWAY_ROLE: 'worker' })
}, 60_000)

afterAll(async () => {
  await proc?.stop()
  await worker?.stop()
  receiver.stop()
  await ns?.stop()
  await second?.stop()
})

describe('three tenants on three databases of two sqld processes', () => {
  test('each registers users, creates wallets and gets its signed webhook delivery through the HTTP API', async () => {
    const api = new Api(proc!.url)
    const admin = (await api.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
    for (const t of tenants) {
      const hook = await api.put(`/v1/admin/tenants/${t.id}/webhooks/sandbox`, { url: `https://hooks.slipway.test/${t.label}` }, { token: admin })
      expect(hook.status).toBe(201)
      t.webhookSecret = hook.body.secret
      for (const n of [1, 2]) {
        const username = `${t.label}_user${n}`
        const reg = await api.post('/v1/auth/register', { username, email: `${username}@example.com`, password: 'Placed-passw0rd' }, { signedBy: t })
        expect(reg.status).toBe(201)
        const token = reg.body.accessToken
        const wallet = await api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token })
        expect(wallet.status).toBe(201)
        t.users.push({ id: reg.body.user.id, username, token, walletId: wallet.body.id, address: wallet.body.address })
        // the bearer check reads the user in its tenant's database
        expect((await api.get(`/v1/users/${reg.body.user.id}`, { token })).body).toMatchObject({ username, tenantId: t.id })
        // a refresh token names its tenant, so the refresh (no other credential) finds the tenant's database
        expect(reg.body.refreshToken.startsWith(`${t.id}.`)).toBe(true)
        const refreshed = await api.post('/v1/auth/refresh', { refreshToken: reg.body.refreshToken })
        expect(refreshed.status).toBe(200)
        expect((await api.get(`/v1/users/${reg.body.user.id}`, { token: refreshed.body.accessToken })).status).toBe(200)
      }
      expect((await api.post(`/v1/admin/tenants/${t.id}/webhooks/sandbox/test`, undefined, { token: admin })).status).toBe(202)
    }
    // a username is free in another tenant (its own database), and another tenant's user answers 404
    const [a, b] = tenants as [Tenant, Tenant]
    expect((await api.post('/v1/auth/register', { username: 'a_user1', email: 'other@example.com', password: 'Placed-passw0rd' }, { signedBy: b })).status).toBe(201)
    b.users.push({ ...(await api.post('/v1/auth/login', { username: 'a_user1', password: 'Placed-passw0rd' }, { signedBy: b })).body.user, username: 'a_user1', token: '', walletId: '-', address: '-' })
    expect((await api.get(`/v1/users/${a.users[0]!.id}`, { token: b.users[0]!.token })).status).toBe(404)
    expect((await api.post('/v1/auth/login', { username: 'a_user2', password: 'Placed-passw0rd' }, { signedBy: b })).status).toBe(401)

    // the deliveries: one per tenant, each signed with its tenant's webhook secret, naming its tenant
    await receiver.waitFor(3, 15_000)
    for (const t of tenants) {
      const got = receiver.received.filter((r) => r.path === `/${t.label}`)
      expect(got).toHaveLength(1)
      const r = got[0]!
      const key = Buffer.from(t.webhookSecret!.slice('whsec_'.length), 'base64')
      const sig = createHmac('sha256', key).update(`${r.headers['x-webhook-id']}.${r.headers['x-webhook-timestamp']}.${r.body}`).digest('base64')
      expect(r.headers['x-webhook-signature']).toBe(`v1=${sig}`)
      expect(JSON.parse(r.body)).toMatchObject({ type: 'webhook.test', data: { tenantId: t.id } })
      // the worker records the attempt in the tenant's database after the receiver answers
      let status = ''
      for (let i = 0; i < 100 && status !== 'done'; i++, await Bun.sleep(100)) {
        status = (await api.get(`/v1/admin/tenants/${t.id}/webhooks/sandbox/deliveries`, { token: admin })).body.data?.[0]?.status
      }
      expect(status).toBe('done')
    }
  }, 60_000)

  test('read back through sqld: each tenant\'s rows in its own database only, the control database holds tenants and admins', async () => {
    expect(await proc!.stop()).toBe(0)
    expect(await worker!.stop()).toBe(0)
    proc = undefined
    worker = undefined
    const control = createClient({ url: controlUrl })
    const dumps = new Map<Tenant, Record<string, string>>()
    const migrations = Number((await control.execute('SELECT count(*) AS n FROM __drizzle_migrations')).rows[0]!.n)
    expect(migrations).toBeGreaterThan(10)
    for (const t of tenants) {
      const c = createClient({ url: t.url })
      // every migration ran on the tenant's database too
      expect(Number((await c.execute('SELECT count(*) AS n FROM __drizzle_migrations')).rows[0]!.n)).toBe(migrations)
      expect((await c.execute('SELECT id FROM tenants')).rows.map((r) => r.id)).toEqual([t.id])
      const users = (await c.execute('SELECT username, tenant_id FROM users ORDER BY username')).rows
      expect(users.map((u) => u.tenant_id)).toEqual(users.map(() => t.id))
      expect(users.map((u) => u.username)).toEqual(t.users.map((u) => u.username).sort())
      const wallets = (await c.execute('SELECT id, tenant_id FROM wallets ORDER BY id')).rows
      expect(wallets.map((w) => w.id)).toEqual(t.users.filter((u) => u.walletId !== '-').map((u) => u.walletId).sort())
      expect(wallets.every((w) => w.tenant_id === t.id)).toBe(true)
      const deliveries = (await c.execute('SELECT tenant_id, status FROM webhook_deliveries')).rows
      expect(deliveries.map((d) => [d.tenant_id, d.status])).toEqual([[t.id, 'done']])
      // the outbox row of the delivery was written and claimed in this database
      expect(Number((await c.execute("SELECT count(*) AS n FROM outbox WHERE tenant_id = ? AND dispatched_at IS NOT NULL", [t.id])).rows[0]!.n)).toBeGreaterThan(0)
      dumps.set(t, await dump(c))
      c.close()
    }
    for (const t of tenants) {
      const text = Object.values(dumps.get(t)!).join('\n')
      for (const other of tenants.filter((o) => o !== t)) {
        // b's extra user is named like a's: compare ids and wallets, not that username
        for (const mark of marks(other).filter((m) => m !== '-' && !(t.label === 'b' && m === 'a_user1') && !(other.label === 'b' && m === 'a_user1'))) {
          expect({ database: t.label, found: text.includes(mark) ? mark : null }).toEqual({ database: t.label, found: null })
        }
      }
    }
    // the control database: the three tenants and the platform admin; no tenant's users, wallets or deliveries
    expect((await control.execute('SELECT id FROM tenants ORDER BY id')).rows.map((r) => r.id)).toEqual(tenants.map((t) => t.id).sort())
    expect((await control.execute('SELECT username, role FROM users')).rows.map((r) => [r.username, r.role])).toEqual([[PROCESS_ADMIN.username, 'admin']])
    for (const table of ['wallets', 'webhooks', 'webhook_deliveries', 'signature_replays']) {
      expect({ table, rows: Number((await control.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n) }).toEqual({ table, rows: 0 })
    }
    // the platform admin's sign-ins are the control database's only sessions; its outbox holds only platform-wide jobs
    for (const table of ['refresh_tokens', 'outbox']) {
      expect({ table, rows: (await control.execute(`SELECT count(*) AS n FROM ${table} WHERE tenant_id IS NOT NULL`)).rows[0]!.n }).toEqual({ table, rows: 0 })
    }
    const controlText = Object.values(await dump(control)).join('\n')
    for (const t of tenants) for (const u of t.users.filter((x) => x.walletId !== '-')) expect(controlText.includes(u.walletId) || controlText.includes(u.id)).toBe(false)
    control.close()
    // the namespaces are databases of their own: the sqld's default namespace got nothing
    const plain = createClient({ url: `http://localhost:${ns.port}` })
    expect((await plain.execute("SELECT count(*) AS n FROM sqlite_master WHERE name = 'users'")).rows[0]!.n).toBe(0)
    plain.close()
  }, 60_000)
})
