/**
 * An approval nobody decides expires after AGENT_PAYMENTS_APPROVAL_TTL_MS (here 1 s): the
 * `agent_payments.approval.expire` job, run by the app's worker, makes it `expired` and its
 * execution `expired`, audited; approving it afterwards answers 409. Nothing is sent on chain.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts'
import { systemClock } from '@/lib/clock'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser } from '@tests/helpers/factories'
import { until } from '@tests/helpers/until'

const BASE = '/v1/agent-payments'
let t: TestApp
let f: Factory
let admin: SignedInUser
let walletId: string
let user: SignedInUser

beforeAll(async () => {
  t = await makeApp({ clock: systemClock, jobs: true, env: { AGENT_PAYMENTS_APPROVAL_TTL_MS: '1000' } })
  f = new Factory(t)
  const tenant = await f.tenant()
  admin = await f.tenantAdmin(tenant)
  user = await f.user(tenant)
  const wallet = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: user.accessToken })
  expect(wallet.status).toBe(201)
  walletId = wallet.body.id
})
afterAll(() => t.close())

test('a pending approval expires with its execution', async () => {
  const token = { token: admin.accessToken }
  const policy = await f.api.post(`${BASE}/policies`, { name: 'ask', currency: 'USDC', limits: [], approvalMode: 'always' }, token)
  const agent = await f.api.post(`${BASE}/agents`, { name: 'a', walletId, policyId: policy.body.id }, token)
  // the wallet's owner lets the agent pay from it (docs/agent-payments.md, "The wallet owner's consent")
  expect((await f.api.post(`${BASE}/agents/${agent.body.id}/wallet-consent`, {}, { token: user.accessToken })).status).toBe(200)
  const merchant = await f.api.post(`${BASE}/merchants`, { name: 'm', payTo: { network: 'sepolia', address: privateKeyToAccount(generatePrivateKey()).address } }, token)
  const ex = await f.api.post(`${BASE}/executions`, { agentId: agent.body.id, merchantId: merchant.body.id, amount: '3', currency: 'USDC', rail: 'onchain' }, token)
  expect(ex.status).toBe(201)
  expect(ex.body).toMatchObject({ status: 'requires_approval', reasons: [expect.objectContaining({ code: 'APPROVAL_ALWAYS' })] })
  const approval = (await f.api.get(`${BASE}/approvals?status=pending`, token)).body.data[0]
  expect(Date.parse(approval.expiresAt) - Date.parse(approval.createdAt)).toBe(1000)
  const done = await until(() => f.api.get(`${BASE}/executions/${ex.body.id}`, token), (r) => r.body.status !== 'requires_approval', 15_000)
  expect(done.body.status).toBe('expired')
  expect((await f.api.get(`${BASE}/approvals/${approval.id}`, token)).body.status).toBe('expired')
  expect((await f.api.post(`${BASE}/approvals/${approval.id}/approve`, {}, token)).status).toBe(409)
  const audit = await f.api.get(`${BASE}/audit-log?actorType=system`, token)
  expect(audit.body.data.map((e: { action: string }) => e.action).sort()).toEqual(['approval.expired', 'execution.expired'])
}, 30_000)

test('an execution waiting for its human\'s confirmation expires; confirming it afterwards answers 409', async () => {
  const token = { token: admin.accessToken }
  const policy = await f.api.post(`${BASE}/policies`, { name: 'free', currency: 'USDC', limits: [], approvalMode: 'auto' }, token)
  const agent = await f.api.post(`${BASE}/agents`, { name: 'h', walletId, policyId: policy.body.id }, token)
  expect((await f.api.post(`${BASE}/agents/${agent.body.id}/wallet-consent`, {}, { token: user.accessToken })).status).toBe(200)
  const merchant = await f.api.post(`${BASE}/merchants`, { name: 'm2', payTo: { network: 'sepolia', address: privateKeyToAccount(generatePrivateKey()).address } }, token)
  const mandate = await f.api.post(`${BASE}/mandates`, { type: 'intent', agentId: agent.body.id, constraints: { maxAmount: '5', currency: 'USDC' }, expiresAt: new Date(Date.now() + 3_600_000).toISOString(), humanPresent: true }, token)
  expect((await f.api.post(`${BASE}/mandates/${mandate.body.id}/authorize`, {}, token)).status).toBe(200)
  const ex = await f.api.post(`${BASE}/executions`, { agentId: agent.body.id, merchantId: merchant.body.id, mandateId: mandate.body.id, amount: '2', currency: 'USDC', rail: 'onchain' }, token)
  expect(ex.body.status).toBe('requires_confirmation')
  const done = await until(() => f.api.get(`${BASE}/executions/${ex.body.id}`, token), (r) => r.body.status !== 'requires_confirmation', 15_000)
  expect(done.body.status).toBe('expired')
  expect((await f.api.post(`${BASE}/executions/${ex.body.id}/confirm`, {}, token)).body.code).toBe('EXECUTION_STATE_INVALID')
}, 30_000)
