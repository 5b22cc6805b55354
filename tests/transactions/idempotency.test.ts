/** `Idempotency-Key` on `POST /v1/transactions/`: a repeat with the key sends nothing again; without it, it sends again. */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { systemClock } from '@/lib/clock'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startLocalChain, type LocalChain } from '@tests/wallets/ganache'
import { custodialWallet, reader } from './helpers'

let node: LocalChain
let t: TestApp
let f: Factory
let tenant: Tenant
let chain: ReturnType<typeof reader>

beforeAll(async () => {
  node = await startLocalChain({ chainId: 1 })
  chain = reader(node.url)
  t = await makeApp({ clock: systemClock, env: { RPC_TIMEOUT_MS: '3000' } })
  f = new Factory(t)
  tenant = await f.tenant({ chains: { rpc: { ethereum: node.url } } })
}, 30_000)
afterAll(async () => {
  await t.close()
  await node.stop()
})

async function funded(u: SignedInUser) {
  const w = await custodialWallet(f.api, u)
  await node.sendNative(w.address, parseEther('1'))
  return w
}

test('the same key and body answers the first send again; the chain sees one transfer; without the key a repeat sends again', async () => {
  const u = await f.user(tenant)
  const w = await funded(u)
  const to = privateKeyToAccount(generatePrivateKey()).address
  const body = { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '1000' }
  const key = crypto.randomUUID()
  const first = await f.api.post('/v1/transactions/', body, { token: u.accessToken, headers: { 'idempotency-key': key } })
  expect(first.status).toBe(201)
  expect(first.headers.get('idempotency-replayed')).toBe('false')
  const again = await f.api.post('/v1/transactions/', { amount: '1000', toAddress: to, chain: 'ethereum', walletId: w.id }, { token: u.accessToken, headers: { 'idempotency-key': key } })
  expect(again.status).toBe(201)
  expect(again.body).toEqual(first.body)
  expect(again.headers.get('idempotency-replayed')).toBe('true')
  const other = await f.api.post('/v1/transactions/', { ...body, amount: '2000' }, { token: u.accessToken, headers: { 'idempotency-key': key } })
  expect(other.status).toBe(409)
  expect(other.body.details).toEqual({ code: 'IDEMPOTENCY_KEY_REUSED' })
  const list = await f.api.get('/v1/transactions/', { token: u.accessToken })
  expect(list.body.pagination.total).toBe(1)
  // ganache mines each submission at once: one transfer so far
  expect(await chain.balance(to)).toBe(1000n)
  // without the header a repeat sends again, as the spec says
  const plain = await f.api.post('/v1/transactions/', body, { token: u.accessToken })
  expect(plain.status).toBe(201)
  expect(plain.headers.get('idempotency-replayed')).toBe('false')
  expect(plain.body.id).not.toBe(first.body.id)
  expect((await f.api.get('/v1/transactions/', { token: u.accessToken })).body.pagination.total).toBe(2)
  expect(await chain.balance(to)).toBe(2000n)
})

test('an invalid key: 400 IDEMPOTENCY_KEY_INVALID and nothing is sent', async () => {
  const u = await f.user(tenant)
  const w = await funded(u)
  const res = await f.api.post('/v1/transactions/', { walletId: w.id, chain: 'ethereum', toAddress: w.address, amount: '1' }, { token: u.accessToken, headers: { 'idempotency-key': 'no spaces allowed' } })
  expect(res.status).toBe(400)
  expect(res.body.details).toEqual({ code: 'IDEMPOTENCY_KEY_INVALID' })
  expect((await f.api.get('/v1/transactions/', { token: u.accessToken })).body.pagination.total).toBe(0)
})
