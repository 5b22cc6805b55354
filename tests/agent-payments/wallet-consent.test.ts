/**
 * The wallet owner's consent (issue 37, item 5), over HTTP on a local chain posing as Sepolia
 * (anvil, the registry's Sepolia USDC), the job worker running: an agent a tenant admin bound
 * to a user's wallet cannot pay from it (409 AGENT_WALLET_CONSENT_REQUIRED, nothing stored,
 * no USDC moves) until the owner consents with their own token; nobody else can consent for
 * them; a withdrawn consent stops the next payment, also one approved after it; another wallet
 * clears it; a tenant admin's own wallet is consented by binding it; and the tenant setting
 * `agentPayments.tenantManagesUserWallets`, which only a platform admin may turn on.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseEther, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { systemClock } from '@/lib/clock'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { until } from '@tests/helpers/until'
import { reader } from '@tests/transactions/helpers'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'

const BASE = '/v1/agent-payments'
const USDC: Address = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'

let chain: LocalChain
let t: TestApp
let server: HttpServer
let f: Factory
let tenant: Tenant
let admin: SignedInUser
let owner: SignedInUser
let neighbour: SignedInUser
let foreigner: SignedInUser
let merchant: { id: string; payTo: { address: Address } }
let policyId: string
let wallet: { id: string; address: Address }
let agent: { id: string; key: string }

const as = (u: SignedInUser | string) => ({ token: typeof u === 'string' ? u : u.accessToken })
const balanceOf = (a: Address) => reader(chain.url).tokenBalance(USDC, a)
const consentUrl = (agentId: string) => `${BASE}/agents/${agentId}/wallet-consent`

async function fundedWallet(u: SignedInUser, usdc: bigint) {
  const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, as(u))
  expect(w.status).toBe(201)
  await chain.sendNative(w.body.address, parseEther('1'))
  if (usdc > 0n) await chain.sendToken(w.body.address, usdc, USDC)
  return w.body as { id: string; address: Address }
}
async function newAgent(walletId: string, by: SignedInUser = admin) {
  const r = await f.api.post(`${BASE}/agents`, { name: 'booker', walletId, policyId }, as(by))
  expect(r.status).toBe(201)
  const k = await f.api.post(`${BASE}/agents/${r.body.id}/api-keys`, { name: 'worker' }, as(by))
  expect(k.status).toBe(201)
  return { id: r.body.id as string, key: k.body.key as string, view: r.body }
}
const pay = (who: { id: string; key: string }, amount: string) =>
  f.api.post(`${BASE}/executions`, { agentId: who.id, merchantId: merchant.id, currency: 'USDC', rail: 'onchain', amount }, as(who.key))
const final = (id: string) => until(() => f.api.get(`${BASE}/executions/${id}`, as(admin)), (r) => !['processing', 'requires_approval'].includes(r.body.status), 30_000)
const executionsOf = async (agentId: string) => (await f.api.get(`${BASE}/executions?agentId=${agentId}`, as(admin))).body.total as number
const outcome = (r: { status: number; body: { code?: string } }) => `${r.status} ${r.body.code ?? ''}`.trim()
const setManaged = (on: boolean, token: string | SignedInUser) => f.api.patch(`/v1/admin/tenants/${tenant.id}`, { agentPayments: { tenantManagesUserWallets: on } }, as(token))

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 11155111 })
  await chain.placeToken(USDC)
  t = await makeApp({ clock: systemClock, jobs: true, env: { RPC_URL_SEPOLIA: chain.url } })
  server = serve(t)
  f = new Factory(t, new Api(server.url))
  tenant = await f.tenant()
  const other = await f.tenant()
  admin = await f.tenantAdmin(tenant)
  owner = await f.user(tenant)
  neighbour = await f.user(tenant)
  foreigner = await f.user(other)
  const m = await f.api.post(`${BASE}/merchants`, { name: 'shop', payTo: { network: 'sepolia', address: privateKeyToAccount(generatePrivateKey()).address } }, as(admin))
  expect(m.status).toBe(201)
  merchant = m.body
  const p = await f.api.post(`${BASE}/policies`, { name: 'p', currency: 'USDC', limits: [{ interval: 'daily', amount: '1000' }], approvalMode: 'threshold', approvalThreshold: '5' }, as(admin))
  expect(p.status).toBe(201)
  policyId = p.body.id
  wallet = await fundedWallet(owner, 100_000_000n)
  agent = await newAgent(wallet.id)
}, 60_000)

afterAll(async () => {
  await server.stop()
  await t.close()
  await chain.stop()
})

describe('an agent on a user\'s wallet, without the owner\'s consent', () => {
  test('pays nothing: 409 AGENT_WALLET_CONSENT_REQUIRED, no execution stored, no USDC moves', async () => {
    const before = await balanceOf(wallet.address)
    const r = await pay(agent, '1')
    expect(outcome(r)).toBe('409 AGENT_WALLET_CONSENT_REQUIRED')
    expect((await f.api.get(`${BASE}/agents/${agent.id}`, as(admin))).body.walletConsent).toBeNull()
    // the tenant admin's token changes nothing
    expect(outcome(await f.api.post(`${BASE}/executions`, { agentId: agent.id, merchantId: merchant.id, currency: 'USDC', rail: 'onchain', amount: '1' }, as(admin)))).toBe('409 AGENT_WALLET_CONSENT_REQUIRED')
    expect(await executionsOf(agent.id)).toBe(0)
    expect(await balanceOf(wallet.address)).toBe(before)
    expect(await balanceOf(merchant.payTo.address)).toBe(0n)
  })

  test('nobody but the owner can consent: another user, the tenant admin, another tenant\'s user 404; a key 403; no token 401; bad id 400', async () => {
    for (const u of [neighbour, admin, foreigner]) expect((await f.api.post(consentUrl(agent.id), {}, as(u))).status).toBe(404)
    expect((await f.api.get(consentUrl(agent.id), as(neighbour))).status).toBe(404)
    expect((await f.api.delete(consentUrl(agent.id), as(foreigner))).status).toBe(404)
    expect((await f.api.post(consentUrl(agent.id), {}, as(agent.key))).status).toBe(403)
    expect((await f.api.post(consentUrl(agent.id), {})).status).toBe(401)
    expect((await f.api.post(consentUrl('not-a-uuid'), {}, as(owner))).status).toBe(400)
    expect((await f.api.post(consentUrl('00000000-0000-4000-8000-000000000000'), {}, as(owner))).status).toBe(404)
    expect(outcome(await pay(agent, '1'))).toBe('409 AGENT_WALLET_CONSENT_REQUIRED')
  })

  test('an archived agent: consent answers 409 AGENT_ARCHIVED', async () => {
    const w = await fundedWallet(owner, 0n)
    const archived = await newAgent(w.id)
    expect((await f.api.delete(`${BASE}/agents/${archived.id}`, as(admin))).status).toBe(200)
    expect(outcome(await f.api.post(consentUrl(archived.id), {}, as(owner)))).toBe('409 AGENT_ARCHIVED')
  })
})

describe('the owner consents', () => {
  test('the owner sees the agent and consents; audited; then the agent pays and the USDC moves', async () => {
    const seen = await f.api.get(consentUrl(agent.id), as(owner))
    expect(seen.body).toMatchObject({ agentId: agent.id, walletId: wallet.id, policyId, consented: false, grantedAt: null })
    const r = await f.api.post(consentUrl(agent.id), {}, as(owner))
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ agentId: agent.id, consented: true, grantedAt: expect.any(String) })
    expect((await f.api.post(consentUrl(agent.id), {}, as(owner))).body).toEqual(r.body)
    expect((await f.api.get(`${BASE}/agents/${agent.id}`, as(admin))).body.walletConsent).toEqual({ grantedBy: owner.id, grantedAt: r.body.grantedAt })
    const log = await f.api.get(`${BASE}/audit-log?resourceType=agent&resourceId=${agent.id}`, as(admin))
    expect(log.body.data[0]).toMatchObject({ action: 'agent.wallet_consent_granted', actorType: 'user', actorId: owner.id })
    expect(log.body.data.filter((e: { action: string }) => e.action === 'agent.wallet_consent_granted')).toHaveLength(1)

    const before = await balanceOf(merchant.payTo.address)
    const paid = await pay(agent, '1.5')
    expect(paid.status).toBe(201)
    expect((await final(paid.body.id)).body.status).toBe('succeeded')
    expect(await balanceOf(merchant.payTo.address)).toBe(before + 1_500_000n)
  }, 60_000)

  test('withdrawn: the next payment is refused, and one approved after the withdrawal fails without moving money', async () => {
    const waiting = await pay(agent, '6')
    expect(waiting.body.status).toBe('requires_approval')
    const r = await f.api.delete(consentUrl(agent.id), as(owner))
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ consented: false, grantedAt: null })
    expect(outcome(await pay(agent, '1'))).toBe('409 AGENT_WALLET_CONSENT_REQUIRED')
    const before = await balanceOf(wallet.address)
    const approval = (await f.api.get(`${BASE}/approvals?status=pending`, as(admin))).body.data.find((a: { executionId: string }) => a.executionId === waiting.body.id)
    expect((await f.api.post(`${BASE}/approvals/${approval.id}/approve`, {}, as(admin))).status).toBe(200)
    const done = await final(waiting.body.id)
    expect(done.body.status).toBe('failed')
    expect(done.body.failureReason).toStartWith('AGENT_WALLET_CONSENT_REQUIRED')
    expect(done.body.transactionId).toBeNull()
    expect(await balanceOf(wallet.address)).toBe(before)
    const log = await f.api.get(`${BASE}/audit-log?resourceType=agent&resourceId=${agent.id}`, as(admin))
    expect(log.body.data[0]).toMatchObject({ action: 'agent.wallet_consent_revoked', actorId: owner.id })
  }, 60_000)

  test('another wallet clears the consent; a tenant admin\'s own wallet is consented by binding it', async () => {
    expect((await f.api.post(consentUrl(agent.id), {}, as(owner))).status).toBe(200)
    const second = await fundedWallet(owner, 0n)
    const moved = await f.api.patch(`${BASE}/agents/${agent.id}`, { walletId: second.id }, as(admin))
    expect(moved.status).toBe(200)
    expect(moved.body.walletConsent).toBeNull()
    expect(outcome(await pay(agent, '1'))).toBe('409 AGENT_WALLET_CONSENT_REQUIRED')
    expect((await f.api.patch(`${BASE}/agents/${agent.id}`, { walletId: wallet.id }, as(admin))).body.walletConsent).toBeNull()

    const treasury = await fundedWallet(admin, 10_000_000n)
    const own = await newAgent(treasury.id)
    expect(own.view.walletConsent).toMatchObject({ grantedBy: admin.id })
    const paid = await pay(own, '1')
    expect(paid.status).toBe(201)
    expect((await final(paid.body.id)).body.status).toBe('succeeded')
    expect(await balanceOf(treasury.address)).toBe(9_000_000n)
  }, 60_000)
})

describe('the tenant manages its users\' wallets (a platform admin\'s setting)', () => {
  test('a tenant admin cannot turn it on; a platform admin can, and then the agent pays without consent; off again: refused', async () => {
    expect(outcome(await setManaged(true, admin))).toBe('403 SETTING_PLATFORM_ADMIN_ONLY')
    expect(outcome(await pay(agent, '1'))).toBe('409 AGENT_WALLET_CONSENT_REQUIRED')
    const on = await setManaged(true, await f.adminToken())
    expect(on.status).toBe(200)
    expect(on.body.settings.agentPayments).toEqual({ tenantManagesUserWallets: true })
    const before = await balanceOf(wallet.address)
    const paid = await pay(agent, '1')
    expect(paid.status).toBe(201)
    expect((await final(paid.body.id)).body.status).toBe('succeeded')
    expect(await balanceOf(wallet.address)).toBe(before - 1_000_000n)
    // turning it off is anyone's of the two
    expect((await setManaged(false, admin)).status).toBe(200)
    expect(outcome(await pay(agent, '1'))).toBe('409 AGENT_WALLET_CONSENT_REQUIRED')
  }, 60_000)
})
