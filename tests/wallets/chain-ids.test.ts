/**
 * One network, named two ways: a wallet created with `chain: "sepolia"` is quoted, sent
 * from and listed with `chain: "sepolia"` as with its family id `ethereum`, and never with
 * another network's id. The local node reports Sepolia's chain id and has no Multicall3 at
 * its canonical address (a dev node, a new network): balances fall back to plain reads,
 * after one check for the contract per network.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseEther, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { MULTICALL3_ADDRESS, startLocalChain, type LocalChain } from '@tests/helpers/evm-node'

const SEPOLIA_CHAIN_ID = 11155111
let t: TestApp
let f: Factory
let tenant: Tenant
let node: LocalChain
/** JSON-RPC methods the adapter sent through the proxy, with eth_getCode's address */
let seen: string[]
let proxy: { url: string; stop(): void }

beforeAll(async () => {
  node = await startLocalChain({ chainId: SEPOLIA_CHAIN_ID })
  seen = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const text = await req.text()
      const body = JSON.parse(text) as { method: string; params?: unknown[] } | Array<{ method: string; params?: unknown[] }>
      for (const one of Array.isArray(body) ? body : [body]) seen.push(one.method === 'eth_getCode' ? `eth_getCode ${String(one.params?.[0]).toLowerCase()}` : one.method)
      return fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })
    },
  })
  proxy = { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
  t = await makeApp({ env: { RPC_TIMEOUT_MS: '3000' } })
  f = new Factory(t)
  tenant = await f.tenant({ chains: { rpc: { sepolia: proxy.url, ethereum: 'http://127.0.0.1:9' } } })
}, 30_000)
afterAll(async () => {
  await t.close()
  proxy.stop()
  await node.stop()
})

async function wallet(u: SignedInUser, body: Record<string, unknown>) {
  const res = await f.api.post('/v1/wallets/', body, { token: u.accessToken })
  expect(res.status).toBe(201)
  return res.body as { id: string; address: Address; chain: string; isTestnet: boolean }
}

describe('a Sepolia wallet on a node without Multicall3', () => {
  test('balances are read with plain calls; the contract is looked for once per network', async () => {
    const u = await f.user(tenant)
    const w = await wallet(u, { chain: 'sepolia' })
    expect(w).toMatchObject({ chain: 'ethereum', isTestnet: true })
    await node.sendNative(w.address, 5n * 10n ** 15n)
    seen.length = 0
    const first = await f.api.get(`/v1/wallets/${w.id}/balance`, { token: u.accessToken })
    expect(first.status).toBe(200)
    expect(first.body.nativeBalance.rawBalance).toBe('5000000000000000')
    expect(seen).toContain(`eth_getCode ${MULTICALL3_ADDRESS.toLowerCase()}`)
    const second = await wallet(u, { chain: 'ethereum', isTestnet: true })
    await node.sendNative(second.address, 7n)
    seen.length = 0
    const again = await f.api.get(`/v1/wallets/${second.id}/balance`, { token: u.accessToken })
    expect(again.status).toBe(200)
    expect(again.body.nativeBalance.rawBalance).toBe('7')
    expect(seen.filter((m) => m.startsWith('eth_getCode'))).toEqual([])
    expect(seen).toContain('eth_getBalance')
  })

  test('is quoted and sent with chain "sepolia" as with "ethereum"; a mainnet id of another chain is refused', async () => {
    const u = await f.user(tenant)
    const w = await wallet(u, { chain: 'sepolia' })
    await node.sendNative(w.address, parseEther('1'))
    const to = privateKeyToAccount(generatePrivateKey()).address
    for (const chain of ['sepolia', 'ethereum', 'SEPOLIA']) {
      const quote = await f.api.post('/v1/transactions/quote', { walletId: w.id, chain, toAddress: to, amount: '1000' }, { token: u.accessToken })
      expect(quote.status, chain).toBe(200)
      expect(quote.body).toMatchObject({ chain: 'ethereum', isTestnet: true })
    }
    for (const chain of ['polygon-amoy', 'base-sepolia', 'polygon']) {
      const wrong = await f.api.post('/v1/transactions/quote', { walletId: w.id, chain, toAddress: to, amount: '1000' }, { token: u.accessToken })
      expect(wrong.status, chain).toBe(400)
      expect(wrong.body.message).toBe(`The wallet is on sepolia, not ${chain}`)
    }
    const sent = await f.api.post('/v1/transactions/', { walletId: w.id, chain: 'sepolia', toAddress: to, amount: '1000' }, { token: u.accessToken })
    expect(sent.status).toBe(201)
    for (const chain of ['sepolia', 'ethereum']) {
      const list = await f.api.get(`/v1/transactions/?chain=${chain}`, { token: u.accessToken })
      expect(list.status).toBe(200)
      expect(list.body.data.map((x: { id: string }) => x.id), chain).toContain(sent.body.id)
    }
    expect((await f.api.get('/v1/transactions/?chain=polygon-amoy', { token: u.accessToken })).body.data).toEqual([])
  })

  test('a mainnet wallet is not quoted as a testnet one', async () => {
    const u = await f.user(tenant)
    const w = await wallet(u, { chain: 'ethereum' })
    const res = await f.api.post('/v1/transactions/quote', { walletId: w.id, chain: 'sepolia', toAddress: w.address, amount: '1' }, { token: u.accessToken })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('The wallet is on ethereum, not sepolia')
  })

  test('wallets are listed by either name', async () => {
    const u = await f.user(tenant)
    const test = await wallet(u, { chain: 'sepolia' })
    const main = await wallet(u, { chain: 'ethereum' })
    const ids = async (q: string) => (await f.api.get(`/v1/wallets/?${q}`, { token: u.accessToken })).body.data.map((x: { id: string }) => x.id).sort()
    expect(await ids('chain=sepolia')).toEqual([test.id])
    expect(await ids('chain=ethereum&isTestnet=true')).toEqual([test.id])
    expect(await ids('chain=ethereum')).toEqual([test.id, main.id].sort())
    expect(await ids('chain=sepolia&isTestnet=false')).toEqual([])
  })
})
