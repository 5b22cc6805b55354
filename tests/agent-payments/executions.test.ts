/**
 * Executions and approvals end to end over HTTP on a local chain posing as Sepolia (anvil,
 * the registry's Sepolia USDC address holding the test ERC-20), the app's job worker running:
 * an execution that pays on chain (balances move) and ends `succeeded` with its receipt; one
 * that needs an approval, approved and paid; one denied with its reasons; one over a limit;
 * 50 concurrent executions against a daily limit of 10 × their amount (exactly 10 proceed);
 * 20 concurrent with one idempotencyKey (one execution); an agent key on another agent's
 * execution (404); cancel, reject, refund, a send refused at once.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseEther, type Address } from 'viem'
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts'
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
let other: Tenant
let admin: SignedInUser
let otherAdmin: SignedInUser
let merchant: { id: string; payTo: { address: Address } }
let agent: { id: string; key: string }
let second: { id: string; key: string }

const as = (u: SignedInUser | string) => ({ token: typeof u === 'string' ? u : u.accessToken })
const balanceOf = (a: Address) => reader(chain.url).tokenBalance(USDC, a)

/** each wallet's owner, who consents to the agents bound to it */
const owners = new Map<string, SignedInUser>()

async function fundedWallet(usdc: bigint) {
  const u = await f.user(tenant)
  const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, as(u))
  expect(w.status).toBe(201)
  owners.set(w.body.id, u)
  await chain.sendNative(w.body.address, parseEther('1'))
  if (usdc > 0n) await chain.sendToken(w.body.address, usdc, USDC)
  return w.body as { id: string; address: Address }
}

async function policy(body: Record<string, unknown>) {
  const r = await f.api.post(`${BASE}/policies`, { name: 'p', currency: 'USDC', ...body }, as(admin))
  expect(r.status).toBe(201)
  return r.body as { id: string; version: number }
}

async function newAgent(walletId: string, policyId: string) {
  const r = await f.api.post(`${BASE}/agents`, { name: 'booker', walletId, policyId }, as(admin))
  expect(r.status).toBe(201)
  // the wallet's owner lets the agent pay from it (docs/agent-payments.md, "The wallet owner's consent")
  expect((await f.api.post(`${BASE}/agents/${r.body.id}/wallet-consent`, {}, as(owners.get(walletId)!))).status).toBe(200)
  const k = await f.api.post(`${BASE}/agents/${r.body.id}/api-keys`, { name: 'worker' }, as(admin))
  expect(k.status).toBe(201)
  return { id: r.body.id as string, key: k.body.key as string }
}

const execute = (body: Record<string, unknown>, token: string | SignedInUser = agent.key) =>
  f.api.post(`${BASE}/executions`, { agentId: agent.id, merchantId: merchant.id, currency: 'USDC', rail: 'onchain', ...body }, as(token))
const final = (id: string) => until(() => f.api.get(`${BASE}/executions/${id}`, as(admin)), (r) => !['processing', 'requires_approval'].includes(r.body.status), 30_000)

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 11155111 })
  await chain.placeToken(USDC)
  t = await makeApp({ clock: systemClock, jobs: true, env: { RPC_URL_SEPOLIA: chain.url } })
  server = serve(t)
  f = new Factory(t, new Api(server.url))
  tenant = await f.tenant()
  other = await f.tenant()
  admin = await f.tenantAdmin(tenant)
  otherAdmin = await f.tenantAdmin(other)
  const m = await f.api.post(`${BASE}/merchants`, { name: 'shop', category: 'travel', payTo: { network: 'sepolia', address: privateKeyToAccount(generatePrivateKey()).address } }, as(admin))
  expect(m.status).toBe(201)
  merchant = m.body
  const p = await policy({ limits: [{ interval: 'per_transaction', amount: '100' }, { interval: 'daily', amount: '1000' }], approvalMode: 'threshold', approvalThreshold: '5' })
  agent = await newAgent((await fundedWallet(500_000_000n)).id, p.id)
  second = await newAgent((await fundedWallet(0n)).id, p.id)
}, 60_000)

afterAll(async () => {
  await server.stop()
  await t.close()
  await chain.stop()
})

describe('executions on the onchain rail', () => {
  test('an agent pays a merchant: processing, the USDC moves, succeeded with the hash, a receipt', async () => {
    const before = await balanceOf(merchant.payTo.address)
    const r = await execute({ amount: '1.5', description: 'a ticket' })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({ status: 'processing', decision: 'allow', reasons: [], amount: '1.5', currency: 'USDC', network: 'sepolia', policyVersion: 1 })
    expect(r.body.transactionId).toBeString()
    const done = await final(r.body.id)
    expect(done.body).toMatchObject({ status: 'succeeded' })
    expect(done.body.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await balanceOf(merchant.payTo.address)).toBe(before + 1_500_000n)
    const receipt = await f.api.get(`${BASE}/executions/${r.body.id}/receipt`, as(agent.key))
    expect(receipt.status).toBe(200)
    expect(receipt.body).toMatchObject({ executionId: r.body.id, txHash: done.body.txHash, amount: '1.5', to: merchant.payTo.address })
    // the agent's spend now shows it
    const a = await f.api.get(`${BASE}/agents/${agent.id}`, as(admin))
    expect(a.body.spend.windows.find((x: { interval: string }) => x.interval === 'daily').spentAmount).toBe('1.5')
    expect(a.body.spend.executionsToday).toBe(1)
    const audit = await f.api.get(`${BASE}/audit-log?resourceType=execution&resourceId=${r.body.id}`, as(admin))
    expect(audit.body.data.map((e: { action: string }) => e.action).sort()).toEqual(['execution.created', 'execution.succeeded'])
  }, 60_000)

  test('over the approval threshold: requires_approval, approved, then paid', async () => {
    const before = await balanceOf(merchant.payTo.address)
    const r = await execute({ amount: '6' })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({ status: 'requires_approval', decision: 'require_approval', transactionId: null })
    expect(r.body.reasons[0].code).toBe('APPROVAL_THRESHOLD')
    const list = await f.api.get(`${BASE}/approvals?status=pending`, as(admin))
    const approval = list.body.data.find((a: { executionId: string }) => a.executionId === r.body.id)
    expect(approval).toMatchObject({ status: 'pending' })
    expect((await f.api.get(`${BASE}/approvals/${approval.id}`, as(otherAdmin))).status).toBe(404)
    const ok = await f.api.post(`${BASE}/approvals/${approval.id}/approve`, { note: 'fine' }, as(admin))
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ status: 'approved', note: 'fine' })
    expect((await f.api.post(`${BASE}/approvals/${approval.id}/approve`, {}, as(admin))).status).toBe(409)
    expect((await final(r.body.id)).body.status).toBe('succeeded')
    expect(await balanceOf(merchant.payTo.address)).toBe(before + 6_000_000n)
  }, 60_000)

  test('denied with its reasons; over the per-transaction limit; no receipt', async () => {
    const denied = await execute({ amount: '1', currency: 'EURC' })
    expect(denied.status).toBe(201)
    expect(denied.body).toMatchObject({ status: 'rejected', decision: 'deny' })
    expect(denied.body.reasons.map((x: { code: string }) => x.code)).toEqual(['CURRENCY_NOT_ALLOWED'])
    const over = await execute({ amount: '150' })
    expect(over.body).toMatchObject({ status: 'rejected' })
    expect(over.body.reasons).toContainEqual(expect.objectContaining({ code: 'LIMIT_EXCEEDED', interval: 'per_transaction' }))
    expect((await f.api.get(`${BASE}/executions/${over.body.id}/receipt`, as(admin))).status).toBe(404)
  })

  test('reject and cancel: the execution is rejected or canceled with its approval', async () => {
    const a = await execute({ amount: '7' })
    const ap = (await f.api.get(`${BASE}/approvals?status=pending`, as(admin))).body.data.find((x: { executionId: string }) => x.executionId === a.body.id)
    expect((await f.api.post(`${BASE}/approvals/${ap.id}/reject`, { reason: 'no' }, as(admin))).body.status).toBe('rejected')
    expect((await f.api.get(`${BASE}/executions/${a.body.id}`, as(admin))).body.status).toBe('rejected')
    const b = await execute({ amount: '8' })
    const c = await f.api.post(`${BASE}/executions/${b.body.id}/cancel`, {}, as(admin))
    expect(c.body.status).toBe('canceled')
    const list = await f.api.get(`${BASE}/approvals?status=canceled`, as(admin))
    expect(list.body.data.some((x: { executionId: string }) => x.executionId === b.body.id)).toBe(true)
    expect((await f.api.post(`${BASE}/executions/${b.body.id}/cancel`, {}, as(admin))).status).toBe(409)
  })

  test('refund records: partial then the rest, exact amounts', async () => {
    const r = await execute({ amount: '2.25' })
    expect((await final(r.body.id)).body.status).toBe('succeeded')
    const part = await f.api.post(`${BASE}/executions/${r.body.id}/refund`, { amount: '1.1' }, as(admin))
    expect(part.body).toMatchObject({ status: 'partially_refunded', refundedAmount: '1.1' })
    expect((await f.api.post(`${BASE}/executions/${r.body.id}/refund`, { amount: '1.2' }, as(admin))).status).toBe(400)
    const rest = await f.api.post(`${BASE}/executions/${r.body.id}/refund`, {}, as(admin))
    expect(rest.body).toMatchObject({ status: 'refunded', refundedAmount: '2.25' })
  }, 60_000)

  test('a send refused at once (no balance) makes the execution failed right away', async () => {
    const r = await execute({ agentId: second.id, amount: '1' }, second.key)
    expect(r.status).toBe(201)
    expect(r.body.status).toBe('failed')
    // the transactions module refuses it before sending (the gas estimate reverts on the token's balance check)
    expect(r.body.failureReason).toMatch(/INSUFFICIENT_BALANCE|TRANSACTION_WOULD_FAIL/)
    expect(r.body.transactionId).toBeNull()
    // a failed execution does not count: the agent's daily spend is still 0
    const a = await f.api.get(`${BASE}/agents/${second.id}`, as(admin))
    expect(a.body.spend.windows.find((x: { interval: string }) => x.interval === 'daily').spentAmount).toBe('0')
  })

  test('a cart mandate pays once: the execution under it succeeds, the mandate is consumed, a second execution under it is rejected with the mandate\'s reasons', async () => {
    const body = {
      type: 'cart', agentId: agent.id, constraints: { maxAmount: '3', currency: 'USDC', merchantIds: [merchant.id] },
      cart: { items: [{ name: 'ticket', quantity: 2, unitPrice: '1.25' }], total: '2.5', currency: 'USDC', merchantId: merchant.id },
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(), humanPresent: false,
    }
    const created = await f.api.post(`${BASE}/mandates`, body, as(admin))
    expect(created.status).toBe(201)
    // not authorized yet: refused with the mandate's reason, nothing sent
    const early = await execute({ amount: '2.5', mandateId: created.body.id })
    expect({ status: early.body.status, codes: early.body.reasons.map((r: { code: string }) => r.code) }).toEqual({ status: 'rejected', codes: ['MANDATE_NOT_ACTIVE'] })
    expect((await f.api.post(`${BASE}/mandates/${created.body.id}/authorize`, {}, as(admin))).status).toBe(200)
    // another amount than the cart's
    const off = await execute({ amount: '2', mandateId: created.body.id })
    expect(off.body.status).toBe('rejected')
    const before = await balanceOf(merchant.payTo.address)
    const paid = await execute({ amount: '2.5', mandateId: created.body.id })
    expect(paid.body).toMatchObject({ status: 'processing', mandateId: created.body.id })
    expect((await final(paid.body.id)).body.status).toBe('succeeded')
    expect(await balanceOf(merchant.payTo.address)).toBe(before + 2_500_000n)
    const m = await until(() => f.api.get(`${BASE}/mandates/${created.body.id}`, as(admin)), (r) => r.body.status !== 'active')
    expect(m.body.status).toBe('consumed')
    const again = await execute({ amount: '2.5', mandateId: created.body.id })
    expect(again.body.status).toBe('rejected')
    expect(again.body.reasons.map((r: { code: string }) => r.code)).toContain('MANDATE_NOT_ACTIVE')
    const unknown = await execute({ amount: '1', mandateId: '00000000-0000-4000-8000-000000000000' })
    expect({ status: unknown.status, code: unknown.body.code }).toEqual({ status: 404, code: 'MANDATE_NOT_FOUND' })
  }, 60_000)

  test('under one cart mandate, an execution waiting for approval holds the cart: a second is rejected with the mandate\'s reason (its cart taken), the first approved and paid', async () => {
    const created = await f.api.post(`${BASE}/mandates`, {
      type: 'cart', agentId: agent.id, constraints: { maxAmount: '7', currency: 'USDC', merchantIds: [merchant.id] },
      cart: { items: [{ name: 'suite', quantity: 1, unitPrice: '6' }], total: '6', currency: 'USDC', merchantId: merchant.id },
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(), humanPresent: false,
    }, as(admin))
    expect((await f.api.post(`${BASE}/mandates/${created.body.id}/authorize`, {}, as(admin))).status).toBe(200)
    // over the policy's approval threshold (5): the first waits, holding the cart from the moment it is judged
    const [a, b] = [await execute({ amount: '6', mandateId: created.body.id }), await execute({ amount: '6', mandateId: created.body.id })]
    expect([a.body.status, b.body.status]).toEqual(['requires_approval', 'rejected'])
    expect(b.body.reasons.map((r: { code: string }) => r.code)).toContain('MANDATE_CART_ALREADY_PAID')
    const pending = (await f.api.get(`${BASE}/approvals?status=pending`, as(admin))).body.data.filter((x: { executionId: string }) => [a.body.id, b.body.id].includes(x.executionId))
    expect(pending).toHaveLength(1)
    const before = await balanceOf(merchant.payTo.address)
    // approved twice at once: one answer approves it, the other finds it decided
    const answers = await Promise.all([0, 1].map(() => f.api.post(`${BASE}/approvals/${pending[0].id}/approve`, {}, as(admin))))
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409])
    expect(answers.find((r) => r.status === 409)!.body.code).toBe('APPROVAL_STATE_INVALID')
    await until(() => f.api.get(`${BASE}/executions/${a.body.id}`, as(admin)), (r) => r.body.status === 'succeeded')
    expect(await balanceOf(merchant.payTo.address)).toBe(before + 6_000_000n)
    expect((await f.api.get(`${BASE}/mandates/${created.body.id}`, as(admin))).body.status).toBe('consumed')
  }, 60_000)

  test('a human-present mandate: the execution waits in requires_confirmation until a tenant admin confirms, then pays; another waits and is canceled', async () => {
    const created = await f.api.post(`${BASE}/mandates`, {
      type: 'intent', agentId: agent.id, constraints: { maxAmount: '2', currency: 'USDC', budget: '3' },
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(), humanPresent: true,
    }, as(admin))
    expect(created.status).toBe(201)
    expect((await f.api.post(`${BASE}/mandates/${created.body.id}/authorize`, {}, as(admin))).status).toBe(200)
    const before = await balanceOf(merchant.payTo.address)
    const waiting = await execute({ amount: '1', mandateId: created.body.id })
    expect(waiting.body).toMatchObject({ status: 'requires_confirmation', transactionId: null })
    // the agent cannot confirm for the human
    expect((await f.api.post(`${BASE}/executions/${waiting.body.id}/confirm`, {}, as(agent.key))).status).toBe(403)
    const confirmed = await f.api.post(`${BASE}/executions/${waiting.body.id}/confirm`, {}, as(admin))
    expect(confirmed.status).toBe(200)
    expect(confirmed.body.status).toBe('processing')
    expect((await final(waiting.body.id)).body.status).toBe('succeeded')
    expect(await balanceOf(merchant.payTo.address)).toBe(before + 1_000_000n)
    expect((await f.api.post(`${BASE}/executions/${waiting.body.id}/confirm`, {}, as(admin))).body.code).toBe('EXECUTION_STATE_INVALID')
    // over the mandate's per-payment maximum: rejected, never waits
    expect((await execute({ amount: '2.5', mandateId: created.body.id })).body.status).toBe('rejected')
    const second = await execute({ amount: '1', mandateId: created.body.id })
    expect(second.body.status).toBe('requires_confirmation')
    expect((await f.api.post(`${BASE}/executions/${second.body.id}/cancel`, {}, as(admin))).body.status).toBe('canceled')
    expect((await f.api.post(`${BASE}/executions/${second.body.id}/confirm`, {}, as(admin))).status).toBe(409)
  }, 60_000)

  test('an agent key: only its own agent; x402 needs its resourceUrl', async () => {
    const mine = await execute({ amount: '0.5' })
    expect((await f.api.get(`${BASE}/executions/${mine.body.id}`, as(second.key))).status).toBe(404)
    expect((await f.api.get(`${BASE}/executions/${mine.body.id}/receipt`, as(second.key))).status).toBe(404)
    expect((await f.api.get(`${BASE}/executions/${mine.body.id}`, as(otherAdmin))).status).toBe(404)
    expect((await execute({ amount: '1' }, second.key)).status).toBe(404)
    expect((await f.api.get(`${BASE}/executions`, as(agent.key))).status).toBe(403)
    const x402 = await execute({ amount: '1', rail: 'x402' })
    expect([x402.status, x402.body.code]).toEqual([400, 'RESOURCE_URL_REQUIRED'])
    await final(mine.body.id)
  }, 60_000)
})

describe('concurrency', () => {
  test('20 concurrent requests with one idempotencyKey make one execution', async () => {
    const all = await Promise.all(Array.from({ length: 20 }, () => execute({ amount: '0.25', idempotencyKey: 'order-1' })))
    expect(new Set(all.map((r) => r.body.id)).size).toBe(1)
    expect(all.filter((r) => r.status === 201)).toHaveLength(1)
    expect(all.filter((r) => r.status === 200)).toHaveLength(19)
    // a later one with other fields answers the same execution unchanged
    const again = await execute({ amount: '99', idempotencyKey: 'order-1' }, admin)
    expect(again.status).toBe(200)
    expect(again.body.id).toBe(all[0]!.body.id)
    expect(again.body.amount).toBe('0.25')
    // another agent's key never reads it: the key is taken
    const theirs = await execute({ agentId: second.id, amount: '0.25', idempotencyKey: 'order-1' }, second.key)
    expect(theirs.status).toBe(409)
    expect(theirs.body.code).toBe('IDEMPOTENCY_KEY_IN_USE')
    await final(all[0]!.body.id)
  }, 60_000)

  test('50 concurrent executions against a daily limit of 10 × their amount: exactly 10 proceed', async () => {
    const p = await policy({ limits: [{ interval: 'daily', amount: '0.1' }] })
    const busy = await newAgent((await fundedWallet(10_000_000n)).id, p.id)
    const all = await Promise.all(Array.from({ length: 50 }, () => execute({ agentId: busy.id, amount: '0.01' }, busy.key)))
    expect(all.every((r) => r.status === 201)).toBe(true)
    const proceeded = all.filter((r) => r.body.status !== 'rejected')
    expect(proceeded).toHaveLength(10)
    expect(all.filter((r) => r.body.status === 'rejected').every((r) => r.body.reasons.some((x: { code: string; interval?: string }) => x.code === 'LIMIT_EXCEEDED' && x.interval === 'daily'))).toBe(true)
    const ends = await Promise.all(proceeded.map((r) => final(r.body.id)))
    expect(ends.map((r) => r.body.status)).toEqual(Array(10).fill('succeeded'))
    const list = await f.api.get(`${BASE}/executions?agentId=${busy.id}&status=succeeded`, as(admin))
    expect(list.body.total).toBe(10)
  }, 120_000)
})
