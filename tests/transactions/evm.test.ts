import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { parseEther, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { preparedTransactions } from '@/modules/transactions/schema'
import { RateLimiter } from '@/http/rate-limit'
import { systemClock } from '@/lib/clock'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { clientWallet, custodialWallet, reader, USDC_MAINNET, waitFor } from './helpers'

let t: TestApp
let f: Factory
let tenant: Tenant
let other: Tenant
let node: LocalChain
let chain: ReturnType<typeof reader>

beforeAll(async () => {
  node = await startLocalChain({ chainId: 1 })
  await node.installMulticall3()
  await node.placeToken(USDC_MAINNET)
  chain = reader(node.url)
  // The system clock: the status job runs on real time.
  t = await makeApp({ clock: systemClock, jobs: true, env: { RPC_TIMEOUT_MS: '3000' } })
  f = new Factory(t)
  tenant = await f.tenant({ chains: { rpc: { ethereum: node.url } } })
  other = await f.tenant({ chains: { rpc: { ethereum: node.url } } })
}, 30_000)
afterAll(async () => {
  await t.close()
  await node.stop()
})
beforeEach(() => {
  t.deps.rateLimiter = new RateLimiter(t.clock)
})

const send = (u: SignedInUser, body: Record<string, unknown>) => f.api.post('/v1/transactions/', body, { token: u.accessToken })
const stored = (u: SignedInUser, id: string) => f.api.get(`/v1/transactions/${id}`, { token: u.accessToken })
const settled = (u: SignedInUser, id: string) => waitFor(() => stored(u, id), (r) => r.body?.status !== 'pending')

async function funded(u: SignedInUser, eth = '10') {
  const w = await custodialWallet(f.api, u)
  await node.sendNative(w.address, parseEther(eth))
  return w
}

describe('custodial sends on a local node', () => {
  test('a native send answers 201 pending with a hash, and confirms without anyone polling', async () => {
    const u = await f.user(tenant)
    const w = await funded(u)
    const to = privateKeyToAccount(generatePrivateKey()).address
    const res = await send(u, { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '1230000000000000000' })
    expect(res.status).toBe(201)
    // (toMatchObject with an asymmetric matcher rewrites the field under Bun: check the id apart)
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(res.body).toMatchObject({ status: 'pending', requiresClientSigning: false })
    expect(res.body.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    // GET /{id} does not read the chain: only the background job can have settled it.
    const done = await settled(u, res.body.id)
    expect(done.body).toMatchObject({ status: 'confirmed', txHash: res.body.txHash, amount: '1230000000000000000', token: { address: null, symbol: 'ETH', decimals: 18 } })
    expect(done.body.blockNumber).toBeGreaterThan(0)
    expect(BigInt(done.body.feePaid)).toBeGreaterThan(0n)
    expect(await chain.balance(to)).toBe(1_230_000_000_000_000_000n)
    const status = await f.api.get(`/v1/transactions/${res.body.id}/status`, { token: u.accessToken })
    expect(status.status).toBe(200)
    expect(status.body).toMatchObject({ id: res.body.id, txHash: res.body.txHash, status: 'confirmed', blockNumber: done.body.blockNumber })
    expect(status.body.confirmations).toBeGreaterThanOrEqual(1)
    expect(new Date(status.body.blockTimestamp).getTime()).toBeGreaterThan(Date.now() - 120_000)
  })

  test('an ERC-20 send moves tokens and confirms', async () => {
    const u = await f.user(tenant)
    const w = await funded(u, '1')
    await node.sendToken(w.address, 5_000_000n, USDC_MAINNET)
    const to = privateKeyToAccount(generatePrivateKey()).address
    const res = await send(u, { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '1234567', tokenAddress: USDC_MAINNET.toLowerCase() })
    expect(res.status).toBe(201)
    const done = await settled(u, res.body.id)
    expect(done.body).toMatchObject({ status: 'confirmed', amount: '1234567', token: { address: USDC_MAINNET, symbol: 'USDC', decimals: 6 }, toAddress: to })
    expect(await chain.tokenBalance(USDC_MAINNET, to)).toBe(1_234_567n)
    expect(await chain.tokenBalance(USDC_MAINNET, w.address)).toBe(5_000_000n - 1_234_567n)
  })

  test('20 concurrent sends from one wallet get consecutive nonces and all confirm', async () => {
    const u = await f.user(tenant)
    const w = await funded(u, '5')
    const to = privateKeyToAccount(generatePrivateKey()).address
    const startNonce = await chain.nonce(w.address)
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => send(u, { walletId: w.id, chain: 'ethereum', toAddress: to, amount: String(1000 + i) })))
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201))
    const nonces = answers.map((a) => a.body.nonce as number).sort((a, b) => a - b)
    expect(nonces).toEqual(Array.from({ length: 20 }, (_, i) => startNonce + i))
    for (const a of answers) expect((await settled(u, a.body.id)).body.status).toBe('confirmed')
    expect(await chain.nonce(w.address)).toBe(startNonce + 20)
    expect(await chain.balance(to)).toBe(BigInt(20 * 1000 + (19 * 20) / 2))
  }, 60_000)

  test('a nonce used outside Slipway is resynchronised from the chain ("nonce too low")', async () => {
    const u = await f.user(tenant)
    const key = generatePrivateKey()
    const imported = await f.api.post('/v1/wallets/import', { chain: 'ethereum', privateKey: key }, { token: u.accessToken })
    expect(imported.status).toBe(201)
    const account = privateKeyToAccount(key)
    await node.sendNative(account.address, parseEther('1'))
    const to = privateKeyToAccount(generatePrivateKey()).address
    const first = await send(u, { walletId: imported.body.id, chain: 'ethereum', toAddress: to, amount: '1' })
    expect(first.body.nonce).toBe(0)
    await settled(u, first.body.id)
    // The same key sends twice from another tool: the stored counter (1) is now behind the chain (3).
    const { createWalletClient, http } = await import('viem')
    const outside = createWalletClient({ account, transport: http(node.url), chain: { id: 1, name: 'local', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [node.url] } } } })
    for (let i = 0; i < 2; i++) await chain.pub.waitForTransactionReceipt({ hash: await outside.sendTransaction({ to, value: 1n }) })
    const res = await send(u, { walletId: imported.body.id, chain: 'ethereum', toAddress: to, amount: '7' })
    expect(res.status).toBe(201)
    expect(res.body.nonce).toBe(3)
    expect((await settled(u, res.body.id)).body.status).toBe('confirmed')
  })
})

describe('create: bad inputs and isolation', () => {
  let u: SignedInUser
  let w: { id: string; address: Address }
  beforeAll(async () => {
    u = await f.user(tenant)
    w = await funded(u, '1')
  })
  const to = '0x000000000000000000000000000000000000dEaD'

  test('a decimal amount answers 400 and stores nothing', async () => {
    for (const amount of ['1.5', '-1', '1e18', '', 'abc']) {
      const res = await send(u, { walletId: w.id, chain: 'ethereum', toAddress: to, amount })
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ statusCode: 400, message: 'Request validation failed' })
    }
    const res = await send(u, { walletId: w.id, chain: 'ethereum', toAddress: to, amount: 1000 })
    expect(res.status).toBe(400)
    const list = await f.api.get('/v1/transactions/', { token: u.accessToken })
    expect(list.body.pagination.total).toBe(0)
  })

  test('zero, a bad address, another chain, an unknown token: 400', async () => {
    const cases = [
      [{ amount: '0' }, 'greater than 0'],
      [{ toAddress: '0x1234' }, 'toAddress'],
      [{ chain: 'polygon' }, 'ethereum'],
      [{ chain: 'nochain' }, 'ethereum'],
      [{ tokenAddress: '0x1111111111111111111111111111111111111111' }, 'Token not found'],
    ] as const
    for (const [over, text] of cases) {
      const res = await send(u, { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '1', ...over })
      expect(res.status).toBe(400)
      expect(res.body.message).toContain(text)
    }
  })

  test('more than the balance answers 400 BlockchainError TRANSACTION_WOULD_FAIL, and no nonce is used', async () => {
    const res = await send(u, { walletId: w.id, chain: 'ethereum', toAddress: to, amount: parseEther('1000').toString() })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ error: 'BlockchainError', code: 'TRANSACTION_WOULD_FAIL', retryable: false })
    const ok = await send(u, { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '1' })
    expect(ok.body.nonce).toBe(0)
  })

  test('another user\'s or another tenant\'s wallet and transactions answer 404', async () => {
    const mine = await send(u, { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '2' })
    expect(mine.status).toBe(201)
    const stranger = await f.user(tenant)
    const foreign = await f.user(other)
    for (const x of [stranger, foreign]) {
      expect((await send(x, { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '1' })).status).toBe(404)
      expect((await stored(x, mine.body.id)).status).toBe(404)
      expect((await f.api.get(`/v1/transactions/${mine.body.id}/status`, { token: x.accessToken })).status).toBe(404)
      expect((await f.api.get(`/v1/transactions/aggregated/tx:${mine.body.id}`, { token: x.accessToken })).status).toBe(404)
      expect((await f.api.post('/v1/transactions/quote', { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '1' }, { token: x.accessToken })).status).toBe(404)
      const list = await f.api.get('/v1/transactions/', { token: x.accessToken })
      expect(list.body.data).toEqual([])
    }
    expect((await stored(u, 'not-a-uuid')).status).toBe(404)
    expect((await f.api.get('/v1/transactions/')).status).toBe(401)
  })

  test('an RPC that is down answers 503 and stores nothing', async () => {
    const down = await f.tenant({ chains: { rpc: { ethereum: 'http://127.0.0.1:9' } } })
    const x = await f.user(down)
    const xw = await custodialWallet(f.api, x)
    const res = await send(x, { walletId: xw.id, chain: 'ethereum', toAddress: to, amount: '1' })
    expect(res.status).toBe(503)
    expect(res.body.error).toBe('ServiceUnavailableError')
    expect(res.text).not.toContain('127.0.0.1:9')
    expect((await f.api.get('/v1/transactions/', { token: x.accessToken })).body.pagination.total).toBe(0)
  })
})

describe('fee quote', () => {
  test('estimates gas and fee from the chain, stores nothing', async () => {
    const u = await f.user(tenant)
    const w = await funded(u, '1')
    await node.sendToken(w.address, 10n, USDC_MAINNET)
    const native = await f.api.post('/v1/transactions/quote', { walletId: w.id, chain: 'ethereum', toAddress: w.address, amount: '1' }, { token: u.accessToken })
    expect(native.status).toBe(200)
    expect(native.body).toMatchObject({ chain: 'ethereum', isTestnet: false, estimatedGas: '21000', nativeTokenSymbol: 'ETH', nativeTokenDecimals: 18 })
    expect(BigInt(native.body.estimatedFee)).toBe(21000n * BigInt(native.body.maxFeePerGas))
    const token = await f.api.post('/v1/transactions/quote', { walletId: w.id, chain: 'ethereum', toAddress: w.address, amount: '10', tokenAddress: USDC_MAINNET }, { token: u.accessToken })
    expect(token.status).toBe(200)
    expect(BigInt(token.body.estimatedGas)).toBeGreaterThan(21000n)
    expect((await f.api.get('/v1/transactions/', { token: u.accessToken })).body.pagination.total).toBe(0)
    expect(native.headers.get('x-ratelimit-limit')).toBe('60')
    const bad = await f.api.post('/v1/transactions/quote', { walletId: w.id, chain: 'ethereum', toAddress: w.address, amount: '0.5' }, { token: u.accessToken })
    expect(bad.status).toBe(400)
  })
})

describe('non-custodial: prepare, sign with viem, broadcast', () => {
  let u: SignedInUser
  let account: ReturnType<typeof privateKeyToAccount>
  let w: { id: string; address: Address }
  beforeAll(async () => {
    u = await f.user(tenant)
    account = privateKeyToAccount(generatePrivateKey())
    w = await clientWallet(f.api, u, account)
    await node.sendNative(account.address, parseEther('2'))
  })
  const to = '0x000000000000000000000000000000000000bEEF'
  const prepare = async (amount = '1000') => {
    const res = await send(u, { walletId: w.id, chain: 'ethereum', toAddress: to, amount })
    expect(res.status).toBe(201)
    return res.body
  }
  const broadcast = (id: string, body: unknown) => f.api.post(`/v1/transactions/${id}/broadcast`, body, { token: u.accessToken })

  test('the answer asks for a client signature over the EIP-1559 hash; the signed hash broadcasts and confirms', async () => {
    const p = await prepare()
    expect(p).toMatchObject({ requiresClientSigning: true, txHash: null, status: 'awaiting_signature', signingScheme: 'evm-eip1559-hash' })
    expect(p.signingHash).toMatch(/^0x[0-9a-f]{64}$/)
    const { keccak256 } = await import('viem')
    expect(keccak256(p.unsignedTransaction)).toBe(p.signingHash)
    const signature = await account.sign({ hash: p.signingHash })
    const res = await broadcast(p.preparedTransactionId, { signature })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: p.id, status: 'pending' })
    const done = await settled(u, p.id)
    expect(done.body).toMatchObject({ status: 'confirmed', txHash: res.body.txHash, requiresClientSigning: true })
    const again = await broadcast(p.preparedTransactionId, { signature })
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ statusCode: 409, error: 'BlockchainError', code: 'PREPARED_TX_ALREADY_USED', retryable: false })
  })

  test('a full signed transaction from viem is accepted too (by transaction id)', async () => {
    const p = await prepare('2000')
    const tx = p.transaction
    const raw = await account.signTransaction({ type: 'eip1559', chainId: tx.chainId, nonce: tx.nonce, to: tx.to, value: BigInt(tx.value), data: tx.data === '0x' ? undefined : tx.data, gas: BigInt(tx.gas), maxFeePerGas: BigInt(tx.maxFeePerGas), maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas) })
    const res = await broadcast(p.id, { signedTransaction: raw })
    expect(res.status).toBe(200)
    expect((await settled(u, p.id)).body.status).toBe('confirmed')
  })

  test('two simultaneous broadcasts: exactly one succeeds, the other answers 409', async () => {
    const p = await prepare('3000')
    const signature = await account.sign({ hash: p.signingHash })
    const answers = await Promise.all([broadcast(p.preparedTransactionId, { signature }), broadcast(p.preparedTransactionId, { signature })])
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409])
    expect(answers.find((a) => a.status === 409)!.body.code).toBe('PREPARED_TX_ALREADY_USED')
    expect((await settled(u, p.id)).body.status).toBe('confirmed')
  })

  test('a signature by another key answers WRONG_SIGNER, and the prepared transaction stays usable', async () => {
    const p = await prepare('4000')
    const stranger = privateKeyToAccount(generatePrivateKey())
    const res = await broadcast(p.preparedTransactionId, { signature: await stranger.sign({ hash: p.signingHash }) })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ error: 'BlockchainError', code: 'WRONG_SIGNER', retryable: false })
    expect(typeof res.body.suggestedAction).toBe('string')
    const strangerRaw = await stranger.signTransaction({ type: 'eip1559', chainId: 1, nonce: p.transaction.nonce, to, value: 4000n, gas: BigInt(p.transaction.gas), maxFeePerGas: BigInt(p.transaction.maxFeePerGas), maxPriorityFeePerGas: BigInt(p.transaction.maxPriorityFeePerGas) })
    expect((await broadcast(p.preparedTransactionId, { signedTransaction: strangerRaw })).body.code).toBe('WRONG_SIGNER')
    const { parseSignature } = await import('viem')
    const { r, s, yParity } = parseSignature(await account.sign({ hash: p.signingHash }))
    const ok = await broadcast(p.preparedTransactionId, { signature: { r, s, yParity } })
    expect(ok.status).toBe(200)
  })

  test('garbage, a tampered transaction, both or neither field: SIGNATURE_DECODE_FAILED', async () => {
    const p = await prepare('5000')
    const tampered = await account.signTransaction({ type: 'eip1559', chainId: 1, nonce: p.transaction.nonce, to, value: 999999n, gas: BigInt(p.transaction.gas), maxFeePerGas: BigInt(p.transaction.maxFeePerGas), maxPriorityFeePerGas: BigInt(p.transaction.maxPriorityFeePerGas) })
    for (const body of [{ signature: '0x1234' }, { signature: 'zz' }, { signedTransaction: '0xdeadbeef' }, { signedTransaction: tampered }, {}, { signature: { r: '0x01', s: '0x02', yParity: 5 } }]) {
      const res = await broadcast(p.preparedTransactionId, body)
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ error: 'BlockchainError', code: 'SIGNATURE_DECODE_FAILED', retryable: false })
    }
    const stored0 = await stored(u, p.id)
    expect(stored0.body).toMatchObject({ status: 'awaiting_signature', txHash: null })
  })

  test('unknown, foreign and expired prepared transactions', async () => {
    const p = await prepare('6000')
    const signature = await account.sign({ hash: p.signingHash })
    expect((await broadcast(crypto.randomUUID(), { signature })).body).toMatchObject({ statusCode: 404, code: 'PREPARED_TX_NOT_FOUND', error: 'BlockchainError' })
    expect((await broadcast('nope', { signature })).status).toBe(404)
    const stranger = await f.user(tenant)
    const foreign = await f.api.post(`/v1/transactions/${p.preparedTransactionId}/broadcast`, { signature }, { token: stranger.accessToken })
    expect(foreign.body.code).toBe('PREPARED_TX_NOT_FOUND')
    await t.deps.database.write((tx) => tx.update(preparedTransactions).set({ expiresAt: Date.now() - 1 }).where(eq(preparedTransactions.id, p.preparedTransactionId)))
    const expired = await broadcast(p.preparedTransactionId, { signature })
    expect(expired.status).toBe(410)
    expect(expired.body).toMatchObject({ code: 'PREPARED_TX_EXPIRED', retryable: false })
    expect(expired.headers.get('x-ratelimit-limit')).toBe('20')
    const status = await f.api.get(`/v1/transactions/${p.id}/status`, { token: u.accessToken })
    expect(status.body).toMatchObject({ status: 'failed', txHash: null })
    expect(status.body.failureReason).toContain('not broadcast in time')
  })
})

describe('history and the aggregated feed', () => {
  test('page pagination, filters, and one item shape for sends and simulated swaps', async () => {
    const u = await f.user(tenant)
    const w = await funded(u, '1')
    const w2 = await custodialWallet(f.api, u)
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await send(u, { walletId: w.id, chain: 'ethereum', toAddress: w2.address, amount: String(i + 1) })).body.id)
    for (const id of ids) await settled(u, id)
    const sim = await f.api.post('/v1/swap/simulate', { walletId: w2.id, fromChain: 'ethereum', toChain: 'solana', fromToken: USDC_MAINNET, toToken: 'So11111111111111111111111111111111111111112', fromAmount: '500000' }, { token: u.accessToken })
    expect(sim.status).toBe(200)
    const page1 = await f.api.get('/v1/transactions/?page=1&limit=2', { token: u.accessToken })
    expect(page1.status).toBe(200)
    expect(page1.body.pagination).toEqual({ page: 1, limit: 2, total: 4, totalPages: 2 })
    expect(page1.body.data[0]).toMatchObject({ type: 'swap', simulation: true, status: 'confirmed', walletId: w2.id })
    const page2 = await f.api.get('/v1/transactions/?page=2&limit=2', { token: u.accessToken })
    expect(page2.body.data).toHaveLength(2)
    expect((await f.api.get(`/v1/transactions/?walletId=${w.id}`, { token: u.accessToken })).body.pagination.total).toBe(3)
    expect((await f.api.get('/v1/transactions/?chain=ethereum&status=confirmed', { token: u.accessToken })).body.pagination.total).toBe(4)
    expect((await f.api.get('/v1/transactions/?status=pending', { token: u.accessToken })).body.pagination.total).toBe(0)
    expect((await f.api.get('/v1/transactions/?limit=101', { token: u.accessToken })).status).toBe(400)
    expect((await f.api.get('/v1/transactions/?status=done', { token: u.accessToken })).status).toBe(400)
    const feed = await f.api.get('/v1/transactions/aggregated/?limit=10', { token: u.accessToken })
    expect(feed.status).toBe(200)
    expect(feed.body.pagination).toEqual({ page: 1, limit: 10, total: 4, totalPages: 1 })
    expect(feed.body.data[0]).toMatchObject({ id: `tx:${sim.body.transactionId}`, kind: 'swap', direction: 'swap', status: 'confirmed', amount: '500000', counterparty: null, simulation: true })
    expect(feed.body.data[1]).toMatchObject({ id: `tx:${ids[2]}`, kind: 'send', direction: 'out', status: 'confirmed', chain: 'ethereum', isTestnet: false, amount: '3', token: { address: null, symbol: 'ETH', decimals: 18 }, counterparty: w2.address })
    const one = await f.api.get(`/v1/transactions/aggregated/tx:${ids[0]}`, { token: u.accessToken })
    expect(one.body).toEqual(feed.body.data[3])
    expect((await f.api.get(`/v1/transactions/aggregated/${ids[0]}`, { token: u.accessToken })).body.id).toBe(`tx:${ids[0]}`)
  })
})
