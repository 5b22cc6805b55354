/**
 * No agent payment stays reserved for nothing: the `agent_payments.execution.watch` job
 * (src/modules/agent-payments/executions/watch.ts) on anvil as Sepolia, the app's jobs on a ManualClock.
 * A process is "stopped" by doing only the first steps of a payment with the module's own
 * functions (the execution moved to `processing`, a hold placed, a send recorded), then the
 * clock moves past the watch: an execution never sent fails and its reservation is released;
 * one whose send was recorded but never noted on it is adopted and followed to `succeeded`
 * (the USDC moved once); one whose hold was placed but whose send never was fails once the hold
 * has expired; and a payment started after the watch failed it sends nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseEther, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { ManualClock } from '@/lib/clock'
import { systemScope, type Scope } from '@/modules/agent-payments/agents/credentials'
import { holdIdOf, moveExecution, WATCH_AFTER_MS } from '@/modules/agent-payments/executions/moves'
import { payExecution } from '@/modules/agent-payments/executions/pay'
import * as repo from '@/modules/agent-payments/repo'
import { findHold, placeHold, walletBalances } from '@/modules/transactions/holds'
import { findTenant } from '@/modules/tenants/repo'
import { settingsOf } from '@/modules/tenants/service'
import { ownerContext } from '@/modules/users/owner'
import { findWallet } from '@/modules/wallets/repo'
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
let merchant: { id: string; payTo: { address: Address } }
let agent: { id: string; walletId: string }

const as = (u: SignedInUser) => ({ token: u.accessToken })
const scope = (): Promise<Scope> => systemScope(t.deps, tenant.id, 'test')
const read = (id: string) => f.api.get(`${BASE}/executions/${id}`, as(admin))
const dailySpent = async () => (await f.api.get(`${BASE}/agents/${agent.id}`, as(admin))).body.spend.windows.find((w: { interval: string }) => w.interval === 'daily').spentAmount

/** An execution that waited for approval, moved to `processing` as the approving transaction does, and then its process "stopped". */
async function stoppedBeforeSending(amount: string) {
  const r = await f.api.post(`${BASE}/executions`, { agentId: agent.id, merchantId: merchant.id, amount, currency: 'USDC', rail: 'onchain' }, as(admin))
  expect([r.status, r.body.status]).toEqual([201, 'requires_approval'])
  const now = t.clock.now()
  const s = await scope()
  await t.deps.database.write(async (tx) => moveExecution(tx, s, (await repo.findExecution(tx, tenant.id, r.body.id))!, { status: 'processing' }, 'processing', now))
  return r.body.id as string
}
async function placeTheHold(id: string, units: bigint) {
  const wallet = (await findWallet(t.deps.database.db, tenant.id, agent.walletId))!
  const held = (await walletBalances(t.deps, settingsOf({ deps: t.deps }, (await findTenant(t.deps.database.db, tenant.id))!), wallet, USDC))!
  await t.deps.database.write((tx) => placeHold(tx, held.key, held.balances, { tokenAddress: USDC, amount: units, purpose: 'agent_payment', refId: id, id: holdIdOf(id) }, t.clock.now()))
  return wallet
}
/** Moves the app's clock a second at a time (its jobs run on it) until `done` holds. */
function ticking<T>(readIt: () => Promise<T>, done: (v: T) => boolean, stepMs = 1000) {
  return until(async () => {
    ;(t.clock as ManualClock).advance(stepMs)
    await Bun.sleep(30)
    return readIt()
  }, done, 30_000)
}

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 11155111 })
  await chain.placeToken(USDC)
  t = await makeApp({ jobs: true, env: { RPC_URL_SEPOLIA: chain.url } })
  server = serve(t)
  f = new Factory(t, new Api(server.url))
  tenant = await f.tenant()
  admin = await f.tenantAdmin(tenant)
  const m = await f.api.post(`${BASE}/merchants`, { name: 'shop', category: 'travel', payTo: { network: 'sepolia', address: privateKeyToAccount(generatePrivateKey()).address } }, as(admin))
  merchant = m.body
  const owner = await f.user(tenant)
  const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, as(owner))
  await chain.sendNative(w.body.address, parseEther('1'))
  await chain.sendToken(w.body.address, 100_000_000n, USDC)
  const p = await f.api.post(`${BASE}/policies`, { name: 'p', currency: 'USDC', limits: [{ interval: 'daily', amount: '1000' }], approvalMode: 'always' }, as(admin))
  const a = await f.api.post(`${BASE}/agents`, { name: 'booker', walletId: w.body.id, policyId: p.body.id }, as(admin))
  // the wallet's owner lets the agent pay from it (docs/agent-payments.md, "The wallet owner's consent")
  expect((await f.api.post(`${BASE}/agents/${a.body.id}/wallet-consent`, {}, as(owner))).status).toBe(200)
  agent = { id: a.body.id, walletId: w.body.id }
}, 60_000)

afterAll(async () => {
  await server.stop()
  await t.close()
  await chain.stop()
})

describe('the watch job', () => {
  test('stopped before anything was sent: failed AGENT_PAYMENT_NOT_SENT after the watch, its reservation released', async () => {
    const id = await stoppedBeforeSending('3')
    expect(await dailySpent()).toBe('3')
    ;(t.clock as ManualClock).advance(WATCH_AFTER_MS - 5_000)
    await Bun.sleep(200)
    expect((await read(id)).body.status).toBe('processing')
    const done = await ticking(() => read(id), (r) => r.body.status !== 'processing')
    expect([done.body.status, done.body.failureReason?.split(':')[0]]).toEqual(['failed', 'AGENT_PAYMENT_NOT_SENT'])
    expect(await dailySpent()).toBe('0')
  })

  test('stopped after its send was recorded but before the execution noted it: the send is adopted and followed, the USDC moved once', async () => {
    const before = await reader(chain.url).tokenBalance(USDC, merchant.payTo.address)
    const id = await stoppedBeforeSending('2')
    const wallet = await placeTheHold(id, 2_000_000n)
    const ctx = (await ownerContext(t.deps, wallet.userId, 'test'))!
    const { createTransaction } = await import('@/modules/transactions/service')
    const sent = await createTransaction(ctx, { walletId: wallet.id, chain: 'sepolia', toAddress: merchant.payTo.address, amount: '2000000', tokenAddress: USDC }, { holdId: holdIdOf(id) })
    expect((await findHold(t.deps.database.db, tenant.id, holdIdOf(id)))?.transactionId).toBe(sent.id)
    expect((await read(id)).body.transactionId).toBeNull()
    ;(t.clock as ManualClock).advance(WATCH_AFTER_MS)
    const done = await ticking(() => read(id), (r) => r.body.status !== 'processing')
    expect([done.body.status, done.body.transactionId, done.body.txHash]).toEqual(['succeeded', sent.id, expect.stringMatching(/^0x[0-9a-f]{64}$/)])
    expect(await reader(chain.url).tokenBalance(USDC, merchant.payTo.address)).toBe(before + 2_000_000n)
  })

  test('stopped after its hold was placed, before the send: looked at again when the hold expires, then failed and released', async () => {
    const id = await stoppedBeforeSending('4')
    const clock = t.clock as ManualClock
    const entered = clock.now()
    // the hold is placed late, so it still counts when the watch first looks
    clock.advance(WATCH_AFTER_MS - 30_000)
    await placeTheHold(id, 4_000_000n)
    const expires = (await findHold(t.deps.database.db, tenant.id, holdIdOf(id)))!.expiresAt
    expect(expires).toBeGreaterThan(entered + WATCH_AFTER_MS)
    clock.advance(50_000)
    await Bun.sleep(300)
    expect((await read(id)).body.status).toBe('processing')
    const done = await ticking(() => read(id), (r) => r.body.status !== 'processing', 5000)
    expect(clock.now()).toBeGreaterThan(expires)
    expect([done.body.status, done.body.failureReason?.split(':')[0]]).toEqual(['failed', 'AGENT_PAYMENT_NOT_SENT'])
    expect((await findHold(t.deps.database.db, tenant.id, holdIdOf(id)))!.releasedAt).not.toBeNull()
  })

  test('a payment started after the watch failed the execution sends nothing', async () => {
    const id = await stoppedBeforeSending('1')
    ;(t.clock as ManualClock).advance(WATCH_AFTER_MS)
    await ticking(() => read(id), (r) => r.body.status === 'failed')
    const nonce = await reader(chain.url).nonce((await findWallet(t.deps.database.db, tenant.id, agent.walletId))!.address as Address)
    const after = await payExecution(t.deps, tenant.id, id)
    expect([after.status, after.transactionId]).toEqual(['failed', null])
    expect(await reader(chain.url).nonce((await findWallet(t.deps.database.db, tenant.id, agent.walletId))!.address as Address)).toBe(nonce)
    expect(await findHold(t.deps.database.db, tenant.id, holdIdOf(id))).toBeUndefined()
  })
})
