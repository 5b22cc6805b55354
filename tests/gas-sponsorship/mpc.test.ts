/**
 * An MPC wallet (2-of-3 DKLs23, the device and backup here, Slipway's service party as the
 * worker's job over the relay's HTTP routes) sends USDC sponsored on the devnet (anvil + alto):
 * POST /v1/transactions/ answers a prepared user operation; its first sponsored operation has a
 * second hash, its EIP-7702 authorization; device + service sign both through the relay; the
 * operation goes to the bundler with the last signature. Afterwards the wallet's code is the
 * delegation, its ETH is 0, the paymaster's deposit fell and the usage counts it. While the
 * first (delegating) operation is open, a second one of the wallet is refused with
 * GAS_DELEGATION_PENDING; once delegated, an operation has one hash only.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { erc20Abi, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { runDkg, runSign } from '@/client/mpc-party'
import type { SignedInUser, Tenant } from '@tests/helpers/factories'
import { until } from '@tests/helpers/until'
import { USDC_MAINNET } from '../transactions/helpers'
import { SIMPLE_7702_ACCOUNT } from '../../scripts/devnet/aa'
import { gasWorld } from './world'

const w = gasWorld({ jobs: true, relay: true })
let tenant: Tenant
let u: SignedInUser
let wallet: { id: string; address: Address }
let device: Uint8Array

const relay = () => ({ baseUrl: w.http.url, token: u.accessToken, roundTimeoutMs: 60_000, engine: process.env.MPC_ENGINE! })
const usdc = (a: Address) => w.pub.readContract({ address: USDC_MAINNET, abi: erc20Abi, functionName: 'balanceOf', args: [a] })
const prepare = (to: Address, amount: string) =>
  w.f.api.post('/v1/transactions/', { walletId: wallet.id, chain: 'ethereum', toAddress: to, amount, tokenAddress: USDC_MAINNET }, { token: u.accessToken })

/** device (0) + service (1) sign the prepared piece's hash through the relay; answers the session's results */
async function sign(preparedTransactionId: string) {
  const start = await w.f.api.post(`/v1/mpc/wallets/${wallet.id}/sign/start`, { preparedTransactionId, parties: [0, 1] }, { token: u.accessToken })
  expect(start.status).toBe(200)
  const sessionId = start.body.sessionId as string
  await runSign(relay(), sessionId, 0, device)
  const done = await until(() => w.f.api.get(`/v1/mpc/relay/session/${sessionId}/results`, { token: u.accessToken }), (r) => r.body.status !== 'open', 60_000)
  return done.body
}

const settled = (id: string) =>
  until(() => w.f.api.get(`/v1/transactions/${id}/status`, { token: u.accessToken }), (r) => r.body?.status === 'confirmed' || r.body?.status === 'failed', 60_000)

beforeAll(async () => {
  await w.aa.node.installMulticall3()
  await w.aa.node.placeToken(USDC_MAINNET)
  tenant = await w.f.tenant({ walletMode: 'mpc', chains: { rpc: { ethereum: w.aa.node.url } } })
  await w.setPolicy({ enabled: true, operations: ['send'] }, tenant)
  u = await w.f.user(tenant)
  await newWallet()
}, 180_000)

/** DKG through the relay (device and backup here, the service party the worker's job); the wallet registered and given 10 USDC, no ETH */
async function newWallet() {
  const start = await w.f.api.post('/v1/mpc/wallets/dkg/start', { chain: 'ethereum' }, { token: u.accessToken })
  expect(start.status).toBe(200)
  const sessionId = start.body.sessionId as string
  const [d, b] = await Promise.all([runDkg(relay(), sessionId, 0), runDkg(relay(), sessionId, 2)])
  expect(d.publicKey).toBe(b.publicKey)
  device = d.keyshare
  await until(() => w.f.api.get(`/v1/mpc/relay/session/${sessionId}/results`, { token: u.accessToken }), (r) => r.body.status !== 'open', 60_000)
  const reg = await w.f.api.post('/v1/mpc/wallets', { sessionId }, { token: u.accessToken })
  expect(reg.status).toBe(200)
  wallet = reg.body
  await w.aa.node.sendToken(wallet.address, 10_000_000n, USDC_MAINNET)
}

describe('an MPC wallet, sponsored', () => {
  test('0 ETH, 10 USDC: sends 5 USDC, its user operation and authorization signed by device + service through the relay; delegated, still 0 ETH, the deposit paid, usage counted', async () => {
    expect(await w.pub.getBalance({ address: wallet.address })).toBe(0n)
    const to = privateKeyToAccount(generatePrivateKey()).address
    const before = await w.deposit()
    const prep = await prepare(to, '5000000')
    expect(prep.status).toBe(201)
    expect(prep.body).toMatchObject({ status: 'awaiting_signature', sponsored: true, requiresClientSigning: true, txHash: null, signingScheme: 'evm-user-operation-hash' })
    expect(prep.body.signingHash).toBe(prep.body.userOpHash)
    expect(prep.body.authorization).toMatchObject({ signingScheme: 'evm-7702-authorization', chainId: 1, address: SIMPLE_7702_ACCOUNT })

    // a second operation while the first (delegating) one is open: refused clearly, nothing reserved for it
    const second = await prepare(to, '1000000')
    expect(second.status).toBe(409)
    expect(second.body.code).toBe('GAS_DELEGATION_PENDING')
    expect(second.body.details.transactionId).toBe(prep.body.id)

    // the user operation first: it waits for the authorization
    const op = await sign(prep.body.preparedTransactionId)
    expect(op).toMatchObject({ status: 'completed', transactionId: prep.body.id })
    expect((await w.f.api.get(`/v1/transactions/${prep.body.id}`, { token: u.accessToken })).body.status).toBe('awaiting_signature')
    const auth = await sign(prep.body.authorization.preparedTransactionId)
    expect(auth).toMatchObject({ status: 'completed', transactionId: prep.body.id })

    expect((await settled(prep.body.id)).body.status).toBe('confirmed')
    const done = await w.f.api.get(`/v1/transactions/${prep.body.id}`, { token: u.accessToken })
    expect(done.body).toMatchObject({ status: 'confirmed', userOpHash: prep.body.userOpHash, feePaid: '0', fromAddress: wallet.address })
    expect(done.body.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await usdc(to)).toBe(5_000_000n)
    expect(await usdc(wallet.address)).toBe(5_000_000n)
    expect((await w.pub.getCode({ address: wallet.address }))?.toLowerCase()).toBe(`0xef0100${SIMPLE_7702_ACCOUNT.slice(2).toLowerCase()}`)
    expect(await w.pub.getBalance({ address: wallet.address })).toBe(0n)
    const paid = before - (await w.deposit())
    expect(paid).toBeGreaterThan(0n)
    const usage = await w.f.api.get(`/v1/admin/tenants/${tenant.id}/gas-usage?userId=${u.id}`, { token: (await w.f.tenantAdmin(tenant)).accessToken })
    expect(usage.body.networks[0]).toMatchObject({ network: 'ethereum', dayOperations: 1, dayWei: paid.toString() })

    // a used piece cannot be signed again
    const again = await w.f.api.post(`/v1/mpc/wallets/${wallet.id}/sign/start`, { preparedTransactionId: prep.body.preparedTransactionId }, { token: u.accessToken })
    expect(again.status).toBe(409)
  }, 240_000)

  test('delegated: the next sponsored send has one hash to sign (no authorization) and runs once', async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address
    const prep = await prepare(to, '1000000')
    expect(prep.status).toBe(201)
    expect(prep.body.sponsored).toBe(true)
    expect(prep.body.authorization).toBeUndefined()
    expect(await sign(prep.body.preparedTransactionId)).toMatchObject({ status: 'completed' })
    expect((await settled(prep.body.id)).body.status).toBe('confirmed')
    expect(await usdc(to)).toBe(1_000_000n)
    expect(await w.pub.getBalance({ address: wallet.address })).toBe(0n)
  }, 180_000)

  test('a signature of another key for a piece: 400, nothing consumed', async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address
    const prep = await prepare(to, '1000')
    expect(prep.status).toBe(201)
    const stranger = privateKeyToAccount(generatePrivateKey())
    const signature = await stranger.sign({ hash: prep.body.signingHash })
    const bad = await w.f.api.post(`/v1/transactions/${prep.body.preparedTransactionId}/broadcast`, { signature }, { token: u.accessToken })
    expect(bad.status).toBe(400)
    expect((await w.f.api.get(`/v1/transactions/${prep.body.id}`, { token: u.accessToken })).body.status).toBe('awaiting_signature')
  }, 60_000)

  test('a new wallet: its two hashes signed at once, in two sessions: the operation goes once, with the last signature, and runs once', async () => {
    await newWallet()
    const to = privateKeyToAccount(generatePrivateKey()).address
    const prep = await prepare(to, '2000000')
    expect(prep.status).toBe(201)
    expect(prep.body.authorization).toBeDefined()
    const [op, auth] = await Promise.all([sign(prep.body.preparedTransactionId), sign(prep.body.authorization.preparedTransactionId)])
    expect([op.status, auth.status]).toEqual(['completed', 'completed'])
    expect((await settled(prep.body.id)).body.status).toBe('confirmed')
    expect(await usdc(to)).toBe(2_000_000n)
    expect((await w.pub.getCode({ address: wallet.address }))?.toLowerCase()).toBe(`0xef0100${SIMPLE_7702_ACCOUNT.slice(2).toLowerCase()}`)
    expect(await w.pub.getBalance({ address: wallet.address })).toBe(0n)
    const done = await w.f.api.get(`/v1/transactions/${prep.body.id}`, { token: u.accessToken })
    expect(done.body).toMatchObject({ status: 'confirmed', resendCount: 0 })
  }, 240_000)
})
