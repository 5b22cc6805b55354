/**
 * Gasless swaps end to end over HTTP on the devnet's gnosis-chiado node with the embedded sandbox
 * aggregator (docs/swaps.md "Gasless swaps"): EURe to xDAI from wallets holding no xDAI, the
 * permit signed by the custodial key (execute-gasless) or by the client with viem
 * (sign-permit, broadcast-gasless), the relayer paying the gas and repaid in EURe; the quote's
 * `gasless` block only under its conditions and never when disabled; a relayer low on gas
 * (503 and the operator metric, nothing sent); other users' and tenants' quotes (404); the
 * broadcast's rate limit.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { DEVNET_CHIADO_EURE, DEVNET_CHIADO_USDC, DEVNET_KEYS, DEVNET_SWAP_ROUTER, giveChiadoGas, type Devnet } from '../../scripts/devnet/chain'
import { gnosisClients, NATIVE } from '../devnet/gnosis'
import { systemClock } from '@/lib/clock'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { rpcProxy, waitFor } from '@tests/transactions/helpers'
import { auth, clientGnosis, custodialGnosis, EURE, gaslessBody, mintTo, quoteOf, swapWorld, typedDataOf, type SwapWorld } from './world'

const dir = mkdtempSync(join(tmpdir(), 'slipway-swaps-gasless-'))
const RELAYER = privateKeyToAccount(DEVNET_KEYS.relayer).address
let devnet: Devnet
let t: TestApp
let server: HttpServer
let api: Api
let f: Factory
let tenant: Tenant
let other: Tenant
let chain: ReturnType<typeof gnosisClients>

let world: SwapWorld

beforeAll(async () => {
  world = await swapWorld(dir)
  ;({ devnet, t, server, api, f, tenant, other, chain } = world)
}, 60_000)
afterAll(() => world.stop())

const mint = (token: Address, to: Address, amount: bigint) => mintTo(chain, token, to, amount)
const quote = (u: SignedInUser, body: Record<string, unknown>, api_ = api) => quoteOf(api_, u, body)
const confirmed = (u: SignedInUser, id: string) =>
  waitFor(() => api.get(`/v1/transactions/${id}/status`, auth(u)), (r) => r.body.status === 'confirmed' || r.body.status === 'failed')
const custodial = (u: SignedInUser, eure: bigint) => custodialGnosis(world, u, eure)
const clientWallet = (u: SignedInUser, account: PrivateKeyAccount) => clientGnosis(api, u, account)

describe('the quote\'s gasless block', () => {
  test('EURe to the zero address on gnosis: present with the permit domain and the token\'s nonce; other pairs: absent', async () => {
    const u = await f.user(tenant)
    const w = await custodial(u, 20n * EURE)
    const q = await quote(u, gaslessBody(w.id))
    expect(q.gasless).toMatchObject({
      supported: true, permitRequired: true, currentNonce: 0,
      permitDomain: { name: 'Monerium EURe', version: '2', chainId: 10200, verifyingContract: DEVNET_CHIADO_EURE },
    })
    expect(BigInt(q.gasless.estimatedGasCost)).toBeGreaterThan(0n)
    expect(Number(q.gasless.estimatedGasCostXDAI)).toBeGreaterThan(0)
    // not a euro stablecoin, or not to the native coin
    expect((await quote(u, gaslessBody(w.id, 10_000_000n, DEVNET_CHIADO_USDC))).gasless).toBeUndefined()
    expect((await quote(u, gaslessBody(w.id, EURE, DEVNET_CHIADO_EURE, DEVNET_CHIADO_USDC))).gasless).toBeUndefined()
  })

  test('a deployment without gasless swaps: no block, and the gasless routes answer 400 SWAP_GASLESS_DISABLED', async () => {
    const off = await makeApp({ clock: systemClock, env: { ...devnet.env, SWAP_GASLESS_ENABLED: 'false', RPC_TIMEOUT_MS: '3000' } })
    const offServer = serve(off)
    try {
      const offApi = new Api(offServer.url)
      const offF = new Factory(off, offApi)
      const u = await offF.user(await offF.tenant())
      const res = await offApi.post('/v1/wallets/', { chain: 'gnosis', isTestnet: true }, auth(u))
      const q = await quote(u, gaslessBody(res.body.id), offApi)
      expect(q.gasless).toBeUndefined()
      for (const route of ['sign-permit', 'execute-gasless']) {
        const r = await offApi.post(`/v1/swap/${route}`, { quoteId: q.quoteId }, auth(u))
        expect(r.status).toBe(400)
        expect(r.body.code).toBe('SWAP_GASLESS_DISABLED')
      }
    } finally {
      await offServer.stop()
      await off.close()
    }
  }, 30_000)
})

describe('gasless swaps', () => {
  test('a custodial wallet holding EURe and no xDAI swaps gaslessly and ends holding xDAI; the relayer is repaid in EURe; history shows the swap', async () => {
    const u = await f.user(tenant)
    const w = await custodial(u, 20n * EURE)
    expect(await chain.balance(NATIVE, w.address)).toBe(0n)
    const relayerEure = await chain.balance(DEVNET_CHIADO_EURE, RELAYER)
    const q = await quote(u, gaslessBody(w.id))
    const permit = await api.post('/v1/swap/sign-permit', { quoteId: q.quoteId }, auth(u))
    expect(permit.status).toBe(200)
    expect(permit.body).toMatchObject({
      quoteId: q.quoteId, walletId: w.id, owner: w.address, spender: DEVNET_SWAP_ROUTER, value: (10n * EURE).toString(), nonce: 0,
      typedData: { primaryType: 'Permit', domain: { name: 'Monerium EURe', version: '2', chainId: 10200, verifyingContract: DEVNET_CHIADO_EURE }, message: { owner: w.address, spender: DEVNET_SWAP_ROUTER, nonce: '0' } },
    })

    const executed = await api.post('/v1/swap/execute-gasless', { quoteId: q.quoteId }, auth(u))
    expect(executed.status).toBe(201)
    expect(executed.body).toMatchObject({ type: 'swap', gasless: true, status: 'pending', relayer: RELAYER, quoteId: q.quoteId, requiresClientSigning: false })
    const status = await confirmed(u, executed.body.id)
    expect(status.body.status).toBe('confirmed')

    const fee = BigInt(executed.body.relayerFee)
    expect(fee).toBeGreaterThan(0n)
    const xdai = await chain.balance(NATIVE, w.address)
    expect(xdai).toBeGreaterThanOrEqual(BigInt(executed.body.minAmountOut))
    expect(xdai).toBeGreaterThan(10n * EURE) // EURe is worth more than xDAI in the sandbox market
    expect(await chain.balance(DEVNET_CHIADO_EURE, w.address)).toBe(10n * EURE)
    expect(await chain.balance(DEVNET_CHIADO_EURE, RELAYER)).toBe(relayerEure + fee)

    const history = await api.get(`/v1/transactions/?walletId=${w.id}`, auth(u))
    expect(history.status).toBe(200)
    const row = history.body.data.find((r: { id: string }) => r.id === executed.body.id)
    expect(row).toMatchObject({ type: 'swap', status: 'confirmed' })

    // the permit's nonce moved on: the next quote says so
    expect((await quote(u, gaslessBody(w.id))).gasless.currentNonce).toBe(1)
  }, 60_000)

  test('a client wallet signs the permit with viem and broadcast-gasless relays it; a signature of another key is refused', async () => {
    const u = await f.user(tenant)
    const account = privateKeyToAccount(generatePrivateKey())
    const w = await clientWallet(u, account)
    await mint(DEVNET_CHIADO_EURE, w.address, 5n * EURE)
    const q = await quote(u, gaslessBody(w.id, 5n * EURE))
    expect(q.gasless.currentNonce).toBe(0)

    // execute-gasless is for custodial wallets
    const custodialOnly = await api.post('/v1/swap/execute-gasless', { quoteId: q.quoteId }, auth(u))
    expect(custodialOnly.status).toBe(400)
    expect(custodialOnly.body.code).toBe('SWAP_GASLESS_CLIENT_SIGNS')

    const permit = await api.post('/v1/swap/sign-permit', { quoteId: q.quoteId }, auth(u))
    expect(permit.status).toBe(200)
    const typed = typedDataOf(permit.body)

    const stranger = privateKeyToAccount(generatePrivateKey())
    const wrong = await api.post('/v1/swap/broadcast-gasless', { quoteId: q.quoteId, signature: await stranger.signTypedData(typed) }, auth(u))
    expect(wrong.status).toBe(400)
    expect(wrong.body.code).toBe('SWAP_PERMIT_SIGNATURE_INVALID')
    const garbage = await api.post('/v1/swap/broadcast-gasless', { quoteId: q.quoteId, signature: '0x1234' }, auth(u))
    expect(garbage.status).toBe(400)

    const signature = await account.signTypedData(typed)
    const sent = await api.post('/v1/swap/broadcast-gasless', { quoteId: q.quoteId, signature }, auth(u))
    expect(sent.status).toBe(201)
    expect(sent.body).toMatchObject({ type: 'swap', gasless: true, status: 'pending', relayer: RELAYER })
    expect((await confirmed(u, sent.body.id)).body.status).toBe('confirmed')
    expect(await chain.balance(NATIVE, w.address)).toBeGreaterThanOrEqual(BigInt(sent.body.minAmountOut))
    expect(await chain.balance(DEVNET_CHIADO_EURE, w.address)).toBe(0n)
  }, 60_000)

  test('a relayer low on gas: 503 SWAP_RELAYER_LOW_GAS and the operator metric, nothing sent', async () => {
    const u = await f.user(tenant)
    const w = await custodial(u, 3n * EURE)
    const q = await quote(u, gaslessBody(w.id, 2n * EURE))
    const held = await chain.balance(NATIVE, RELAYER)
    const nonce = await chain.pub.getTransactionCount({ address: RELAYER })
    await giveChiadoGas(devnet.chiadoUrl, RELAYER, 1000n)
    try {
      const res = await api.post('/v1/swap/execute-gasless', { quoteId: q.quoteId }, auth(u))
      expect(res.status).toBe(503)
      expect(res.body.code).toBe('SWAP_RELAYER_LOW_GAS')
      expect(await t.deps.metrics.render()).toContain('slipway_swap_relayer_low_gas_total{network="gnosis-chiado"} 1')
      expect(await chain.pub.getTransactionCount({ address: RELAYER })).toBe(nonce)
      expect(await chain.balance(DEVNET_CHIADO_EURE, w.address)).toBe(3n * EURE)
      const history = await api.get(`/v1/transactions/?walletId=${w.id}`, auth(u))
      expect(history.body.data).toHaveLength(0)
    } finally {
      await giveChiadoGas(devnet.chiadoUrl, RELAYER, held)
    }
    // with gas again, the same quote goes through
    const again = await api.post('/v1/swap/execute-gasless', { quoteId: q.quoteId }, auth(u))
    expect(again.status).toBe(201)
    expect((await confirmed(u, again.body.id)).body.status).toBe('confirmed')
  }, 60_000)
})

describe('the relayer\'s nonce lane', () => {
  test('gasless swaps of users of two tenants at once: one relayer nonce each, consecutive, all confirmed', async () => {
    const users = [await f.user(tenant), await f.user(other), await f.user(tenant), await f.user(other)]
    // one by one: the test's account mints, one nonce at a time
    const wallets: Array<{ id: string; address: Address }> = []
    for (const u of users) wallets.push(await custodial(u, 2n * EURE))
    const quotes = await Promise.all(users.map((u, i) => quote(u, gaslessBody(wallets[i]!.id, EURE))))
    const first = await chain.pub.getTransactionCount({ address: RELAYER })
    const sent = await Promise.all(users.map((u, i) => api.post('/v1/swap/execute-gasless', { quoteId: quotes[i].quoteId }, auth(u))))
    expect(sent.map((r) => r.status)).toEqual([201, 201, 201, 201])
    expect(sent.map((r) => r.body.nonce as number).sort((a, b) => a - b)).toEqual([first, first + 1, first + 2, first + 3])
    for (const [i, r] of sent.entries()) expect((await confirmed(users[i]!, r.body.id)).body.status).toBe('confirmed')
    for (const w of wallets) expect(await chain.balance(NATIVE, w.address)).toBeGreaterThan(0n)
  }, 60_000)

  test('execute-gasless with the same Idempotency-Key 5 times at once: one swap', async () => {
    const u = await f.user(tenant)
    const w = await custodial(u, 2n * EURE)
    const q = await quote(u, gaslessBody(w.id, EURE))
    const before = await chain.pub.getTransactionCount({ address: RELAYER })
    const key = crypto.randomUUID()
    const answers = await Promise.all(Array.from({ length: 5 }, () => api.post('/v1/swap/execute-gasless', { quoteId: q.quoteId }, auth(u, { 'idempotency-key': key }))))
    const created = answers.filter((r) => r.status === 201)
    expect(created.length).toBeGreaterThanOrEqual(1)
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1)
    for (const r of answers.filter((x) => x.status !== 201)) expect(r.status).toBe(409)
    expect((await confirmed(u, created[0]!.body.id)).body.status).toBe('confirmed')
    expect(await chain.pub.getTransactionCount({ address: RELAYER })).toBe(before + 1)
    expect(await chain.balance(DEVNET_CHIADO_EURE, w.address)).toBe(EURE)
    const history = await api.get(`/v1/transactions/?walletId=${w.id}`, auth(u))
    expect(history.body.data).toHaveLength(1)
  }, 60_000)
})

describe('a relayed send the node drops', () => {
  test('failed by the status job, its nonce goes back to the relayer\'s counter: the next gasless swap takes it and confirms', async () => {
    const proxy = rpcProxy(devnet.chiadoUrl)
    const app = await makeApp({ clock: systemClock, env: { ...devnet.env, RPC_URL_GNOSIS_CHIADO: proxy.url, TX_DROP_AFTER_MS: '1000', TX_MAX_RESENDS: '0', RPC_TIMEOUT_MS: '3000' } })
    const s = serve(app)
    try {
      const a = new Api(s.url)
      const af = new Factory(app, a)
      const u = await af.user(await af.tenant())
      const created = await a.post('/v1/wallets/', { chain: 'gnosis', isTestnet: true }, auth(u))
      const w = created.body as { id: string; address: Address }
      await mint(DEVNET_CHIADO_EURE, w.address, 3n * EURE)
      const q1 = await quote(u, gaslessBody(w.id, EURE), a)
      const chainNonce = await chain.pub.getTransactionCount({ address: RELAYER })
      // the node answers the submission and keeps nothing: a dropped transaction
      proxy.state.onSend = () => 'swallow'
      const dropped = await a.post('/v1/swap/execute-gasless', { quoteId: q1.quoteId }, auth(u))
      expect(dropped.status).toBe(201)
      expect(dropped.body.nonce).toBe(chainNonce)
      const failed = await waitFor(() => a.get(`/v1/transactions/${dropped.body.id}/status`, auth(u)), (r) => r.body.status !== 'pending')
      expect(failed.body.status).toBe('failed')
      expect(failed.body.failureReason).toContain('dropped')
      proxy.state.onSend = () => 'forward'
      const q2 = await quote(u, gaslessBody(w.id, EURE), a)
      const sent = await a.post('/v1/swap/execute-gasless', { quoteId: q2.quoteId }, auth(u))
      expect(sent.status).toBe(201)
      expect(sent.body.nonce).toBe(chainNonce)
      const done = await waitFor(() => a.get(`/v1/transactions/${sent.body.id}/status`, auth(u)), (r) => r.body.status !== 'pending')
      expect(done.body.status).toBe('confirmed')
      expect(await chain.balance(DEVNET_CHIADO_EURE, w.address)).toBe(2n * EURE)
    } finally {
      await s.stop()
      await app.close()
      proxy.stop()
    }
  }, 60_000)
})

describe('guards', () => {
  test('another user\'s and another tenant\'s quote: 404 on every gasless route', async () => {
    const owner = await f.user(tenant)
    const w = await custodial(owner, 2n * EURE)
    const q = await quote(owner, gaslessBody(w.id, EURE))
    for (const intruder of [await f.user(tenant), await f.user(other)]) {
      for (const [route, body] of [['sign-permit', { quoteId: q.quoteId }], ['execute-gasless', { quoteId: q.quoteId }], ['broadcast-gasless', { quoteId: q.quoteId, signature: `0x${'11'.repeat(65)}` }]] as const) {
        const res = await api.post(`/v1/swap/${route}`, body, auth(intruder, { 'x-forwarded-for': '10.9.0.1' }))
        expect(res.status).toBe(404)
        expect(res.body.code).toBe('SWAP_QUOTE_NOT_FOUND')
      }
    }
    expect(await chain.balance(DEVNET_CHIADO_EURE, w.address)).toBe(2n * EURE)
  })

  test('a relay whose simulation fails (the wallet holds less EURe than the quote): 400 SWAP_GASLESS_SIMULATION_FAILED, no gas spent, nothing recorded; the claim is released, so the same quote goes through once the wallet holds enough', async () => {
    const u = await f.user(tenant)
    const w = await custodial(u, EURE)
    const q = await quote(u, gaslessBody(w.id, 2n * EURE))
    const before = await chain.pub.getTransactionCount({ address: RELAYER })
    const gas = await chain.balance(NATIVE, RELAYER)
    // twice: the first refusal released its claim, so the second is simulated again (not a 409)
    for (let i = 0; i < 2; i++) {
      const res = await api.post('/v1/swap/execute-gasless', { quoteId: q.quoteId }, auth(u))
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('SWAP_GASLESS_SIMULATION_FAILED')
      expect(res.body.message).toStartWith('The swap would fail on chain, so nothing was sent')
    }
    expect(await chain.pub.getTransactionCount({ address: RELAYER })).toBe(before)
    expect(await chain.balance(NATIVE, RELAYER)).toBe(gas)
    expect((await api.get(`/v1/transactions/?walletId=${w.id}`, auth(u))).body.data).toHaveLength(0)
    await mint(DEVNET_CHIADO_EURE, w.address, EURE)
    const sent = await api.post('/v1/swap/execute-gasless', { quoteId: q.quoteId }, auth(u))
    expect(sent.status).toBe(201)
    expect((await confirmed(u, sent.body.id)).body.status).toBe('confirmed')
  })

  test('a quote that is not gasless-eligible: 400 SWAP_GASLESS_NOT_ELIGIBLE', async () => {
    const u = await f.user(tenant)
    const w = await custodial(u, 0n)
    await mint(DEVNET_CHIADO_USDC, w.address, 10_000_000n)
    const q = await quote(u, gaslessBody(w.id, 10_000_000n, DEVNET_CHIADO_USDC))
    const res = await api.post('/v1/swap/sign-permit', { quoteId: q.quoteId }, auth(u))
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('SWAP_GASLESS_NOT_ELIGIBLE')
  })

  test('broadcast-gasless: 10 per 10 seconds per IP', async () => {
    const u = await f.user(tenant)
    const statuses: number[] = []
    for (let i = 0; i < 11; i++) {
      const res = await api.post('/v1/swap/broadcast-gasless', { quoteId: 'nope', signature: '0x00' }, auth(u, { 'x-forwarded-for': '10.9.0.2' }))
      statuses.push(res.status)
    }
    expect(statuses.slice(0, 10).every((s) => s !== 429)).toBe(true)
    expect(statuses[10]).toBe(429)
  })
})


describe('configuration', () => {
  test('enabled without a relayer key stops start-up naming it; a malformed key is never printed', async () => {
    const { loadConfig, ConfigError } = await import('@/config')
    const base = { ...devnet.env, JWT_SECRET: 'x'.repeat(32) }
    const missing = (() => { try { loadConfig({ ...base, SWAP_GASLESS_RELAYER_PRIVATE_KEY: '' }) } catch (err) { return err } })()
    expect(missing).toBeInstanceOf(ConfigError)
    expect(String((missing as Error).message)).toContain('SWAP_GASLESS_ENABLED=true needs SWAP_GASLESS_RELAYER_PRIVATE_KEY')
    const bad = `0x${'ab'.repeat(31)}zz`
    const malformed = (() => { try { loadConfig({ ...base, SWAP_GASLESS_RELAYER_PRIVATE_KEY: bad }) } catch (err) { return err } })()
    expect(malformed).toBeInstanceOf(ConfigError)
    expect(String((malformed as Error).message)).toContain('SWAP_GASLESS_RELAYER_PRIVATE_KEY')
    expect(String((malformed as Error).message)).not.toContain(bad)
    expect(loadConfig({ ...base, SWAP_GASLESS_ENABLED: 'false' }).swapGaslessEnabled).toBe(false)
  })
})
