/**
 * The world of the write-batch tests (reserve-batch, read-keep): an app on a file or on a sqld
 * primary, a tenant with its tenantadmin and one merchant, agents made with a policy of given
 * limits and their owner's wallet consent, and a row count straight from the database.
 */
import { afterAll, beforeAll, expect } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startSqld, type Sqld } from '@tests/helpers/sqld'

export const BASE = '/v1/agent-payments'
export const as = (u: SignedInUser) => ({ token: u.accessToken })
export type Where = 'a file' | 'a remote primary (sqld)'

export interface BatchWorld {
  t: TestApp
  f: Factory
  tenant: Tenant
  admin: SignedInUser
  merchantId: string
}

/** Registers the world's beforeAll and afterAll in the calling describe; its fields are set once beforeAll ran. */
export function batchWorld(where: Where, env: Record<string, string> = {}) {
  let sqld: Sqld | undefined
  const w = {} as BatchWorld
  beforeAll(async () => {
    sqld = where === 'a file' ? undefined : await startSqld()
    w.t = await makeApp({ env: { ...(sqld ? { DATABASE_URL: sqld.url } : {}), ...env } })
    w.f = new Factory(w.t)
    w.tenant = await w.f.tenant()
    w.admin = await w.f.tenantAdmin(w.tenant)
    const m = await w.f.api.post(`${BASE}/merchants`, { name: 'shop', category: 'travel', payTo: { network: 'sepolia', address: '0x' + '5a'.repeat(20) } }, as(w.admin))
    expect(m.status).toBe(201)
    w.merchantId = m.body.id
  })
  afterAll(async () => {
    w.t?.close()
    await sqld?.stop()
  })

  /** An agent on a new user's wallet (consented), under a new policy with these limits that always asks for approval. */
  async function agentWith(limits: Array<{ interval: string; amount: string }>) {
    const { f, tenant, admin } = w
    const owner = await f.user(tenant)
    const wallet = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, as(owner))
    expect(wallet.status).toBe(201)
    const p = await f.api.post(`${BASE}/policies`, { name: 'p', currency: 'USDC', limits, approvalMode: 'always' }, as(admin))
    expect(p.status).toBe(201)
    const a = await f.api.post(`${BASE}/agents`, { name: 'booker', walletId: wallet.body.id, policyId: p.body.id }, as(admin))
    expect(a.status).toBe(201)
    expect((await f.api.post(`${BASE}/agents/${a.body.id}/wallet-consent`, {}, as(owner))).status).toBe(200)
    return { agentId: a.body.id as string, policyId: p.body.id as string }
  }

  /** Rows of `table` matching `cond`, read straight from the database. */
  const count = async (table: string, cond: string, args: Array<string | number>) =>
    Number((await w.t.deps.database.client.execute({ sql: `SELECT count(*) AS n FROM ${table} WHERE ${cond}`, args })).rows[0]!.n)

  return { world: w, agentWith, count }
}
