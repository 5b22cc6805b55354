/**
 * Agent payments routes 1-24 and 54, in process: what each answers, bad input 400, another
 * tenant's ids 404, a plain user 403, keys shown once and hashed at rest, revoked keys 401,
 * the per-key rate limit, audit entries and webhook events.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { and, eq } from 'drizzle-orm'
import { getAddress } from 'viem'
import { ManualClock } from '@/lib/clock'
import { sha256Hex } from '@/lib/crypto'
import { apApiKeys } from '@/modules/agent-payments/schema'
import { webhookDeliveries } from '@/modules/webhooks/schema'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { custodialWallet } from '@tests/transactions/helpers'

const BASE = '/v1/agent-payments'
const PAY_TO = { network: 'base', address: '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001' }
const UNKNOWN = '00000000-0000-4000-8000-000000000000'

let t: TestApp
let f: Factory
let clock: ManualClock
let a: Tenant
let b: Tenant
let admin: SignedInUser
let otherAdmin: SignedInUser
let user: SignedInUser
let walletId: string
let sandboxWalletId: string

const as = (u: SignedInUser | string) => ({ token: typeof u === 'string' ? u : u.accessToken })

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2026, 10, 25, 10))
  t = await makeApp({ clock })
  f = new Factory(t)
  a = await f.tenant({ bankRamp: { sandbox: { connected: true } } })
  b = await f.tenant()
  admin = await f.tenantAdmin(a)
  otherAdmin = await f.tenantAdmin(b)
  user = await f.user(a)
  walletId = (await custodialWallet(f.api, user)).id
  const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, as(user))
  expect(w.status).toBe(201)
  sandboxWalletId = w.body.id
})

afterAll(() => t.close())

async function createPolicy(body: Record<string, unknown> = {}) {
  const r = await f.api.post(`${BASE}/policies`, { name: 'p', currency: 'USDC', limits: [{ interval: 'per_transaction', amount: '100' }, { interval: 'daily', amount: '250.50' }], ...body }, as(admin))
  expect(r.status).toBe(201)
  return r.body
}
async function createAgent(body: Record<string, unknown> = {}) {
  const r = await f.api.post(`${BASE}/agents`, { name: 'booker', walletId, ...body }, as(admin))
  expect(r.status).toBe(201)
  return r.body
}
async function createMerchant(body: Record<string, unknown> = {}) {
  const r = await f.api.post(`${BASE}/merchants`, { name: 'Rail', category: 'travel', payTo: PAY_TO, ...body }, as(admin))
  expect(r.status).toBe(201)
  return r.body
}
async function agentKey(agentId: string) {
  const r = await f.api.post(`${BASE}/agents/${agentId}/api-keys`, { name: 'worker' }, as(admin))
  expect(r.status).toBe(201)
  return r.body as { id: string; key: string; prefix: string }
}

describe('agents', () => {
  test('create, read with spend per window, list with ?status, patch', async () => {
    const policy = await createPolicy()
    const agent = await createAgent({ policyId: policy.id, description: 'trains', metadata: { team: 'ops' }, publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: 'abc' } })
    expect(agent).toMatchObject({ name: 'booker', status: 'active', walletId, policyId: policy.id, environment: 'production', metadata: { team: 'ops' }, archivedAt: null })
    const one = await f.api.get(`${BASE}/agents/${agent.id}`, as(admin))
    expect(one.status).toBe(200)
    expect(one.body.spend).toEqual({
      policyId: policy.id, policyVersion: 1, currency: 'USDC', timeZone: 'UTC', executionsToday: 0,
      windows: [
        { interval: 'per_transaction', limitAmount: '100', spentAmount: '0', remainingAmount: '100', windowStart: null, windowEnd: null },
        { interval: 'daily', limitAmount: '250.50', spentAmount: '0', remainingAmount: '250.5', windowStart: '2026-11-25T00:00:00.000Z', windowEnd: '2026-11-26T00:00:00.000Z' },
      ],
    })
    const paused = await createAgent()
    expect((await f.api.post(`${BASE}/agents/${paused.id}/pause`, {}, as(admin))).body.status).toBe('paused')
    const list = await f.api.get(`${BASE}/agents?status=paused`, as(admin))
    expect(list.status).toBe(200)
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(paused.id)
    expect(list.body.data.every((x: { status: string }) => x.status === 'paused')).toBe(true)
    expect(list.body.total).toBe(list.body.data.length)
    const all = await f.api.get(`${BASE}/agents?limit=1&offset=0`, as(admin))
    expect(all.body.data).toHaveLength(1)
    expect(all.body.total).toBeGreaterThanOrEqual(2)
    const patched = await f.api.patch(`${BASE}/agents/${agent.id}`, { name: 'renamed', policyId: null, walletId: sandboxWalletId }, as(admin))
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ name: 'renamed', policyId: null, walletId: sandboxWalletId, environment: 'sandbox' })
    expect((await f.api.get(`${BASE}/agents/${agent.id}`, as(admin))).body.spend).toBeNull()
  })

  test('pause and resume follow the states; archive is final and revokes the keys', async () => {
    const agent = await createAgent()
    expect((await f.api.post(`${BASE}/agents/${agent.id}/resume`, {}, as(admin))).status).toBe(409)
    expect((await f.api.post(`${BASE}/agents/${agent.id}/pause`, {}, as(admin))).body.status).toBe('paused')
    const again = await f.api.post(`${BASE}/agents/${agent.id}/pause`, {}, as(admin))
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('AGENT_STATE_INVALID')
    expect((await f.api.post(`${BASE}/agents/${agent.id}/resume`, {}, as(admin))).body.status).toBe('active')
    const key = await agentKey(agent.id)
    const archived = await f.api.delete(`${BASE}/agents/${agent.id}`, as(admin))
    expect(archived.status).toBe(200)
    expect(archived.body.status).toBe('archived')
    expect(archived.body.archivedAt).not.toBeNull()
    expect((await f.api.get(`${BASE}/agents/${agent.id}`, as(key.key))).status).toBe(401)
    const keys = await f.api.get(`${BASE}/agents/${agent.id}/api-keys`, as(admin))
    expect(keys.body.data[0].revokedAt).not.toBeNull()
    expect((await f.api.post(`${BASE}/agents/${agent.id}/pause`, {}, as(admin))).status).toBe(409)
    expect((await f.api.patch(`${BASE}/agents/${agent.id}`, { name: 'x' }, as(admin))).body.code).toBe('AGENT_ARCHIVED')
    expect((await f.api.post(`${BASE}/agents/${agent.id}/api-keys`, { name: 'k' }, as(admin))).status).toBe(409)
    expect((await f.api.delete(`${BASE}/agents/${agent.id}`, as(admin))).status).toBe(200)
  })

  test('bad inputs answer 400; unknown references 404', async () => {
    const bad = [
      {}, { name: '', walletId }, { name: 'x', walletId: 'nope' },
      { name: 'x', walletId, metadata: { k: 1 } }, { name: 'x', walletId, publicKeyJwk: { kty: 'EC', d: 'secret' } },
    ]
    for (const body of bad) expect({ body, status: (await f.api.post(`${BASE}/agents`, body, as(admin))).status }).toEqual({ body, status: 400 })
    expect((await f.api.post(`${BASE}/agents`, { name: 'x', walletId: UNKNOWN }, as(admin))).body.code).toBe('WALLET_NOT_FOUND')
    expect((await f.api.post(`${BASE}/agents`, { name: 'x', walletId, policyId: UNKNOWN }, as(admin))).body.code).toBe('POLICY_NOT_FOUND')
    expect((await f.api.get(`${BASE}/agents?limit=201`, as(admin))).status).toBe(400)
    expect((await f.api.get(`${BASE}/agents?status=gone`, as(admin))).status).toBe(400)
    expect((await f.api.get(`${BASE}/agents/not-a-uuid`, as(admin))).status).toBe(400)
    expect((await f.api.patch(`${BASE}/agents/${UNKNOWN}`, {}, as(admin))).status).toBe(400)
  })

  test('a wallet the service does not sign for is refused', async () => {
    const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts')
    const { clientWallet } = await import('@tests/transactions/helpers')
    const w = await clientWallet(f.api, user, privateKeyToAccount(generatePrivateKey()))
    const r = await f.api.post(`${BASE}/agents`, { name: 'x', walletId: w.id }, as(admin))
    expect(r.status).toBe(400)
    expect(r.body.code).toBe('AGENT_WALLET_NOT_CUSTODIAL')
  })
})

describe('credentials', () => {
  test('no token 401, a plain user 403, another tenant\'s admin 404 on every kind of id', async () => {
    const agent = await createAgent()
    const policy = await createPolicy()
    const merchant = await createMerchant()
    const key = await agentKey(agent.id)
    expect((await f.api.get(`${BASE}/agents`)).status).toBe(401)
    for (const path of ['/agents', '/policies', '/merchants', '/audit-log', `/agents/${agent.id}`]) {
      expect({ path, status: (await f.api.get(`${BASE}${path}`, as(user))).status }).toEqual({ path, status: 403 })
    }
    for (const path of [`/agents/${agent.id}`, `/policies/${policy.id}`, `/merchants/${merchant.id}`, `/agents/${agent.id}/api-keys`, `/merchants/${merchant.id}/api-keys`]) {
      const r = await f.api.get(`${BASE}${path}`, as(otherAdmin))
      expect({ path, status: r.status }).toEqual({ path, status: 404 })
    }
    expect((await f.api.delete(`${BASE}/agents/${agent.id}/api-keys/${key.id}`, as(otherAdmin))).status).toBe(404)
    expect((await f.api.get(`${BASE}/agents`, as(otherAdmin))).body.data).toEqual([])
    // another tenant's wallet is not found either
    const otherUser = await f.user(b)
    const otherWallet = await custodialWallet(f.api, otherUser)
    expect((await f.api.post(`${BASE}/agents`, { name: 'x', walletId: otherWallet.id }, as(admin))).status).toBe(404)
  })

  test('a platform admin names the tenant; without it 400', async () => {
    const token = await f.adminToken()
    expect((await f.api.get(`${BASE}/agents`, as(token))).status).toBe(400)
    const listed = await f.api.get(`${BASE}/agents?tenantId=${a.id}`, as(token))
    expect(listed.status).toBe(200)
    expect(listed.body.total).toBeGreaterThan(0)
    const made = await f.api.post(`${BASE}/merchants`, { tenantId: b.id, name: 'B shop', payTo: PAY_TO }, as(token))
    expect(made.status).toBe(201)
    expect((await f.api.get(`${BASE}/merchants/${made.body.id}`, as(otherAdmin))).status).toBe(200)
    expect((await f.api.get(`${BASE}/merchants/${made.body.id}`, as(admin))).status).toBe(404)
    // a tenantadmin naming another tenant: 404
    expect((await f.api.get(`${BASE}/agents?tenantId=${b.id}`, as(admin))).status).toBe(404)
  })

  test('an agent key is shown once, stored hashed, reads only its own agent and no other route', async () => {
    const agent = await createAgent()
    const other = await createAgent()
    const key = await agentKey(agent.id)
    expect(key.key).toStartWith('sk_agent_')
    expect(key.prefix).toBe(key.key.slice(0, 13))
    const listed = await f.api.get(`${BASE}/agents/${agent.id}/api-keys`, as(admin))
    expect(listed.body.data).toEqual([{ id: key.id, name: 'worker', prefix: key.prefix, scopes: [], lastUsedAt: null, revokedAt: null, createdAt: expect.any(String) }])
    expect(JSON.stringify(listed.body)).not.toContain(key.key)
    const row = await t.deps.database.db.select().from(apApiKeys).where(eq(apApiKeys.id, key.id)).get()
    expect(row!.keyHash).toBe(sha256Hex(key.key))
    expect(JSON.stringify(row)).not.toContain(key.key)

    const own = await f.api.get(`${BASE}/agents/${agent.id}`, as(key.key))
    expect(own.status).toBe(200)
    expect(own.body.id).toBe(agent.id)
    expect((await f.api.get(`${BASE}/agents/${other.id}`, as(key.key))).status).toBe(404)
    for (const [method, path] of [['GET', '/agents'], ['POST', `/agents/${agent.id}/pause`], ['GET', '/policies'], ['GET', '/audit-log']] as const) {
      const r = await f.api.call(method, `${BASE}${path}`, method === 'POST' ? {} : undefined, as(key.key))
      expect({ path, status: r.status }).toEqual({ path, status: 403 })
    }
    expect((await f.api.get(`${BASE}/agents/${agent.id}`, as('sk_agent_made-up'))).status).toBe(401)
    // lastUsedAt: written on use, then at most once a minute
    const used = (await f.api.get(`${BASE}/agents/${agent.id}/api-keys`, as(admin))).body.data[0].lastUsedAt
    expect(used).toBe(new Date(clock.now()).toISOString())

    const revoked = await f.api.delete(`${BASE}/agents/${agent.id}/api-keys/${key.id}`, as(admin))
    expect(revoked.status).toBe(200)
    expect(revoked.body.revokedAt).not.toBeNull()
    const after = await f.api.get(`${BASE}/agents/${agent.id}`, as(key.key))
    expect(after.status).toBe(401)
    expect(after.body).toMatchObject({ statusCode: 401, error: 'UnauthorizedError' })
    expect((await f.api.delete(`${BASE}/agents/${agent.id}/api-keys/${UNKNOWN}`, as(admin))).status).toBe(404)
  })

  test('a key gets 120 requests a minute; the 121st answers 403 Rate limit exceeded', async () => {
    const agent = await createAgent()
    const key = await agentKey(agent.id)
    clock.advance(60_000)
    for (let i = 0; i < 120; i++) expect((await f.api.get(`${BASE}/agents/${agent.id}`, as(key.key))).status).toBe(200)
    const over = await f.api.get(`${BASE}/agents/${agent.id}`, as(key.key))
    expect(over.status).toBe(403)
    expect(over.body.message).toBe('Rate limit exceeded')
    // another key is counted apart
    const second = await agentKey(agent.id)
    expect((await f.api.get(`${BASE}/agents/${agent.id}`, as(second.key))).status).toBe(200)
    clock.advance(60_000)
    expect((await f.api.get(`${BASE}/agents/${agent.id}`, as(key.key))).status).toBe(200)
  })

  test('a merchant key is refused outside the shopper routes: 403; revoked: 401', async () => {
    const merchant = await createMerchant()
    const made = await f.api.post(`${BASE}/merchants/${merchant.id}/api-keys`, { name: 'shop', scopes: ['shoppers:read'] }, as(admin))
    expect((await f.api.get(`${BASE}/merchants`, as(made.body.key))).status).toBe(403)
    await f.api.delete(`${BASE}/merchants/${merchant.id}/api-keys/${made.body.id}`, as(admin))
    expect((await f.api.get(`${BASE}/merchants`, as(made.body.key))).status).toBe(401)
  })
})

describe('policies', () => {
  test('create, list, one with version, patch makes version + 1, no-op patch keeps it', async () => {
    const p = await createPolicy({ approvalMode: 'threshold', approvalThreshold: '50', allowedNetworks: ['base'], activeHours: { timeZone: 'Europe/Berlin', days: ['mon'], start: '08:00', end: '18:00' } })
    expect(p).toMatchObject({ version: 1, approvalMode: 'threshold', approvalThreshold: '50', allowedMerchantIds: null, maxExecutionsPerDay: null })
    expect((await f.api.get(`${BASE}/policies/${p.id}`, as(admin))).body).toEqual(p)
    const list = await f.api.get(`${BASE}/policies`, as(admin))
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(p.id)
    const patched = await f.api.patch(`${BASE}/policies/${p.id}`, { approvalMode: 'always', maxExecutionsPerDay: 5 }, as(admin))
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ version: 2, approvalMode: 'always', approvalThreshold: null, maxExecutionsPerDay: 5 })
    const same = await f.api.patch(`${BASE}/policies/${p.id}`, { maxExecutionsPerDay: 5 }, as(admin))
    expect(same.body.version).toBe(2)
    const cleared = await f.api.patch(`${BASE}/policies/${p.id}`, { maxExecutionsPerDay: null, activeHours: null }, as(admin))
    expect(cleared.body).toMatchObject({ version: 3, maxExecutionsPerDay: null, activeHours: null })
  })

  test('refusals: schema 400, rules 400 POLICY_INVALID', async () => {
    const base = { name: 'p', currency: 'USDC', limits: [] as unknown[] }
    for (const body of [{}, { ...base, limits: [{ interval: 'hourly', amount: '1' }] }, { ...base, limits: [{ interval: 'daily', amount: '1.5e3' }] }, { ...base, limits: [{ interval: 'daily', amount: 5 }] }, { ...base, approvalMode: 'sometimes' }]) {
      expect({ body, status: (await f.api.post(`${BASE}/policies`, body, as(admin))).status }).toEqual({ body, status: 400 })
    }
    const merchantOfB = (await f.api.post(`${BASE}/merchants`, { tenantId: b.id, name: 'b', payTo: PAY_TO }, as(await f.adminToken()))).body.id
    for (const body of [
      { ...base, limits: [{ interval: 'daily', amount: '1' }, { interval: 'daily', amount: '2' }] },
      { ...base, limits: [{ interval: 'daily', amount: '0' }] },
      { ...base, approvalMode: 'threshold' },
      { ...base, approvalThreshold: '5' },
      { ...base, allowedNetworks: ['atlantis'] },
      { ...base, activeHours: { timeZone: 'Mars/Olympus', days: ['mon'], start: '08:00', end: '09:00' } },
      { ...base, activeHours: { timeZone: 'UTC', days: ['mon'], start: '10:00', end: '09:00' } },
      { ...base, allowedMerchantIds: [UNKNOWN] },
      { ...base, blockedMerchantIds: [merchantOfB] },
    ]) {
      const r = await f.api.post(`${BASE}/policies`, body, as(admin))
      expect({ body, status: r.status, code: r.body.code }).toEqual({ body, status: 400, code: 'POLICY_INVALID' })
    }
  })

  test('delete: 409 POLICY_IN_USE while an agent uses it, then 204 and gone', async () => {
    const p = await createPolicy()
    const agent = await createAgent({ policyId: p.id })
    const inUse = await f.api.delete(`${BASE}/policies/${p.id}`, as(admin))
    expect(inUse.status).toBe(409)
    expect(inUse.body).toMatchObject({ statusCode: 409, code: 'POLICY_IN_USE' })
    await f.api.delete(`${BASE}/agents/${agent.id}`, as(admin))
    expect((await f.api.delete(`${BASE}/policies/${p.id}`, as(admin))).status).toBe(204)
    expect((await f.api.get(`${BASE}/policies/${p.id}`, as(admin))).status).toBe(404)
    expect((await f.api.delete(`${BASE}/policies/${p.id}`, as(admin))).status).toBe(404)
  })

  test('simulate answers the decision and its reasons and stores nothing', async () => {
    const merchant = await createMerchant()
    const p = await createPolicy({ approvalMode: 'threshold', approvalThreshold: '50', allowedCategories: ['travel'] })
    const agent = await createAgent({ policyId: p.id })
    const audit = (await f.api.get(`${BASE}/audit-log`, as(admin))).body.total
    const sim = (body: Record<string, unknown>) => f.api.post(`${BASE}/policies/${p.id}/simulate`, { agentId: agent.id, merchantId: merchant.id, currency: 'USDC', rail: 'onchain', ...body }, as(admin))
    expect((await sim({ amount: '20' })).body).toEqual({ decision: 'allow', reasons: [], policyId: p.id, policyVersion: 1, evaluatedAt: new Date(clock.now()).toISOString() })
    expect((await sim({ amount: '60' })).body).toMatchObject({ decision: 'require_approval', reasons: [{ code: 'APPROVAL_THRESHOLD' }] })
    const denied = await sim({ amount: '150', currency: 'EURe' })
    expect(denied.body.decision).toBe('deny')
    expect(denied.body.reasons.map((r: { code: string }) => r.code)).toEqual(['CURRENCY_NOT_ALLOWED', 'LIMIT_EXCEEDED'])
    const noMerchant = await f.api.post(`${BASE}/policies/${p.id}/simulate`, { agentId: agent.id, amount: '1', currency: 'USDC', rail: 'x402' }, as(admin))
    expect(noMerchant.body.reasons.map((r: { code: string }) => r.code)).toEqual(['CATEGORY_NOT_ALLOWED'])
    expect((await sim({ amount: '1', agentId: UNKNOWN })).status).toBe(404)
    expect((await sim({ amount: '1', merchantId: UNKNOWN })).status).toBe(404)
    expect((await sim({ amount: '-1' })).status).toBe(400)
    expect((await sim({ amount: '1', rail: 'card' })).status).toBe(400)
    expect((await f.api.get(`${BASE}/audit-log`, as(admin))).body.total).toBe(audit)
  })
})

describe('merchants', () => {
  test('create validates payTo and stores the checksummed address; list, one, patch, disable', async () => {
    const m = await createMerchant({ website: 'https://rail.example.com' })
    expect(m).toMatchObject({ status: 'active', environment: 'production', payTo: { network: 'base', address: getAddress(PAY_TO.address) } })
    expect((await f.api.get(`${BASE}/merchants/${m.id}`, as(admin))).body).toEqual(m)
    const sandbox = await createMerchant({ payTo: { network: 'sepolia', address: PAY_TO.address } })
    expect(sandbox.environment).toBe('sandbox')
    const sol = await createMerchant({ payTo: { network: 'solana', address: '4Nd1mYQzvgV8Vr3Z3nYb7pY6Vv9n2uJbRk3cJp3gq6Qe' } })
    expect(sol.payTo.network).toBe('solana')
    for (const payTo of [{ network: 'atlantis', address: PAY_TO.address }, { network: 'base', address: '0x1234' }, { network: 'solana', address: PAY_TO.address }, { network: 'base', address: `0x${'0'.repeat(40)}` }]) {
      const r = await f.api.post(`${BASE}/merchants`, { name: 'x', payTo }, as(admin))
      expect({ payTo, status: r.status, code: r.body.code }).toEqual({ payTo, status: 400, code: 'MERCHANT_PAY_TO_INVALID' })
    }
    expect((await f.api.post(`${BASE}/merchants`, { name: 'x' }, as(admin))).status).toBe(400)
    expect((await f.api.post(`${BASE}/merchants`, { name: 'x', payTo: PAY_TO, category: 'Bad Category' }, as(admin))).status).toBe(400)
    const patched = await f.api.patch(`${BASE}/merchants/${m.id}`, { category: null, name: 'Rail EU' }, as(admin))
    expect(patched.body).toMatchObject({ name: 'Rail EU', category: null })
    const key = await f.api.post(`${BASE}/merchants/${m.id}/api-keys`, { name: 'shop', scopes: ['shoppers:read', 'executions:read'] }, as(admin))
    expect(key.status).toBe(201)
    expect(key.body.key).toStartWith('sk_merch_')
    expect(key.body.scopes).toEqual(['shoppers:read', 'executions:read'])
    expect((await f.api.post(`${BASE}/merchants/${m.id}/api-keys`, { name: 'shop', scopes: ['wallets:drain'] }, as(admin))).status).toBe(400)
    expect((await f.api.post(`${BASE}/merchants/${m.id}/api-keys`, { name: 'shop', scopes: [] }, as(admin))).status).toBe(400)
    const keys = await f.api.get(`${BASE}/merchants/${m.id}/api-keys`, as(admin))
    expect(keys.body).toEqual({ data: [{ id: key.body.id, name: 'shop', prefix: key.body.prefix, scopes: ['shoppers:read', 'executions:read'], lastUsedAt: null, revokedAt: null, createdAt: expect.any(String) }], total: 1 })
    const disabled = await f.api.delete(`${BASE}/merchants/${m.id}`, as(admin))
    expect(disabled.body).toMatchObject({ status: 'disabled' })
    expect((await f.api.get(`${BASE}/merchants/${m.id}/api-keys`, as(admin))).body.data[0].revokedAt).not.toBeNull()
    expect((await f.api.post(`${BASE}/merchants/${m.id}/api-keys`, { name: 'k', scopes: ['shoppers:read'] }, as(admin))).body.code).toBe('MERCHANT_DISABLED')
    expect((await f.api.get(`${BASE}/merchants?status=disabled`, as(admin))).body.data.map((x: { id: string }) => x.id)).toEqual([m.id])
  })
})

describe('audit log and webhook events', () => {
  test('every change is audited with actor, before and after, never a key; events go out in the same transaction', async () => {
    const hook = await f.api.put(`/v1/admin/tenants/${a.id}/webhooks/sandbox`, { url: 'https://hooks.example.com/in', eventTypes: [] }, as(await f.adminToken()))
    expect(hook.status).toBe(201)
    const agent = (await f.api.post(`${BASE}/agents`, { name: 'evented', walletId: sandboxWalletId }, as(admin))).body
    await f.api.patch(`${BASE}/agents/${agent.id}`, { name: 'evented 2' }, as(admin))
    const key = await agentKey(agent.id)
    await f.api.delete(`${BASE}/agents/${agent.id}`, as(admin))

    const log = await f.api.get(`${BASE}/audit-log?resourceId=${agent.id}`, as(admin))
    expect(log.status).toBe(200)
    expect(log.body.data.map((e: { action: string }) => e.action)).toEqual(['agent.archived', 'agent.updated', 'agent.created'])
    const updated = log.body.data[1]
    expect(updated).toMatchObject({ actorType: 'user', actorId: admin.id, resourceType: 'agent', before: { name: 'evented' }, after: { name: 'evented 2' } })
    const keyLog = await f.api.get(`${BASE}/audit-log?resourceType=agent_api_key&resourceId=${key.id}`, as(admin))
    expect(keyLog.body.data.map((e: { action: string }) => e.action)).toEqual(['agent_api_key.revoked', 'agent_api_key.created'])
    const everything = JSON.stringify((await f.api.get(`${BASE}/audit-log?limit=200`, as(admin))).body)
    expect(everything).not.toContain(key.key)
    expect(everything).not.toContain(sha256Hex(key.key))
    expect((await f.api.get(`${BASE}/audit-log?actorType=agent`, as(admin))).body.total).toBe(0)
    expect((await f.api.get(`${BASE}/audit-log?resourceType=wallet`, as(admin))).status).toBe(400)
    // the other tenant's log holds only its own changes (the merchant a platform admin made for it above)
    const others = (await f.api.get(`${BASE}/audit-log`, as(otherAdmin))).body.data as Array<{ resourceType: string; resourceId: string }>
    expect(others.every((e) => e.resourceType === 'merchant' && e.resourceId !== agent.id)).toBe(true)

    const deliveries = await t.deps.database.db.select().from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.tenantId, a.id), eq(webhookDeliveries.environment, 'sandbox')))
    const types = deliveries.map((d) => d.type)
    for (const type of ['agent_payments.agent.created', 'agent_payments.agent.updated', 'agent_payments.agent_api_key.created', 'agent_payments.agent_api_key.revoked', 'agent_payments.agent.archived']) expect(types).toContain(type)
    const created = deliveries.find((d) => d.type === 'agent_payments.agent.created')!
    const body = JSON.parse(created.body as string)
    expect(body.data).toMatchObject({ id: agent.id, name: 'evented', environment: 'sandbox', actor: { type: 'user', id: admin.id } })
    expect(deliveries.map((d) => d.body).join()).not.toContain(key.key)
    // a policy's events go to both environments' webhooks: the sandbox one here
    await createPolicy()
    const after = await t.deps.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.tenantId, a.id))
    expect(after.map((d) => d.type)).toContain('agent_payments.policy.created')
  })
})
