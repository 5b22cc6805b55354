import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser } from '@tests/helpers/factories'

let t: TestApp
let f: Factory
let user: SignedInUser

const DEFAULT_FAMILIES = ['ethereum', 'polygon', 'bsc', 'arbitrum', 'optimism', 'base', 'avalanche', 'celo', 'flowevm', 'gnosis', 'solana']
const TESTNETS = ['sepolia', 'polygon-amoy', 'bsc-testnet', 'arbitrum-sepolia', 'optimism-sepolia', 'base-sepolia', 'avalanche-fuji', 'celo-alfajores', 'flowevm-testnet', 'gnosis-chiado', 'solana-devnet']

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  user = await f.user(await f.tenant())
})
afterAll(() => t.close())

describe('GET /v1/tokens/meta/chains', () => {
  test('lists the default chains, mainnet and testnet, with chain ids and native tokens', async () => {
    const res = await f.api.get('/v1/tokens/meta/chains', { token: user.accessToken })
    expect(res.status).toBe(200)
    const ids = res.body.chains.map((c: { id: string }) => c.id)
    expect(ids.sort()).toEqual([...DEFAULT_FAMILIES, ...TESTNETS].sort())
    const eth = res.body.chains.find((c: { id: string }) => c.id === 'ethereum')
    expect(eth).toEqual({ id: 'ethereum', name: 'Ethereum', chainId: 1, family: 'ethereum', isTestnet: false, nativeToken: { symbol: 'ETH', name: 'Ether', decimals: 18 } })
    expect(res.body.chains.find((c: { id: string }) => c.id === 'sepolia')).toMatchObject({ chainId: 11155111, family: 'ethereum', isTestnet: true })
    expect(res.body.chains.find((c: { id: string }) => c.id === 'solana')).toMatchObject({ chainId: null, nativeToken: { symbol: 'SOL', decimals: 9 } })
    const mainnets = await f.api.get('/v1/tokens/meta/chains?isTestnet=false', { token: user.accessToken })
    expect(mainnets.body.chains.map((c: { id: string }) => c.id).sort()).toEqual([...DEFAULT_FAMILIES].sort())
  })

  test('only chains enabled for the tenant that have an active token are listed', async () => {
    const tenant = await f.tenant({ chains: { enabled: ['ethereum', 'polygon', 'solana'], tokens: { polygon: [], sepolia: ['nothing-here'] } } })
    const u = await f.user(tenant)
    const res = await f.api.get('/v1/tokens/meta/chains', { token: u.accessToken })
    expect(res.body.chains.map((c: { id: string }) => c.id).sort()).toEqual(['ethereum', 'solana', 'solana-devnet'])
  })

  test('requires a bearer token', async () => {
    expect((await f.api.get('/v1/tokens/meta/chains')).status).toBe(401)
  })
})

describe('GET /v1/tokens/ and /v1/tokens/chain/{chain}', () => {
  test('seeded tokens: native coin and stablecoins with decimals on every chain', async () => {
    const res = await f.api.get('/v1/tokens/?isTestnet=false', { token: user.accessToken })
    expect(res.status).toBe(200)
    for (const chain of DEFAULT_FAMILIES) {
      const tokens = res.body.tokens.filter((x: { chain: string }) => x.chain === chain)
      expect(tokens.filter((x: { isNative: boolean }) => x.isNative)).toHaveLength(1)
      expect(tokens.some((x: { symbol: string }) => /USD/.test(x.symbol))).toBe(true)
    }
    const usdc = res.body.tokens.find((x: { chain: string; symbol: string }) => x.chain === 'ethereum' && x.symbol === 'USDC')
    expect(usdc).toEqual({ chain: 'ethereum', network: 'ethereum', isTestnet: false, symbol: 'USDC', name: 'USD Coin', decimals: 6, address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', isNative: false })
    expect(res.body.tokens.find((x: { chain: string; symbol: string }) => x.chain === 'bsc' && x.symbol === 'USDT').decimals).toBe(18)
    expect(res.body.tokens.some((x: { symbol: string }) => x.symbol === 'EURC')).toBe(true)
  })

  test('one chain by family id or registry id; unknown or disabled chains answer 404', async () => {
    const main = await f.api.get('/v1/tokens/chain/solana', { token: user.accessToken })
    expect(main.status).toBe(200)
    expect(main.body).toMatchObject({ chain: 'solana', network: 'solana', isTestnet: false })
    expect(main.body.tokens.map((x: { symbol: string }) => x.symbol)).toEqual(['SOL', 'USDC', 'USDT', 'EURC'])
    const dev = await f.api.get('/v1/tokens/chain/solana-devnet', { token: user.accessToken })
    expect(dev.body).toMatchObject({ chain: 'solana', network: 'solana-devnet', isTestnet: true })
    const viaFlag = await f.api.get('/v1/tokens/chain/ethereum?isTestnet=true', { token: user.accessToken })
    expect(viaFlag.body.network).toBe('sepolia')
    // gnosis's testnet: Monerium's Chiado EURe, and the devnet's test USDC (Circle issues none on Chiado; docs/sandbox.md)
    const chiado = await f.api.get('/v1/tokens/chain/gnosis-chiado', { token: user.accessToken })
    expect(chiado.body).toMatchObject({ chain: 'gnosis', network: 'gnosis-chiado', isTestnet: true })
    expect(chiado.body.tokens.map((x: { symbol: string; address: string | null }) => [x.symbol, x.address])).toEqual([
      ['xDAI', null], ['USDC', '0xDDAfbb505ad214D7b80b1f830fcCc89B60fb7A83'], ['EURe', '0xb106ed7587365a16b6691a3D4B2A734f4E8268a2'],
    ])
    expect((await f.api.get('/v1/tokens/chain/dogecoin', { token: user.accessToken })).status).toBe(404)
    const narrow = await f.user(await f.tenant({ chains: { enabled: ['solana'] } }))
    expect((await f.api.get('/v1/tokens/chain/ethereum', { token: narrow.accessToken })).status).toBe(404)
  })

  test('a tenant token list keeps only the listed symbols or addresses', async () => {
    const tenant = await f.tenant({ chains: { tokens: { ethereum: ['eth', '0xdac17f958d2ee523a2206206994597c13d831ec7'] } } })
    const u = await f.user(tenant)
    const res = await f.api.get('/v1/tokens/chain/ethereum', { token: u.accessToken })
    expect(res.body.tokens.map((x: { symbol: string }) => x.symbol)).toEqual(['ETH', 'USDT'])
  })

  test('platform admins see the server defaults', async () => {
    const res = await f.api.get('/v1/tokens/meta/chains', { token: await f.adminToken() })
    expect(res.status).toBe(200)
    expect(res.body.chains).toHaveLength(22)
  })

  test('a tenant adds its own tokens to a network with chains.customTokens; null removes them', async () => {
    const tenant = await f.tenant()
    const u = await f.user(tenant)
    const admin = await f.adminToken()
    const token = { symbol: 'ACME', name: 'Acme Dollar', decimals: 2, address: '0x1111111111111111111111111111111111111111' }
    const patched = await f.api.patch(`/v1/admin/tenants/${tenant.id}`, { chains: { customTokens: { sepolia: [token] } } }, { token: admin })
    expect(patched.status).toBe(200)
    expect(patched.body.settings.chains.customTokens).toEqual({ sepolia: [token] })
    const res = await f.api.get('/v1/tokens/chain/sepolia', { token: u.accessToken })
    expect(res.body.tokens.find((x: { symbol: string }) => x.symbol === 'ACME')).toMatchObject({ decimals: 2, address: token.address, network: 'sepolia', isNative: false })
    expect((await f.api.get('/v1/tokens/chain/ethereum', { token: u.accessToken })).body.tokens.some((x: { symbol: string }) => x.symbol === 'ACME')).toBe(false)
    const bad = await f.api.patch(`/v1/admin/tenants/${tenant.id}`, { chains: { customTokens: { sepolia: [{ ...token, address: 'nope' }] } } }, { token: admin })
    expect(bad.status).toBe(400)
    await f.api.patch(`/v1/admin/tenants/${tenant.id}`, { chains: { customTokens: { sepolia: null } } }, { token: admin })
    expect((await f.api.get('/v1/tokens/chain/sepolia', { token: u.accessToken })).body.tokens.some((x: { symbol: string }) => x.symbol === 'ACME')).toBe(false)
  })
})
