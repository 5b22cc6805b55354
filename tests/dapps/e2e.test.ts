/**
 * The dApp helpers end to end over real HTTP, against a local EVM node posing as Sepolia
 * (anvil, chain id 11155111, the tenant's `chains.rpc.sepolia`), with the status job
 * running: a custodial wallet's personal message verified with viem, a nonce spent once,
 * a transaction signed in the test by the user's registered non-custodial key broadcast once
 * and confirmed, the node's refusals, and the rate limits with their headers.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { parseEther, verifyMessage, type Address, type Hex, type TransactionSerializable } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { RateLimiter } from '@/http/rate-limit'
import { systemClock } from '@/lib/clock'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { reader, waitFor } from '@tests/transactions/helpers'
import { startRpcFaultProxy } from '@tests/helpers/rpc-fault-proxy'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'

const SEPOLIA = 11_155_111

let t: TestApp
let server: HttpServer
let api: Api
let f: Factory
let tenant: Tenant
let node: LocalChain
let chain: ReturnType<typeof reader>

beforeAll(async () => {
  node = await startLocalChain({ chainId: SEPOLIA })
  chain = reader(node.url)
  // The system clock: the status job runs on real time.
  t = await makeApp({ clock: systemClock, jobs: true, env: { RPC_TIMEOUT_MS: '3000' } })
  server = serve(t)
  api = new Api(server.url)
  f = new Factory(t, api)
  tenant = await f.tenant({ chains: { rpc: { sepolia: node.url } } })
}, 30_000)
afterAll(async () => {
  await server.stop()
  await t.close()
  await node.stop()
})
beforeEach(() => {
  t.deps.rateLimiter = new RateLimiter(t.clock)
})

const siwe = (address: string, nonce: string) =>
  `app.example.com wants you to sign in with your Ethereum account:\n${address}\n\nSign in to Example.\n\nURI: https://app.example.com\nVersion: 1\nChain ID: ${SEPOLIA}\nNonce: ${nonce}\nIssued At: ${new Date().toISOString()}`

/** Registers `account` as the user's non-custodial Sepolia wallet (challenge signed with EIP-191). */
async function sepoliaClientWallet(u: SignedInUser, account: PrivateKeyAccount) {
  const c = await api.get(`/v1/wallets/client/challenge?chain=sepolia&address=${account.address}`, { token: u.accessToken })
  expect(c.status).toBe(200)
  const res = await api.post('/v1/wallets/client', { challengeId: c.body.challengeId, signature: await account.signMessage({ message: c.body.message }) }, { token: u.accessToken })
  expect(res.status).toBe(201)
  expect(res.body).toMatchObject({ chain: 'ethereum', isTestnet: true, keyManagementScheme: 'client_side' })
  return res.body as { id: string; address: Address }
}

/** A native transfer signed by `account`, with the node's nonce and fees, for `chainId` (default Sepolia's). */
async function signedTransfer(account: PrivateKeyAccount, to: Address, value: bigint, over: Partial<TransactionSerializable> = {}): Promise<Hex> {
  const [nonce, fees] = await Promise.all([chain.nonce(account.address), chain.pub.estimateFeesPerGas()])
  return account.signTransaction({
    type: 'eip1559', chainId: SEPOLIA, nonce, to, value, gas: 21_000n, maxFeePerGas: fees.maxFeePerGas * 2n, maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    ...over,
  } as TransactionSerializable)
}

const broadcast = (u: SignedInUser, body: Record<string, unknown>) => api.post('/v1/dapps/broadcast', body, { token: u.accessToken })
const stored = (u: SignedInUser, id: string) => api.get(`/v1/transactions/${id}`, { token: u.accessToken })
const settled = (u: SignedInUser, id: string) => waitFor(() => stored(u, id), (r) => r.body?.status !== 'pending')

describe('personal messages over HTTP', () => {
  test('a custodial Sepolia wallet signs a SIWE message with a fresh nonce: viem verifies it; the nonce used twice is refused', async () => {
    const u = await f.user(tenant)
    const w = await api.post('/v1/wallets/', { chain: 'sepolia' }, { token: u.accessToken })
    expect(w.status).toBe(201)
    const n = await api.get('/v1/dapps/nonce', { token: u.accessToken })
    expect(n.status).toBe(200)
    const message = siwe(w.body.address, n.body.nonce)
    const res = await api.post('/v1/dapps/sign-personal-message', { walletId: w.body.id, message, nonce: n.body.nonce }, { token: u.accessToken })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ address: w.body.address, isTestnet: true, message, nonce: n.body.nonce, signingScheme: 'eip191-personal-sign' })
    expect(await verifyMessage({ address: w.body.address, message, signature: res.body.signature })).toBe(true)
    const again = await api.post('/v1/dapps/sign-personal-message', { walletId: w.body.id, message, nonce: n.body.nonce }, { token: u.accessToken })
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ statusCode: 409, error: 'ConflictError', code: 'DAPP_NONCE_USED' })
  })
})

describe('broadcast of a client-signed transaction on the local node', () => {
  test('a transfer signed by the user\'s non-custodial key is broadcast once, recorded as type dapp, and confirms without anyone polling', async () => {
    const u = await f.user(tenant)
    const account = privateKeyToAccount(generatePrivateKey())
    const w = await sepoliaClientWallet(u, account)
    await node.sendNative(account.address, parseEther('1'))
    const to = privateKeyToAccount(generatePrivateKey()).address
    const raw = await signedTransfer(account, to, 123_456_789n)
    const res = await broadcast(u, { chain: 'sepolia', signedTransaction: raw })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ type: 'dapp', status: 'pending', walletId: w.id, fromAddress: account.address, chain: 'ethereum', isTestnet: true, network: 'sepolia' })
    expect(res.body.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    // GET /{id} does not read the chain: only the status job can have settled it
    const done = await settled(u, res.body.id)
    expect(done.body).toMatchObject({
      type: 'dapp', status: 'confirmed', txHash: res.body.txHash, requiresClientSigning: true, fromAddress: account.address, toAddress: to,
      amount: '123456789', token: { address: null, symbol: 'ETH', decimals: 18 }, nonce: 0,
    })
    expect(done.body.blockNumber).toBeGreaterThan(0)
    expect(await chain.balance(to)).toBe(123_456_789n)
    // in the history and the unified feed
    const list = await api.get('/v1/transactions/', { token: u.accessToken })
    expect(list.body.data.map((r: { id: string; type: string }) => [r.id, r.type])).toEqual([[res.body.id, 'dapp']])
    const feed = await api.get('/v1/transactions/aggregated/', { token: u.accessToken })
    expect(feed.body.data[0]).toMatchObject({ id: `tx:${res.body.id}`, kind: 'dapp', direction: 'out', counterparty: to, status: 'confirmed' })
    // the same signed bytes again: nothing recorded or sent twice
    const again = await broadcast(u, { chain: 'ethereum', signedTransaction: raw })
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ statusCode: 409, error: 'BlockchainError', code: 'TRANSACTION_ALREADY_BROADCAST', details: { transactionId: res.body.id } })
    expect((await api.get('/v1/transactions/', { token: u.accessToken })).body.pagination.total).toBe(1)
    expect(await chain.balance(to)).toBe(123_456_789n)
  })

  test('the node takes it but answers an error (a gateway lost its answer): pending, not failed; the same bytes again answer 409 with the one record', async () => {
    const rpc = await startRpcFaultProxy(node.url)
    try {
      const proxied = await f.tenant({ chains: { rpc: { sepolia: rpc.url } } })
      const u = await f.user(proxied)
      const account = privateKeyToAccount(generatePrivateKey())
      await sepoliaClientWallet(u, account)
      await node.sendNative(account.address, parseEther('1'))
      const to = privateKeyToAccount(generatePrivateKey()).address
      const raw = await signedTransfer(account, to, 1_000n)
      const res = await rpc.during('lose', () => broadcast(u, { chain: 'sepolia', signedTransaction: raw }))
      expect([res.status, res.body.status]).toEqual([201, 'pending'])
      expect((await settled(u, res.body.id)).body.status).toBe('confirmed')
      const again = await broadcast(u, { chain: 'sepolia', signedTransaction: raw })
      expect([again.status, again.body.code, again.body.details?.transactionId]).toEqual([409, 'TRANSACTION_ALREADY_BROADCAST', res.body.id])
      expect(await chain.balance(to)).toBe(1_000n)
    } finally {
      rpc.stop()
    }
  })

  test('a legacy transaction with an EIP-155 chain id, named by the family id, confirms too', async () => {
    const u = await f.user(tenant)
    const account = privateKeyToAccount(generatePrivateKey())
    await sepoliaClientWallet(u, account)
    await node.sendNative(account.address, parseEther('1'))
    const to = privateKeyToAccount(generatePrivateKey()).address
    const gasPrice = (await chain.pub.getGasPrice()) * 2n
    const raw = await account.signTransaction({ type: 'legacy', chainId: SEPOLIA, nonce: 0, to, value: 7n, gas: 21_000n, gasPrice })
    const res = await broadcast(u, { chain: 'ethereum', signedTransaction: raw })
    expect(res.status).toBe(201)
    expect(res.body.network).toBe('sepolia')
    expect((await settled(u, res.body.id)).body).toMatchObject({ status: 'confirmed', amount: '7', metadata: { transactionType: 'legacy' } })
  })

  test('signed for another chain id: 400 CHAIN_ID_MISMATCH; nothing reaches the node', async () => {
    const u = await f.user(tenant)
    const account = privateKeyToAccount(generatePrivateKey())
    await sepoliaClientWallet(u, account)
    await node.sendNative(account.address, parseEther('1'))
    const raw = await signedTransfer(account, account.address, 1n, { chainId: 1 })
    for (const name of ['sepolia', 'ethereum']) {
      const res = await broadcast(u, { chain: name, signedTransaction: raw })
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ error: 'BlockchainError', code: 'CHAIN_ID_MISMATCH', retryable: false })
      expect(res.body.message).toContain('11155111')
    }
    expect(await chain.nonce(account.address)).toBe(0)
  })

  test('a transaction the node refuses (funds short) answers 400 TRANSACTION_REJECTED, recorded failed; the same bytes go through once funded', async () => {
    const u = await f.user(tenant)
    const account = privateKeyToAccount(generatePrivateKey())
    await sepoliaClientWallet(u, account)
    const raw = await signedTransfer(account, account.address, 5n)
    const res = await broadcast(u, { chain: 'sepolia', signedTransaction: raw })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ error: 'BlockchainError', code: 'TRANSACTION_REJECTED', retryable: false })
    const failed = (await api.get('/v1/transactions/?status=failed', { token: u.accessToken })).body.data
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatchObject({ type: 'dapp', status: 'failed' })
    expect(failed[0].failureReason).toStartWith('not submitted: ')
    // never taken by the node, so not "already broadcast"
    await node.sendNative(account.address, parseEther('1'))
    const retry = await broadcast(u, { chain: 'sepolia', signedTransaction: raw })
    expect(retry.status).toBe(201)
    expect((await settled(u, retry.body.id)).body.status).toBe('confirmed')
  })

  test('a custodial wallet\'s user cannot broadcast a transaction someone else\'s key signed', async () => {
    const u = await f.user(tenant)
    await api.post('/v1/wallets/', { chain: 'sepolia' }, { token: u.accessToken })
    const stranger = privateKeyToAccount(generatePrivateKey())
    await node.sendNative(stranger.address, parseEther('1'))
    const res = await broadcast(u, { chain: 'sepolia', signedTransaction: await signedTransfer(stranger, stranger.address, 1n) })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('WRONG_SIGNER')
    expect(await chain.nonce(stranger.address)).toBe(0)
  })
})

describe('rate limits per client IP, with their headers', () => {
  const burst = async (n: number, call: () => Promise<{ status: number; headers: Headers }>) => {
    const out = []
    for (let i = 0; i < n; i++) out.push(await call())
    return out
  }
  const expectLimited = (answers: Array<{ status: number; headers: Headers; body?: unknown }>, limit: number) => {
    expect(answers.slice(0, limit).every((a) => a.status !== 429)).toBe(true)
    expect(answers[0]!.headers.get('x-ratelimit-limit')).toBe(String(limit))
    expect(answers[0]!.headers.get('x-ratelimit-remaining')).toBe(String(limit - 1))
    expect(Number(answers[0]!.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0)
    const last = answers[limit]!
    expect(last.status).toBe(429)
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(last.body).toMatchObject({ statusCode: 429, error: 'Error' })
  }

  test('GET /v1/dapps/nonce: 30 per minute', async () => {
    const u = await f.user(tenant)
    expectLimited(await burst(31, () => api.get('/v1/dapps/nonce', { token: u.accessToken })), 30)
  })

  test('POST /v1/dapps/sign-personal-message: 20 per minute', async () => {
    const u = await f.user(tenant)
    const w = await api.post('/v1/wallets/', { chain: 'sepolia' }, { token: u.accessToken })
    expectLimited(await burst(21, () => api.post('/v1/dapps/sign-personal-message', { walletId: w.body.id, message: 'hello' }, { token: u.accessToken })), 20)
  })

  test('POST /v1/dapps/broadcast: 10 per 10 seconds', async () => {
    const u = await f.user(tenant)
    expectLimited(await burst(11, () => broadcast(u, { chain: 'sepolia', signedTransaction: '0x00' })), 10)
  })
})
