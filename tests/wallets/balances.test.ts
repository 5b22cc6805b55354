import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { Keypair } from '@solana/web3.js'
import { parseEther, type Address } from 'viem'
import { RateLimiter } from '@/http/rate-limit'
import { makeApp, ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startFakeSolana, type FakeSolana } from '@tests/fakes/solana-rpc'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'

const USDC_MAINNET: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const USDC_SEPOLIA: Address = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'
const USDC_BASE: Address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const USDC_SOLANA = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const USDC_DEVNET = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'
const DOWN = 'http://127.0.0.1:9'

let t: TestApp
let f: Factory
let tenant: Tenant
let node: LocalChain
let sol: FakeSolana
/** a recording proxy in front of the node: which JSON-RPC requests the adapter sent */
let proxy: { url: string; requests: Array<string | string[]>; stop(): void }
const clock = () => t.clock as ManualClock

beforeAll(async () => {
  // Chain id 1 with a Multicall3 at its canonical address: `ethereum` reads through
  // multicall; `sepolia` and `base` (expecting other chain ids) through a JSON-RPC batch.
  node = await startLocalChain({ chainId: 1 })
  await node.installMulticall3()
  for (const a of [USDC_MAINNET, USDC_SEPOLIA, USDC_BASE]) await node.placeToken(a)
  sol = startFakeSolana()
  const requests: Array<string | string[]> = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const text = await req.text()
      const body = JSON.parse(text) as { method: string } | Array<{ method: string }>
      requests.push(Array.isArray(body) ? body.map((b) => b.method) : body.method)
      return fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })
    },
  })
  proxy = { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) }
  t = await makeApp({ env: { RPC_URL_BASE: node.url, RPC_TIMEOUT_MS: '3000' } })
  f = new Factory(t)
  tenant = await f.tenant({ chains: { customTokens: { sepolia: [{ symbol: 'TUSD', name: 'Test Dollar', decimals: 6, address: node.tokenAddress }] }, rpc: { ethereum: proxy.url, sepolia: proxy.url, solana: sol.url, 'solana-devnet': sol.url, polygon: DOWN } } })
}, 30_000)
afterAll(async () => {
  await t.close()
  sol.stop()
  proxy.stop()
  await node.stop()
})
beforeEach(() => {
  t.deps.rateLimiter = new RateLimiter(t.clock)
})

async function wallet(u: SignedInUser, chain: string) {
  const res = await f.api.post('/v1/wallets/', { chain }, { token: u.accessToken })
  expect(res.status).toBe(201)
  return res.body as { id: string; address: string }
}

const balance = (u: SignedInUser, id: string) => f.api.get(`/v1/wallets/${id}/balance`, { token: u.accessToken })

describe('EVM balances on a local node', () => {
  test('reads native and token balances after real transfers (multicall path)', async () => {
    const u = await f.user(tenant)
    const w = await wallet(u, 'ethereum')
    const before = await balance(u, w.id)
    expect(before.status).toBe(200)
    expect(before.body.nativeBalance).toMatchObject({ balance: '0', rawBalance: '0', symbol: 'ETH', decimals: 18 })
    await node.sendNative(w.address as Address, parseEther('1.5'))
    await node.sendToken(w.address as Address, 12_345_678n, USDC_MAINNET)
    clock().advance(15_000)
    proxy.requests.length = 0
    const after = await balance(u, w.id)
    // one eth_call to Multicall3 for the native coin and every token
    expect(proxy.requests).toEqual(['eth_call'])
    expect(after.status).toBe(200)
    expect(after.body).toMatchObject({ walletId: w.id, address: w.address, chain: 'ethereum', isTestnet: false })
    expect(after.body.nativeBalance).toMatchObject({ balance: '1.5', rawBalance: '1500000000000000000', decimals: 18 })
    const usdc = after.body.tokens.find((x: { symbol: string }) => x.symbol === 'USDC')
    expect(usdc).toMatchObject({ balance: '12.345678', rawBalance: '12345678', decimals: 6, address: USDC_MAINNET })
    // Tokens with no contract on this node read as zero rather than failing the answer.
    expect(after.body.tokens.find((x: { symbol: string }) => x.symbol === 'USDT').rawBalance).toBe('0')
    expect(new Date(after.body.lastUpdated).getTime()).toBe(t.clock.now())
  })

  test('a testnet wallet reads its network (JSON-RPC batch path when the node reports another chain id)', async () => {
    const u = await f.user(tenant)
    const w = await wallet(u, 'sepolia')
    await node.sendNative(w.address as Address, 42n)
    await node.sendToken(w.address as Address, 7_000_000n, USDC_SEPOLIA)
    await node.sendToken(w.address as Address, 1_230_000n)
    proxy.requests.length = 0
    const res = await balance(u, w.id)
    // the chain id is asked once per RPC address, then native and tokens go in one batch
    const batches = proxy.requests.filter(Array.isArray) as string[][]
    expect(batches).toHaveLength(1)
    expect(batches[0]!.sort()).toEqual(['eth_call', 'eth_call', 'eth_call', 'eth_getBalance'])
    expect(res.status).toBe(200)
    expect(res.body.isTestnet).toBe(true)
    expect(res.body.nativeBalance.rawBalance).toBe('42')
    expect(res.body.nativeBalance.balance).toBe('0.000000000000000042')
    expect(res.body.tokens.find((x: { symbol: string }) => x.symbol === 'USDC').balance).toBe('7')
    // a token the tenant added (chains.customTokens) is read like a seeded one
    expect(res.body.tokens.find((x: { symbol: string }) => x.symbol === 'TUSD')).toMatchObject({ balance: '1.23', address: node.tokenAddress })
  })

  test('the server RPC_URL_<ID> configuration is used when the tenant names none', async () => {
    const u = await f.user(tenant)
    const w = await wallet(u, 'base')
    await node.sendToken(w.address as Address, 250_000n, USDC_BASE)
    const res = await balance(u, w.id)
    expect(res.status).toBe(200)
    expect(res.body.tokens.find((x: { symbol: string }) => x.symbol === 'USDC').balance).toBe('0.25')
  })

  test('answers are cached for 15 seconds, then read again', async () => {
    const u = await f.user(tenant)
    const w = await wallet(u, 'ethereum')
    const first = await balance(u, w.id)
    await node.sendNative(w.address as Address, 1000n)
    clock().advance(14_000)
    const cached = await balance(u, w.id)
    expect(cached.body.nativeBalance.rawBalance).toBe(first.body.nativeBalance.rawBalance)
    expect(cached.body.lastUpdated).toBe(first.body.lastUpdated)
    clock().advance(1_000)
    const fresh = await balance(u, w.id)
    expect(fresh.body.nativeBalance.rawBalance).toBe('1000')
  })

  test('a chain RPC that is down answers 503 ServiceUnavailableError, and its address is not revealed', async () => {
    const u = await f.user(tenant)
    const w = await wallet(u, 'polygon')
    const res = await balance(u, w.id)
    expect(res.status).toBe(503)
    expect(res.body).toMatchObject({ statusCode: 503, error: 'ServiceUnavailableError' })
    expect(res.text).not.toContain('127.0.0.1:9')
  })

  test('another user\'s wallet balance answers 404', async () => {
    const u = await f.user(tenant)
    const v = await f.user(tenant)
    const w = await wallet(u, 'ethereum')
    expect((await balance(v, w.id)).status).toBe(404)
  })
})

describe('Solana balances', () => {
  test('reads SOL and SPL token balances through @solana/web3.js (the SVM\'s accounts: an airdrop, a minted associated token account and a second token account of the same mint)', async () => {
    const u = await f.user(tenant)
    const w = await wallet(u, 'solana')
    sol.fund(w.address, 2_500_000_000n)
    sol.mintTo(w.address, USDC_SOLANA, 3_000_000n)
    sol.svm.setTokenAccount(w.address, USDC_SOLANA, 500_000n, Keypair.generate().publicKey.toBase58())
    const res = await balance(u, w.id)
    expect(res.status).toBe(200)
    expect(res.body.nativeBalance).toMatchObject({ symbol: 'SOL', balance: '2.5', rawBalance: '2500000000', decimals: 9 })
    expect(res.body.tokens.find((x: { symbol: string }) => x.symbol === 'USDC')).toMatchObject({ balance: '3.5', rawBalance: '3500000' })
    expect(res.body.tokens.find((x: { symbol: string }) => x.symbol === 'EURC').rawBalance).toBe('0')
    expect(sol.calls).toContain('getTokenAccountsByOwner')
  })

  test('an RPC that fails or does not answer within RPC_TIMEOUT_MS gives 503', async () => {
    const u = await f.user(tenant)
    const w = await wallet(u, 'solana-devnet')
    try {
      sol.mode = 'error'
      const failed = await balance(u, w.id)
      expect(failed.status).toBe(503)
      expect(failed.body.error).toBe('ServiceUnavailableError')
      sol.mode = 'hang'
      const started = Date.now()
      const slow = await balance(u, w.id)
      expect(slow.status).toBe(503)
      // at the 3 s limit: the node never answers in this mode
      expect(Date.now() - started).toBeLessThan(8000)
    } finally {
      sol.mode = 'ok'
    }
    expect((await balance(u, w.id)).status).toBe(200)
  })
})

describe('GET /v1/wallets/balances/aggregate', () => {
  test('sums per chain and network, totals mainnet amounts, and lists networks that are down', async () => {
    const u = await f.user(tenant)
    const e1 = await wallet(u, 'ethereum')
    const e2 = await wallet(u, 'ethereum')
    const dev = await wallet(u, 'solana-devnet')
    await wallet(u, 'polygon')
    await node.sendNative(e1.address as Address, parseEther('1'))
    await node.sendNative(e2.address as Address, parseEther('0.25'))
    await node.sendToken(e2.address as Address, 1_000_000n, USDC_MAINNET)
    sol.fund(dev.address, 1_000_000_000n)
    sol.mintTo(dev.address, USDC_DEVNET, 9_000_000n)
    const res = await f.api.get('/v1/wallets/balances/aggregate', { token: u.accessToken })
    expect(res.status).toBe(200)
    expect(res.body.walletCount).toBe(4)
    const eth = res.body.chains.find((c: { chain: string; isTestnet: boolean }) => c.chain === 'ethereum' && !c.isTestnet)
    expect(eth.walletCount).toBe(2)
    expect(eth.nativeBalance.balance).toBe('1.25')
    expect(eth.tokens.find((x: { symbol: string }) => x.symbol === 'USDC').balance).toBe('1')
    const devnet = res.body.chains.find((c: { chain: string }) => c.chain === 'solana')
    expect(devnet).toMatchObject({ isTestnet: true, nativeBalance: { balance: '1' } })
    expect(res.body.total.find((x: { symbol: string }) => x.symbol === 'ETH').balance).toBe('1.25')
    // testnet coins are not counted in the totals
    expect(res.body.total.find((x: { symbol: string }) => x.symbol === 'SOL')).toBeUndefined()
    expect(res.body.unavailable).toEqual([{ chain: 'polygon', isTestnet: false, message: expect.any(String) }])
  })

  test('answers 503 when no network can be read, and an empty result without wallets', async () => {
    const u = await f.user(tenant)
    expect((await f.api.get('/v1/wallets/balances/aggregate', { token: u.accessToken })).body).toEqual({ chains: [], total: [], unavailable: [], walletCount: 0 })
    await wallet(u, 'polygon')
    const res = await f.api.get('/v1/wallets/balances/aggregate', { token: u.accessToken })
    expect(res.status).toBe(503)
    expect(res.body.error).toBe('ServiceUnavailableError')
  })
})
