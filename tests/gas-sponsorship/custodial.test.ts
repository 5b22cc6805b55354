/**
 * Custodial wallets sent sponsored on the devnet (anvil + alto): a wallet with 0 ETH sends USDC
 * through POST /v1/transactions/, as a user operation with its EIP-7702 authorization, the
 * tenant's paymaster paying; the daily limit held under ten concurrent sends; a user operation
 * the bundler lost is resubmitted by the status job and runs once.
 *
 * TX_DROP_AFTER_MS is 1 s (sponsored sends use the lower of it and 5 s): the status job looks
 * for a lost operation 1 s after its submission instead of 5, so the resubmission comes on the
 * job's third look (1.75 s) rather than its fifth (7.75 s), and the confirmation on the fourth.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts'
import { erc20Abi, type Address } from 'viem'
import { custodialWallet, USDC_MAINNET, waitFor } from '../transactions/helpers'
import { entryPoint08Address } from 'viem/account-abstraction'
import { SIMPLE_7702_ACCOUNT } from '../../scripts/devnet/aa'
import type { SignedInUser } from '@tests/helpers/factories'
import { gasWorld } from './world'

const w = gasWorld({ jobs: true, env: { TX_DROP_AFTER_MS: '1000' } })

beforeAll(async () => {
  await w.aa.node.installMulticall3()
  await w.aa.node.placeToken(USDC_MAINNET)
}, 30_000)

const usdc = (a: Address) => w.pub.readContract({ address: USDC_MAINNET, abi: erc20Abi, functionName: 'balanceOf', args: [a] })
const send = (u: SignedInUser, walletId: string, to: Address, amount: string) =>
  w.f.api.post('/v1/transactions/', { walletId, chain: 'ethereum', toAddress: to, amount, tokenAddress: USDC_MAINNET }, { token: u.accessToken })
const settled = (u: SignedInUser, id: string) => waitFor(() => w.f.api.get(`/v1/transactions/${id}`, { token: u.accessToken }), (r) => r.body?.status !== 'pending', 45_000)

async function emptyWallet(u: SignedInUser, usdcAmount = 10_000_000n) {
  const wallet = await custodialWallet(w.f.api, u)
  await w.aa.node.sendToken(wallet.address, usdcAmount, USDC_MAINNET)
  return wallet
}

let firstMaxCost = 0n

/** alto's debug methods (`--enable-debug-endpoints`): its bundling mode, its state emptied, its mempool. */
async function alto(method: string, params: unknown[] = []) {
  const res = await fetch(w.aa.bundler.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  return ((await res.json()) as { result: unknown }).result
}
/** the senders of the operations alto holds, not yet bundled */
const altoHolds = async () => ((await alto('debug_bundler_dumpMempool', [entryPoint08Address])) as Array<{ sender: string }>).map((op) => op.sender.toLowerCase())

describe('custodial sends, sponsored', () => {
  test('a wallet with 0 ETH sends 5 USDC: a user operation, the wallet delegated to Simple7702Account, still 0 ETH, the deposit paid, usage counted', async () => {
    await w.setPolicy({ enabled: true, operations: ['send'] })
    const u = await w.f.user(w.tenant)
    const wallet = await emptyWallet(u)
    const to = privateKeyToAccount(generatePrivateKey()).address
    const before = await w.deposit()
    const res = await send(u, wallet.id, to, '5000000')
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ status: 'pending', sponsored: true, txHash: null })
    expect(res.body.userOpHash).toMatch(/^0x[0-9a-f]{64}$/)
    const done = await settled(u, res.body.id)
    expect(done.body).toMatchObject({ status: 'confirmed', userOpHash: res.body.userOpHash, feePaid: '0' })
    expect(done.body.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await usdc(to)).toBe(5_000_000n)
    expect((await w.pub.getCode({ address: wallet.address }))?.toLowerCase()).toBe(`0xef0100${SIMPLE_7702_ACCOUNT.slice(2).toLowerCase()}`)
    expect(await w.pub.getBalance({ address: wallet.address })).toBe(0n)
    const paid = before - (await w.deposit())
    expect(paid).toBeGreaterThan(0n)
    firstMaxCost = BigInt(done.body.metadata.sponsorship.maxCostWei)
    // the usage counts what it cost once settled
    const usage = await w.f.api.get(`/v1/admin/tenants/${w.tenant.id}/gas-usage?userId=${u.id}`, { token: w.admin.accessToken })
    expect(usage.body.networks[0]).toMatchObject({ network: 'ethereum', dayOperations: 1, dayWei: paid.toString() })
    // a second send needs no authorization any more
    const again = await send(u, wallet.id, to, '1000000')
    expect(again.status).toBe(201)
    expect((await settled(u, again.body.id)).body.status).toBe('confirmed')
    expect(await usdc(to)).toBe(6_000_000n)
  }, 90_000)

  test('three first sends of one 0-ETH wallet fired at once: one carries the delegation, the others wait for it on chain and go delegated; each runs once', async () => {
    await w.setPolicy({ enabled: true, operations: ['send'], userDailyLimitWei: null })
    const u = await w.f.user(w.tenant)
    const wallet = await emptyWallet(u)
    const to = privateKeyToAccount(generatePrivateKey()).address
    const before = await w.deposit()
    const answers = await Promise.all(Array.from({ length: 3 }, () => send(u, wallet.id, to, '100000')))
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201])
    const outcomes = await Promise.all(answers.map((a) => settled(u, a.body.id)))
    expect(outcomes.map((o) => o.body.status)).toEqual(['confirmed', 'confirmed', 'confirmed'])
    // exactly one carried the EIP-7702 authorization
    expect(outcomes.filter((o) => o.body.metadata.sponsorship.delegates === true).length).toBe(1)
    expect(await usdc(to)).toBe(300_000n)
    expect((await w.pub.getCode({ address: wallet.address }))?.toLowerCase()).toBe(`0xef0100${SIMPLE_7702_ACCOUNT.slice(2).toLowerCase()}`)
    expect(await w.pub.getBalance({ address: wallet.address })).toBe(0n)
    expect(await w.deposit()).toBeLessThan(before)
    const usage = await w.f.api.get('/v1/gas-sponsorship/usage', { token: u.accessToken })
    expect(usage.body.networks[0].dayOperations).toBe(3)
  }, 120_000)

  test('a daily limit covering three: of ten sends fired at once at most three are sponsored, the rest refused with GAS_USER_DAILY_LIMIT, none runs twice', async () => {
    expect(firstMaxCost).toBeGreaterThan(0n)
    await w.setPolicy({ enabled: true, operations: ['send'], userDailyLimitWei: null })
    const u = await w.f.user(w.tenant)
    const wallet = await emptyWallet(u)
    const to = privateKeyToAccount(generatePrivateKey()).address
    // delegated first (so every one of the ten reserves a delegated operation's cost), then one more to read the cost of the next
    for (const amount of ['100000', '100000']) expect((await settled(u, (await send(u, wallet.id, to, amount)).body.id)).body.status).toBe('confirmed')
    const last = await w.f.api.get('/v1/transactions/?limit=1', { token: u.accessToken })
    const perOp = BigInt(last.body.data[0].metadata.sponsorship.maxCostWei)
    const used = await w.f.api.get('/v1/gas-sponsorship/usage', { token: u.accessToken })
    await w.setPolicy({ enabled: true, operations: ['send'], userDailyLimitWei: (BigInt(used.body.networks[0].dayWei) + perOp * 35n / 10n).toString() })
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(u, wallet.id, to, '100000')))
    const sent = answers.filter((a) => a.status === 201)
    const refused = answers.filter((a) => a.status === 429)
    // each operation reserves its maximum cost, which the bundler's estimate (and the base fee) sets: at most three fit
    expect(sent.length).toBeGreaterThanOrEqual(1)
    expect(sent.length).toBeLessThanOrEqual(3)
    expect(refused.length).toBe(10 - sent.length)
    for (const r of refused) expect(r.body.code).toBe('GAS_USER_DAILY_LIMIT')
    const outcomes = await Promise.all(sent.map((s) => settled(u, s.body.id)))
    expect(outcomes.every((o) => o.body.status === 'confirmed')).toBe(true)
    // two before, the sponsored ones now: each ran once
    expect(await usdc(to)).toBe(BigInt(2 + sent.length) * 100_000n)
    const after = await w.f.api.get('/v1/gas-sponsorship/usage', { token: u.accessToken })
    expect(after.body.networks[0].dayOperations).toBe(2 + sent.length)
    await w.setPolicy({ enabled: true, userDailyLimitWei: null })
  }, 120_000)

  test('a user operation the bundler lost before bundling is resubmitted by the status job and runs once', async () => {
    await w.setPolicy({ enabled: true, operations: ['send'], userDailyLimitWei: null })
    const u = await w.f.user(w.tenant)
    const wallet = await emptyWallet(u)
    const to = privateKeyToAccount(generatePrivateKey()).address
    // a bundler that holds operations without bundling them, then loses its mempool (as a
    // restart does: alto's own state is emptied here, instead of two restarts of 3-10 s each)
    expect(await alto('debug_bundler_setBundlingMode', ['manual'])).toBe('ok')
    const res = await send(u, wallet.id, to, '2000000')
    expect(res.status).toBe(201)
    expect(await altoHolds()).toEqual([wallet.address.toLowerCase()])
    expect(await alto('debug_bundler_clearState')).toBe('ok')
    expect(await altoHolds()).toEqual([])
    expect(await alto('debug_bundler_setBundlingMode', ['auto'])).toBe('ok')
    const done = await settled(u, res.body.id)
    expect(done.body.status).toBe('confirmed')
    expect(done.body.resendCount).toBeGreaterThanOrEqual(1)
    expect(await usdc(to)).toBe(2_000_000n)
  }, 120_000)
})
