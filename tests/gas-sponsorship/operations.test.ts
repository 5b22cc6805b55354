/**
 * The other operations, sponsored on the devnet (anvil + alto): an Aave supply and its approval
 * as one user operation, a bank payout's transfer and an agent's payment, each from a custodial
 * wallet with 0 ETH under a gas policy covering its kind (the wallet still has 0 ETH, the
 * paymaster paid, the usage counted in wei and in USD at the price recorded beside it); with the
 * kind not covered, the old behaviour (the chain refuses a wallet without gas money).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { erc20Abi, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { DEVNET_AAVE_POOL, DEVNET_USDC } from '../../scripts/devnet/chain'
import type { SignedInUser } from '@tests/helpers/factories'
import { until } from '@tests/helpers/until'
import { waitFor } from '@tests/transactions/helpers'
import { formatUsd, parseUsd, weiToUsd } from '@/modules/gas-sponsorship/usd'
import { SANDBOX_PRICES } from '@/sandbox/prices/provider'
import { onboard, type RampTenant } from '../ramp/world'
import { both, freshIp, sepoliaClients } from '../lending/world'
import { sponsoredDevnet, type SponsoredDevnet } from './devnet-world'

let d: SponsoredDevnet
let tenant: RampTenant
let admin: SignedInUser

beforeAll(async () => {
  d = await sponsoredDevnet()
  tenant = await d.w.rampTenant()
  admin = await d.w.f.tenantAdmin(tenant)
  expect((await d.w.f.api.patch(`/v1/admin/tenants/${tenant.id}`, { chains: { rpc: { sepolia: d.devnet.url } } }, { token: d.w.admin })).status).toBe(200)
}, 180_000)
afterAll(() => d?.stop())

const api = () => d.w.f.api
const setPolicy = async (body: Record<string, unknown>) => {
  const res = await api().put(`/v1/admin/tenants/${tenant.id}/gas-policies/sepolia`, { enabled: true, ...body }, { token: admin.accessToken })
  expect(res.status).toBe(200)
  return res.body
}
const usage = async (u: SignedInUser) => (await api().get('/v1/gas-sponsorship/usage', { token: u.accessToken })).body.networks[0]
const settled = (u: SignedInUser, id: string) => waitFor(() => api().get(`/v1/transactions/${id}`, { token: u.accessToken }), (r) => r.body?.status !== 'pending', 45_000)

/** a custodial Sepolia wallet of a new user of the tenant, with 0 ETH and `usdc` of the test USDC */
async function emptyWallet(usdc: bigint) {
  const u = await d.w.f.user(tenant)
  const res = await api().post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: u.accessToken })
  expect(res.status).toBe(201)
  await d.mintUsdc(res.body.address, usdc)
  return { u, wallet: res.body as { id: string; address: Address } }
}

/** the sandbox price of ETH, at which the usage counts USD */
const ETH_USD = parseUsd(String(SANDBOX_PRICES.ethereum!.usd))

describe('an Aave supply, sponsored with its approval', () => {
  test('the policy without lending: the approval is sent as before and the chain refuses it for want of gas; nothing sponsored', async () => {
    await setPolicy({ operations: ['send'] })
    const { u, wallet } = await emptyWallet(50_000_000n)
    const res = await api().post('/v1/aave/supply', { walletId: wallet.id, asset: DEVNET_USDC, amount: '40000000' }, both(tenant, u, freshIp()))
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'TRANSACTION_WOULD_FAIL' })
    expect(res.body.message).toMatch(/insufficient funds/i)
    expect(await usage(u)).toBeUndefined()
    expect(await d.usdc(wallet.address)).toBe(50_000_000n)
  }, 60_000)

  test('with lending covered: approve + supply in one executeBatch user operation; the aTokens arrive, 0 ETH, the deposit paid, usage in wei and USD', async () => {
    await setPolicy({ operations: ['lending'] })
    const { u, wallet } = await emptyWallet(50_000_000n)
    const before = await d.deposit()
    const res = await api().post('/v1/aave/supply', { walletId: wallet.id, asset: DEVNET_USDC, amount: '40000000' }, both(tenant, u, freshIp()))
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ type: 'supply', sponsored: true, approval: null, txHash: null, pool: DEVNET_AAVE_POOL, amount: '40000000' })
    const done = await settled(u, res.body.id)
    expect(done.body).toMatchObject({ status: 'confirmed', type: 'supply', userOpHash: res.body.userOpHash })
    expect(done.body.metadata.sponsorship).toMatchObject({ batchedCalls: 2, usdRate: formatUsd(ETH_USD) })
    // the supply took the USDC: the approval ran in the same operation
    expect(await d.usdc(wallet.address)).toBe(10_000_000n)
    const allowance = await d.pub.readContract({ address: DEVNET_USDC, abi: erc20Abi, functionName: 'allowance', args: [wallet.address, DEVNET_AAVE_POOL] })
    expect(allowance).toBe(0n)
    const aToken = await sepoliaClients(d.devnet.url).aToken()
    expect(await d.pub.readContract({ address: aToken, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.address] })).toBe(40_000_000n)
    expect(await d.pub.getBalance({ address: wallet.address })).toBe(0n)
    const paid = before - (await d.deposit())
    expect(paid).toBeGreaterThan(0n)
    const line = await usage(u)
    expect(line).toMatchObject({ network: 'sepolia', dayOperations: 1, dayWei: paid.toString(), dayUsd: formatUsd(weiToUsd(paid, ETH_USD)) })
  }, 90_000)
})

describe('limits in USD', () => {
  test('held at the price recorded with each operation: a daily USD limit and a USD maximum per operation refuse with their codes', async () => {
    const { u, wallet } = await emptyWallet(10_000_000n)
    const to = privateKeyToAccount(generatePrivateKey()).address
    const send = () => api().post('/v1/transactions/', { walletId: wallet.id, chain: 'sepolia', toAddress: to, amount: '1000000', tokenAddress: DEVNET_USDC }, { token: u.accessToken })
    const p = await setPolicy({ operations: ['send'], userDailyLimitUsd: '100.50', maxPerOperationUsd: null, tenantMonthlyBudgetUsd: null })
    expect(p).toMatchObject({ userDailyLimitUsd: '100.5', tenantMonthlyBudgetUsd: null, maxPerOperationUsd: null })
    const first = await send()
    expect(first.status).toBe(201)
    const done = await settled(u, first.body.id)
    expect(done.body.status).toBe('confirmed')
    const s = done.body.metadata.sponsorship
    expect(s.usdRate).toBe(formatUsd(ETH_USD))
    expect(s.maxCostUsd).toBe(formatUsd(weiToUsd(BigInt(s.maxCostWei), ETH_USD)))
    const line = await usage(u)
    expect(line.dayUsd).toBe(formatUsd(weiToUsd(BigInt(line.dayWei), ETH_USD)))
    // the limit now just under what is used: the next one is refused, nothing sent
    await setPolicy({ userDailyLimitUsd: line.dayUsd })
    const refused = await send()
    expect(refused.status).toBe(429)
    expect(refused.body.code).toBe('GAS_USER_DAILY_LIMIT')
    expect(refused.body.message).toContain('USD')
    await setPolicy({ userDailyLimitUsd: null, maxPerOperationUsd: '0.000000000001' })
    const tooDear = await send()
    expect(tooDear.status).toBe(403)
    expect(tooDear.body.code).toBe('GAS_COST_ABOVE_LIMIT')
    expect((await usage(u)).dayOperations).toBe(1)
    expect(await d.usdc(to)).toBe(1_000_000n)
    await setPolicy({ maxPerOperationUsd: null })
  }, 90_000)
})

describe('a bank payout\'s transfer, sponsored', () => {
  const filled = { AccountHolderName: 'Ada Lovelace', IBAN: 'DE89370400440532013000' }
  const DEPOSIT: Address = '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001'

  async function quoteFor(u: SignedInUser, walletId: string) {
    const post = (path: string, body: unknown) => api().post(path, body, { token: u.accessToken })
    const channelId = (await post('/v1/ramp/bank/payout/channels/search', { isTestnet: true, country: 'DE', fiatCurrency: 'EUR' })).body.channels
      .find((c: { paymentMethodType: string }) => c.paymentMethodType === 'BankSepa').channelId
    const quote = await post('/v1/ramp/bank/payout/quotes', { channelId, walletId, fiatAmount: '10', form: filled, isTestnet: true })
    expect(quote.status).toBe(200)
    return quote.body as { id: string; cryptoAuthorizedAmount: string }
  }

  test('payouts not covered: the transfer is refused for want of gas, as before, and nothing stays recorded; covered: sent sponsored, the partner paid, 0 ETH', async () => {
    await setPolicy({ operations: ['send'] })
    const { u, wallet } = await emptyWallet(50_000_000n)
    await onboard(d.w, u, 'approve')
    const q1 = await quoteFor(u, wallet.id)
    const refused = await api().post('/v1/ramp/bank/payout/payouts', { quoteId: q1.id, isTestnet: true }, { token: u.accessToken })
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 400, code: 'TRANSACTION_WOULD_FAIL' })
    expect(await d.usdc(DEPOSIT)).toBe(0n)

    await setPolicy({ operations: ['payout'] })
    const before = await d.deposit()
    // the refused payout left nothing recorded: the same quote is paid now
    const q2 = q1
    const payout = await api().post('/v1/ramp/bank/payout/payouts', { quoteId: q2.id, isTestnet: true }, { token: u.accessToken })
    expect(payout.status).toBe(200)
    expect(payout.body).toMatchObject({ status: 'pending', txHash: null })
    const tx = await settled(u, payout.body.transactionId)
    expect(tx.body).toMatchObject({ status: 'confirmed', amount: q2.cryptoAuthorizedAmount })
    expect(tx.body.userOpHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await d.usdc(DEPOSIT)).toBe(BigInt(q2.cryptoAuthorizedAmount))
    expect(await d.pub.getBalance({ address: wallet.address })).toBe(0n)
    expect(before - (await d.deposit())).toBeGreaterThan(0n)
    // the payout takes the mined transaction's hash, and the partner's sell goes on with it
    const sold = await until(() => api().get(`/v1/ramp/bank/payout/payouts/${payout.body.id}?isTestnet=true`, { token: u.accessToken }),
      (r) => r.body.rampTransactionId !== null || r.body.status !== 'pending', 30_000)
    expect(sold.body.txHash).toBe(tx.body.txHash)
    expect(sold.body.rampTransactionId).toMatch(/^[0-9a-f-]{36}$/)
    expect((await usage(u)).dayOperations).toBe(1)
  }, 120_000)
})

describe('an agent\'s payment, sponsored', () => {
  const BASE = '/v1/agent-payments'
  const as = (token: string) => ({ token })

  test('agent executions not covered: the execution fails for want of gas; covered: paid sponsored, succeeded with its hash, 0 ETH', async () => {
    const payTo = privateKeyToAccount(generatePrivateKey()).address
    const m = await api().post(`${BASE}/merchants`, { name: 'shop', category: 'travel', payTo: { network: 'sepolia', address: payTo } }, as(admin.accessToken))
    expect(m.status).toBe(201)
    const pol = await api().post(`${BASE}/policies`, { name: 'p', currency: 'USDC', limits: [{ interval: 'per_transaction', amount: '100' }] }, as(admin.accessToken))
    expect(pol.status).toBe(201)
    const { u, wallet } = await emptyWallet(20_000_000n)
    const a = await api().post(`${BASE}/agents`, { name: 'booker', walletId: wallet.id, policyId: pol.body.id }, as(admin.accessToken))
    expect(a.status).toBe(201)
    expect((await api().post(`${BASE}/agents/${a.body.id}/wallet-consent`, {}, as(u.accessToken))).status).toBe(200)
    const key = (await api().post(`${BASE}/agents/${a.body.id}/api-keys`, { name: 'worker' }, as(admin.accessToken))).body.key as string
    const execute = (amount: string) => api().post(`${BASE}/executions`, { agentId: a.body.id, merchantId: m.body.id, currency: 'USDC', rail: 'onchain', amount }, as(key))
    const final = (id: string) => until(() => api().get(`${BASE}/executions/${id}`, as(admin.accessToken)), (r) => !['processing', 'requires_approval'].includes(r.body.status), 45_000)

    await setPolicy({ operations: ['send'] })
    const refused = await execute('1')
    expect(refused.status).toBe(201)
    const failed = (await final(refused.body.id)).body
    expect(failed.status).toBe('failed')
    expect(failed.failureReason).toMatch(/^TRANSACTION_WOULD_FAIL: /)
    expect(await d.usdc(payTo)).toBe(0n)

    await setPolicy({ operations: ['agent'] })
    const before = await d.deposit()
    const paid = await execute('1.5')
    expect(paid.status).toBe(201)
    const done = await final(paid.body.id)
    expect(done.body.status).toBe('succeeded')
    expect(done.body.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await d.usdc(payTo)).toBe(1_500_000n)
    expect(await d.pub.getBalance({ address: wallet.address })).toBe(0n)
    expect(before - (await d.deposit())).toBeGreaterThan(0n)
    const tx = await api().get(`/v1/transactions/${paid.body.transactionId}`, { token: u.accessToken })
    expect(tx.body).toMatchObject({ status: 'confirmed', txHash: done.body.txHash })
    expect(tx.body.userOpHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect((await usage(u)).dayOperations).toBe(1)
  }, 120_000)
})
