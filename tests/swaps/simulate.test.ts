import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'

let t: TestApp
let f: Factory
let tenant: Tenant

// No RPC is configured anywhere reachable: a chain call would fail the request.
beforeAll(async () => {
  t = await makeApp({ env: { RPC_URL_ETHEREUM: 'http://127.0.0.1:9', RPC_URL_SOLANA: 'http://127.0.0.1:9' } })
  f = new Factory(t)
  tenant = await f.tenant({ chains: { rpc: { ethereum: 'http://127.0.0.1:9', 'solana-devnet': 'http://127.0.0.1:9' } } })
})
afterAll(() => t.close())

async function wallet(u: SignedInUser, chain = 'ethereum') {
  const res = await f.api.post('/v1/wallets/', { chain }, { token: u.accessToken })
  expect(res.status).toBe(201)
  return res.body as { id: string; address: string }
}

const EURC = '0x1aBaEA1f7C830bD89Acc67eC4af516284b1bC33c'
const SOL = 'So11111111111111111111111111111111111111112'
const simulate = (u: SignedInUser, body: Record<string, unknown>) => f.api.post('/v1/swap/simulate', body, { token: u.accessToken })

describe('POST /v1/swap/simulate', () => {
  test('answers a confirmed simulated swap and writes it to the history without any chain call', async () => {
    const u = await f.user(tenant)
    const w = await wallet(u)
    const res = await simulate(u, { walletId: w.id, fromChain: 'ethereum', toChain: 'solana', fromToken: EURC, toToken: SOL, fromAmount: '1000000' })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ status: 'confirmed', fromAmount: '1000000', toAmount: '1000000', simulation: true })
    expect(res.body.quoteId).toMatch(/^sim_/)
    expect(res.body.txHash).toMatch(/^SIMULATED/)
    const tx = await f.api.get(`/v1/transactions/${res.body.transactionId}`, { token: u.accessToken })
    expect(tx.status).toBe(200)
    expect(tx.body).toMatchObject({
      type: 'swap', chain: 'ethereum', isTestnet: false, status: 'confirmed', simulation: true, amount: '1000000', txHash: res.body.txHash, quoteId: res.body.quoteId,
      token: { address: EURC, symbol: 'EURC_TEST', decimals: 6 }, metadata: { toToken: SOL, toAmount: '1000000', toTokenSymbol: 'SOL', toTokenDecimals: 9 },
    })
    // The status endpoint has nothing to read on a chain for a simulation.
    const status = await f.api.get(`/v1/transactions/${res.body.transactionId}/status`, { token: u.accessToken })
    expect(status.body).toMatchObject({ status: 'confirmed', txHash: res.body.txHash })
    const feed = await f.api.get('/v1/transactions/aggregated/', { token: u.accessToken })
    expect(feed.body.data).toHaveLength(1)
    expect(feed.body.data[0]).toMatchObject({ kind: 'swap', direction: 'swap', simulation: true, amount: '1000000' })
  })

  test('optional fields are stored: testnet flag, symbols and decimals', async () => {
    const u = await f.user(tenant)
    const w = await wallet(u)
    const res = await simulate(u, { walletId: w.id, fromChain: 'ethereum', toChain: 'ethereum', fromToken: EURC, toToken: SOL, fromAmount: '5', isTestnet: true, fromTokenSymbol: 'EURC', fromTokenDecimals: 6, toTokenSymbol: 'ETH', toTokenDecimals: 18 })
    expect(res.status).toBe(200)
    const tx = await f.api.get(`/v1/transactions/${res.body.transactionId}`, { token: u.accessToken })
    expect(tx.body).toMatchObject({ isTestnet: true, token: { symbol: 'EURC', decimals: 6 }, metadata: { toTokenSymbol: 'ETH', toTokenDecimals: 18 } })
  })

  test('a testnet\'s registry id (sepolia) as fromChain is that testnet without isTestnet, as on every route that takes a chain', async () => {
    const u = await f.user(tenant)
    const w = await wallet(u)
    const res = await simulate(u, { walletId: w.id, fromChain: 'sepolia', toChain: 'ethereum', fromToken: EURC, toToken: SOL, fromAmount: '5' })
    expect(res.status).toBe(200)
    const tx = await f.api.get(`/v1/transactions/${res.body.transactionId}`, { token: u.accessToken })
    expect(tx.body).toMatchObject({ isTestnet: true })
  })

  test('bad inputs answer 400 and write nothing', async () => {
    const u = await f.user(tenant)
    const w = await wallet(u)
    const base = { walletId: w.id, fromChain: 'ethereum', toChain: 'solana', fromToken: EURC, toToken: SOL, fromAmount: '1' }
    for (const body of [{ ...base, fromAmount: '1.5' }, { ...base, fromAmount: 1 }, { ...base, toChain: undefined }, { ...base, walletId: 'nope' }, { ...base, fromTokenDecimals: 'six' }]) {
      const res = await simulate(u, body)
      expect(res.status).toBe(400)
      expect(res.body.message).toBe('Request validation failed')
    }
    expect((await f.api.get('/v1/transactions/', { token: u.accessToken })).body.pagination.total).toBe(0)
  })

  test('another user\'s or another tenant\'s wallet answers 404 Wallet not found; no token answers 401', async () => {
    const owner = await f.user(tenant)
    const w = await wallet(owner)
    const other = await f.tenant()
    for (const x of [await f.user(tenant), await f.user(other)]) {
      const res = await simulate(x, { walletId: w.id, fromChain: 'ethereum', toChain: 'solana', fromToken: EURC, toToken: SOL, fromAmount: '1' })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ statusCode: 404, error: 'NotFoundError', message: 'Wallet not found' })
    }
    expect((await f.api.post('/v1/swap/simulate', { walletId: w.id, fromChain: 'ethereum', toChain: 'solana', fromToken: EURC, toToken: SOL, fromAmount: '1' })).status).toBe(401)
  })
})
