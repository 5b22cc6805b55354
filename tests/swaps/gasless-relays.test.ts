/**
 * The relayer's bounds (docs/swaps.md "The relayer's bounds") over HTTP on the devnet's gnosis
 * node: copies of one gasless swap sent at once are relayed once (one quote, one permit, or one
 * permit nonce under two quotes), the relayer spending one relay's gas and the copies answering
 * 409 SWAP_GASLESS_ALREADY_RELAYED; the daily budgets per user and per tenant refuse with 429
 * before any gas is spent, and another tenant is still served.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { DEVNET_CHIADO_EURE, DEVNET_KEYS } from '../../scripts/devnet/chain'
import { NATIVE } from '../devnet/gnosis'
import { systemClock } from '@/lib/clock'
import { makeApp, serve } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser } from '@tests/helpers/factories'
import { waitFor } from '@tests/transactions/helpers'
import { auth, clientGnosis, custodialGnosis, EURE, gaslessBody, mintTo, quoteOf, swapWorld, typedDataOf, type SwapWorld } from './world'

const dir = mkdtempSync(join(tmpdir(), 'slipway-swaps-relays-'))
const RELAYER = privateKeyToAccount(DEVNET_KEYS.relayer).address
const COPIES = 12
let world: SwapWorld

beforeAll(async () => {
  world = await swapWorld(dir)
}, 60_000)
afterAll(() => world.stop())

const settled = (api: Api, u: SignedInUser, id: string) =>
  waitFor(() => api.get(`/v1/transactions/${id}/status`, auth(u)), (r) => r.body.status === 'confirmed' || r.body.status === 'failed')

/** The relayer's nonce and native balance, to compare after. */
const relayerState = async () => ({ nonce: await world.chain.pub.getTransactionCount({ address: RELAYER }), balance: await world.chain.balance(NATIVE, RELAYER) })

/** One relay at most: one transaction, its gas at most the relay's priced gas (limit × max fee). */
async function spentOneRelay(before: { nonce: number; balance: bigint }, pricedGas: bigint) {
  const after = await relayerState()
  expect(after.nonce).toBe(before.nonce + 1)
  const spent = before.balance - after.balance
  expect(spent).toBeGreaterThan(0n)
  expect(spent).toBeLessThanOrEqual(pricedGas)
}

function oneRelayed(answers: Array<{ status: number; body: any }>) {
  const created = answers.filter((r) => r.status === 201)
  expect(created).toHaveLength(1)
  const others = answers.filter((r) => r.status !== 201)
  expect(others.map((r) => r.status)).toEqual(Array(answers.length - 1).fill(409))
  for (const r of others) expect(r.body.code).toBe('SWAP_GASLESS_ALREADY_RELAYED')
  return created[0]!
}

describe('copies of one gasless swap at once', () => {
  test(`${COPIES} execute-gasless on one 0.1 EURe quote: one relayed and confirmed, ${COPIES - 1} answer 409, the relayer pays one relay's gas`, async () => {
    const { api, f, tenant } = world
    const u = await f.user(tenant)
    const w = await custodialGnosis(world, u, 2n * EURE)
    const q = await quoteOf(api, u, gaslessBody(w.id, EURE / 10n))
    const priced = BigInt(q.gasless.estimatedGasCost)
    const before = await relayerState()
    const answers = await Promise.all(Array.from({ length: COPIES }, () => api.post('/v1/swap/execute-gasless', { quoteId: q.quoteId }, auth(u))))
    const sent = oneRelayed(answers)
    expect((await settled(api, u, sent.body.id)).body.status).toBe('confirmed')
    await spentOneRelay(before, priced)
    expect(await world.chain.balance(DEVNET_CHIADO_EURE, w.address)).toBe(2n * EURE - EURE / 10n)
    const history = await api.get(`/v1/transactions/?walletId=${w.id}`, auth(u))
    expect(history.body.data).toHaveLength(1)
    // relayed once means once: the same quote later is still a 409, naming the swap's transaction
    const again = await api.post('/v1/swap/execute-gasless', { quoteId: q.quoteId }, auth(u))
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ code: 'SWAP_GASLESS_ALREADY_RELAYED', details: { transactionId: sent.body.id } })
  }, 60_000)

  test(`one client-signed permit sent ${COPIES} times at once to broadcast-gasless: one relayed, ${COPIES - 1} answer 409`, async () => {
    const { api, f, tenant } = world
    const u = await f.user(tenant)
    const account = privateKeyToAccount(generatePrivateKey())
    const w = await clientGnosis(api, u, account)
    await mintTo(world.chain, DEVNET_CHIADO_EURE, w.address, 2n * EURE)
    const q = await quoteOf(api, u, gaslessBody(w.id, EURE / 10n))
    const permit = await api.post('/v1/swap/sign-permit', { quoteId: q.quoteId }, auth(u))
    expect(permit.status).toBe(200)
    const signature = await account.signTypedData(typedDataOf(permit.body))
    const before = await relayerState()
    // each from its own client address: the route's per-IP rate limit is not what stops the copies
    const answers = await Promise.all(Array.from({ length: COPIES }, (_, i) =>
      api.post('/v1/swap/broadcast-gasless', { quoteId: q.quoteId, signature }, auth(u, { 'x-forwarded-for': `10.37.4.${i + 1}` }))))
    const sent = oneRelayed(answers)
    expect((await settled(api, u, sent.body.id)).body.status).toBe('confirmed')
    await spentOneRelay(before, BigInt(permit.body.estimatedGasCost))
    expect(await world.chain.balance(DEVNET_CHIADO_EURE, w.address)).toBe(2n * EURE - EURE / 10n)
  }, 60_000)

  test('broadcast-gasless with an Idempotency-Key: a retry with the key answers the first swap; with another key, 409', async () => {
    const { api, f, tenant } = world
    const u = await f.user(tenant)
    const account = privateKeyToAccount(generatePrivateKey())
    const w = await clientGnosis(api, u, account)
    await mintTo(world.chain, DEVNET_CHIADO_EURE, w.address, EURE)
    const q = await quoteOf(api, u, gaslessBody(w.id, EURE / 10n))
    const permit = await api.post('/v1/swap/sign-permit', { quoteId: q.quoteId }, auth(u))
    const body = { quoteId: q.quoteId, signature: await account.signTypedData(typedDataOf(permit.body)) }
    const key = crypto.randomUUID()
    const first = await api.post('/v1/swap/broadcast-gasless', body, auth(u, { 'idempotency-key': key, 'x-forwarded-for': '10.37.5.1' }))
    expect(first.status).toBe(201)
    const retry = await api.post('/v1/swap/broadcast-gasless', body, auth(u, { 'idempotency-key': key, 'x-forwarded-for': '10.37.5.2' }))
    expect(retry.status).toBe(201)
    expect(retry.body.id).toBe(first.body.id)
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    const otherKey = await api.post('/v1/swap/broadcast-gasless', body, auth(u, { 'idempotency-key': crypto.randomUUID(), 'x-forwarded-for': '10.37.5.3' }))
    expect(otherKey.status).toBe(409)
    expect(otherKey.body.code).toBe('SWAP_GASLESS_ALREADY_RELAYED')
    expect((await settled(api, u, first.body.id)).body.status).toBe('confirmed')
  }, 60_000)

  test('two quotes signing the same permit nonce, relayed at once: one relayed, the other 409 (a permit\'s nonce is used once on chain)', async () => {
    const { api, f, tenant } = world
    const u = await f.user(tenant)
    const w = await custodialGnosis(world, u, 2n * EURE)
    const [q1, q2] = [await quoteOf(api, u, gaslessBody(w.id, EURE / 10n)), await quoteOf(api, u, gaslessBody(w.id, EURE / 5n))]
    expect(q1.gasless.currentNonce).toBe(q2.gasless.currentNonce)
    const before = await relayerState()
    const answers = await Promise.all([q1, q2, q1, q2].map((q) => api.post('/v1/swap/execute-gasless', { quoteId: q.quoteId }, auth(u))))
    const sent = oneRelayed(answers)
    expect((await settled(api, u, sent.body.id)).body.status).toBe('confirmed')
    await spentOneRelay(before, BigInt(q2.gasless.estimatedGasCost) * 2n)
  }, 60_000)
})

describe('the daily budgets', () => {
  test('a user past their day\'s budget, then a tenant past its own: 429 before any gas is spent; another tenant\'s users are still served', async () => {
    const { devnet } = world
    // the relay's priced gas on the devnet now, to size the budgets in relays
    const probeUser = await world.f.user(world.tenant)
    const probeWallet = await custodialGnosis(world, probeUser, 0n)
    const gas = BigInt((await quoteOf(world.api, probeUser, gaslessBody(probeWallet.id, EURE))).gasless.estimatedGasCost)
    // a user: one relay and not two; the tenant: two and not three (each relay within ±25% of `gas`)
    const app = await makeApp({
      clock: systemClock,
      env: {
        ...devnet.env, RPC_TIMEOUT_MS: '3000', TRUSTED_PROXIES: '127.0.0.1',
        SWAP_GASLESS_DAILY_GAS_PER_USER_WEI: ((gas * 3n) / 2n).toString(), SWAP_GASLESS_DAILY_GAS_PER_TENANT_WEI: ((gas * 5n) / 2n).toString(),
      },
    })
    const server = serve(app)
    try {
      const api = new Api(server.url)
      const f = new Factory(app, api)
      const [t1, t2] = [await f.tenant(), await f.tenant()]
      const swapper = async (tenantUser: SignedInUser) => {
        const w = await custodialGnosis({ api, chain: world.chain }, tenantUser, 2n * EURE)
        return { u: tenantUser, w, quote: () => quoteOf(api, tenantUser, gaslessBody(w.id, EURE / 10n)) }
      }
      const relay = async (s: Awaited<ReturnType<typeof swapper>>) => api.post('/v1/swap/execute-gasless', { quoteId: (await s.quote()).quoteId }, auth(s.u))
      const [a, b, c] = [await swapper(await f.user(t1)), await swapper(await f.user(t1)), await swapper(await f.user(t1))]
      const d = await swapper(await f.user(t2))

      const first = await relay(a)
      expect(first.status).toBe(201)
      expect((await settled(api, a.u, first.body.id)).body.status).toBe('confirmed')
      let before = await relayerState()
      const userOver = await relay(a)
      expect(userOver.status).toBe(429)
      expect(userOver.body.code).toBe('SWAP_GASLESS_USER_DAILY_LIMIT')
      expect(Number(userOver.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(Number(userOver.headers.get('retry-after'))).toBeLessThanOrEqual(86_400)
      expect(await relayerState()).toEqual(before)

      const second = await relay(b)
      expect(second.status).toBe(201)
      expect((await settled(api, b.u, second.body.id)).body.status).toBe('confirmed')
      before = await relayerState()
      const tenantOver = await relay(c)
      expect(tenantOver.status).toBe(429)
      expect(tenantOver.body.code).toBe('SWAP_GASLESS_TENANT_DAILY_LIMIT')
      expect(await relayerState()).toEqual(before)

      // the first tenant's day is spent; the second tenant's is its own
      const other = await relay(d)
      expect(other.status).toBe(201)
      expect((await settled(api, d.u, other.body.id)).body.status).toBe('confirmed')
      expect(await world.chain.balance(NATIVE, d.w.address)).toBeGreaterThan(0n)
    } finally {
      await server.stop()
      await app.close()
    }
  }, 90_000)
})
