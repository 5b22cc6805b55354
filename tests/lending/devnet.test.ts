/**
 * The lending group (`/v1/aave`) end to end over HTTP on the devnet's Sepolia node, whose Aave
 * pool (scripts/devnet/SandboxAavePool.sol) sits at Aave's Sepolia Pool address with the test
 * USDC listed: custodial supply (approval first) and withdraw move the token into and out of
 * the pool on chain and positions follow; a non-custodial wallet's prepared approval and supply
 * signed here and broadcast once; Idempotency-Key on supply; both credentials; another user's
 * wallet; rate history; rate limits.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Address, Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { DEVNET_AAVE_POOL, DEVNET_AAVE_USDC_RATE, DEVNET_USDC } from '../../scripts/devnet/chain'
import type { SignedInUser } from '@tests/helpers/factories'
import { waitFor } from '@tests/transactions/helpers'
import { eq } from 'drizzle-orm'
import { lendingRateSamples } from '@/modules/lending/schema'
import { both, freshIp, lendingWorld, type LendingWorld } from './world'

const dir = mkdtempSync(join(tmpdir(), 'slipway-lending-devnet-'))
let w: LendingWorld

beforeAll(async () => {
  w = await lendingWorld(dir)
}, 60_000)
afterAll(() => w.stop())

const seconds = () => Math.floor(Date.now() / 1000)

/** A custodial Sepolia wallet of the user with 1 ETH and `usdc` of the test USDC. */
async function custodial(u: SignedInUser, usdc: bigint) {
  const res = await w.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: u.accessToken })
  expect(res.status).toBe(201)
  const wallet = res.body as { id: string; address: Address }
  await w.chain.fund(wallet.address, usdc)
  return wallet
}

/** `account` registered as the user's non-custodial Sepolia wallet (challenge signed with EIP-191), funded. */
async function clientWallet(u: SignedInUser, account: PrivateKeyAccount, usdc: bigint) {
  const c = await w.api.get(`/v1/wallets/client/challenge?chain=sepolia&address=${account.address}`, { token: u.accessToken })
  expect(c.status).toBe(200)
  const res = await w.api.post('/v1/wallets/client', { challengeId: c.body.challengeId, signature: await account.signMessage({ message: c.body.message }) }, { token: u.accessToken })
  expect(res.status).toBe(201)
  await w.chain.fund(account.address, usdc)
  return res.body as { id: string; address: Address }
}

const confirmed = (u: SignedInUser, id: string) =>
  waitFor(() => w.api.get(`/v1/transactions/${id}/status`, { token: u.accessToken }), (r) => r.body.status === 'confirmed' || r.body.status === 'failed')

describe('custodial wallets', () => {
  test('supply sends an approval then the supply: the USDC moves into the pool\'s aToken, positions show it, withdraw brings it back; all in history', async () => {
    const u = await w.f.user(w.tenant)
    const ip = freshIp()
    const wallet = await custodial(u, 100_000_000n)
    const aToken = await w.chain.aToken()
    const poolHeldBefore = await w.chain.usdc(aToken)

    const supplied = await w.api.post('/v1/aave/supply', { walletId: wallet.id, asset: DEVNET_USDC, amount: '40000000' }, both(w.tenant, u, ip))
    expect(supplied.status).toBe(201)
    expect(supplied.body).toMatchObject({ type: 'supply', status: 'pending', requiresClientSigning: false, pool: DEVNET_AAVE_POOL, asset: DEVNET_USDC, amount: '40000000' })
    expect(supplied.body.approval).toMatchObject({ type: 'approval', status: 'pending', pool: DEVNET_AAVE_POOL })
    expect(supplied.body.nonce).toBe(supplied.body.approval.nonce + 1)
    expect((await confirmed(u, supplied.body.approval.id)).body.status).toBe('confirmed')
    expect((await confirmed(u, supplied.body.id)).body.status).toBe('confirmed')

    // on chain: out of the wallet, into the aToken (which holds the underlying), minted 1:1
    expect(await w.chain.usdc(wallet.address)).toBe(60_000_000n)
    expect(await w.chain.usdc(aToken)).toBe(poolHeldBefore + 40_000_000n)
    expect(await w.chain.tokenBalance(aToken, wallet.address)).toBe(40_000_000n)

    const pos = await w.api.get(`/v1/aave/positions?walletId=${wallet.id}`, both(w.tenant, u, ip))
    expect(pos.status).toBe(200)
    expect(pos.body.positions).toHaveLength(1)
    expect(pos.body.positions[0]).toMatchObject({
      walletId: wallet.id, network: 'sepolia', pool: DEVNET_AAVE_POOL,
      account: { totalCollateralBase: '4000000000', totalDebtBase: '0', ltv: '7500' },
      reserves: [{ asset: DEVNET_USDC, symbol: 'USDC', decimals: 6, aTokenAddress: aToken, aTokenBalance: '40000000', liquidityRate: DEVNET_AAVE_USDC_RATE.toString(), supplyApr: '0.035' }],
    })
    expect(pos.body.positions[0].reserves[0].supplyApy).toStartWith('0.0356197')

    const withdrawn = await w.api.post('/v1/aave/withdraw', { walletId: wallet.id, asset: DEVNET_USDC, amount: '15000000' }, both(w.tenant, u, ip))
    expect(withdrawn.status).toBe(201)
    expect(withdrawn.body).toMatchObject({ type: 'withdraw', status: 'pending', amount: '15000000' })
    expect((await confirmed(u, withdrawn.body.id)).body.status).toBe('confirmed')
    expect(await w.chain.usdc(wallet.address)).toBe(75_000_000n)
    expect(await w.chain.tokenBalance(aToken, wallet.address)).toBe(25_000_000n)
    const after = await w.api.get(`/v1/aave/positions?walletId=${wallet.id}`, both(w.tenant, u, ip))
    expect(after.body.positions[0].reserves[0].aTokenBalance).toBe('25000000')

    // more than supplied: refused before anything is sent
    const tooMuch = await w.api.post('/v1/aave/withdraw', { walletId: wallet.id, asset: DEVNET_USDC, amount: '25000001' }, both(w.tenant, u, ip))
    expect(tooMuch.status).toBe(400)
    expect(tooMuch.body.code).toBe('AAVE_INSUFFICIENT_SUPPLY')

    const history = await w.api.get(`/v1/transactions/?walletId=${wallet.id}`, { token: u.accessToken })
    expect(history.body.data.map((t: { type: string }) => t.type).sort()).toEqual(['approval', 'supply', 'withdraw'])
    const wd = history.body.data.find((t: { type: string }) => t.type === 'withdraw')
    expect(wd.metadata).toMatchObject({ protocol: 'aave', amount: '15000000', pool: DEVNET_AAVE_POOL })
  }, 60_000)

  test('Idempotency-Key: the same supply sent twice is sent once (one supply on chain, the answer replayed)', async () => {
    const u = await w.f.user(w.tenant)
    const ip = freshIp()
    const wallet = await custodial(u, 50_000_000n)
    const body = { walletId: wallet.id, asset: DEVNET_USDC, amount: '10000000' }
    const key = { 'idempotency-key': `lend-${crypto.randomUUID()}` }
    // signed one second apart: a signature is accepted once
    const first = await w.api.post('/v1/aave/supply', body, both(w.tenant, u, ip, { headers: key, timestamp: String(seconds() - 1) }))
    expect(first.status).toBe(201)
    const second = await w.api.post('/v1/aave/supply', body, both(w.tenant, u, ip, { headers: key, timestamp: String(seconds()) }))
    expect(second.status).toBe(201)
    expect(second.headers.get('idempotency-replayed')).toBe('true')
    expect(second.body.id).toBe(first.body.id)
    await confirmed(u, first.body.id)
    const aToken = await w.chain.aToken()
    expect(await w.chain.tokenBalance(aToken, wallet.address)).toBe(10_000_000n)
    expect(await w.chain.usdc(wallet.address)).toBe(40_000_000n)
    const history = await w.api.get(`/v1/transactions/?walletId=${wallet.id}`, { token: u.accessToken })
    expect(history.body.data.filter((t: { type: string }) => t.type === 'supply')).toHaveLength(1)
  }, 60_000)

  test('a supply above the wallet\'s balance is refused before any approval is sent', async () => {
    const u = await w.f.user(w.tenant)
    const wallet = await custodial(u, 1_000_000n)
    const res = await w.api.post('/v1/aave/supply', { walletId: wallet.id, asset: DEVNET_USDC, amount: '2000000' }, both(w.tenant, u, freshIp()))
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('INSUFFICIENT_BALANCE')
    expect((await w.api.get(`/v1/transactions/?walletId=${wallet.id}`, { token: u.accessToken })).body.data).toHaveLength(0)
  }, 30_000)
})

describe('non-custodial wallets', () => {
  test('prepare-supply answers the approval first, then the supply; each signed here and broadcast once (a second broadcast 409)', async () => {
    const u = await w.f.user(w.tenant)
    const ip = freshIp()
    const account = privateKeyToAccount(generatePrivateKey())
    const wallet = await clientWallet(u, account, 30_000_000n)
    const body = { walletId: wallet.id, asset: DEVNET_USDC, amount: '20000000' }
    const sign = async (p: { signingHash: Hex }) => account.sign({ hash: p.signingHash })

    const approval = await w.api.post('/v1/aave/prepare-supply', body, both(w.tenant, u, ip))
    expect(approval.status).toBe(201)
    expect(approval.body).toMatchObject({ type: 'approval', status: 'awaiting_signature', requiresClientSigning: true, nextStep: 'broadcast_then_prepare_again' })
    const sent = await w.api.post('/v1/aave/broadcast', { transactionId: approval.body.preparedTransactionId, signature: await sign(approval.body) }, both(w.tenant, u, ip))
    expect(sent.status).toBe(200)
    expect((await confirmed(u, approval.body.id)).body.status).toBe('confirmed')

    const supply = await w.api.post('/v1/aave/prepare-supply', body, both(w.tenant, u, ip))
    expect(supply.status).toBe(201)
    expect(supply.body).toMatchObject({ type: 'supply', status: 'awaiting_signature', nextStep: 'broadcast', pool: DEVNET_AAVE_POOL })
    expect(supply.body.transaction.to).toBe(DEVNET_AAVE_POOL)
    const signature = await sign(supply.body)
    const once = await w.api.post('/v1/aave/broadcast', { transactionId: supply.body.preparedTransactionId, signature }, both(w.tenant, u, ip))
    expect(once.status).toBe(200)
    const twice = await w.api.post('/v1/aave/broadcast', { transactionId: supply.body.preparedTransactionId, signature }, both(w.tenant, u, ip))
    expect(twice.status).toBe(409)
    expect((await confirmed(u, supply.body.id)).body.status).toBe('confirmed')
    expect(await w.chain.tokenBalance(await w.chain.aToken(), account.address)).toBe(20_000_000n)
    expect(await w.chain.usdc(account.address)).toBe(10_000_000n)

    // a custodial-only route refuses it, and the prepare routes refuse custodial wallets
    const direct = await w.api.post('/v1/aave/supply', body, both(w.tenant, u, ip))
    expect(direct.status).toBe(400)
    expect(direct.body.code).toBe('AAVE_CLIENT_SIGNED_WALLET')
  }, 60_000)

  test('broadcast refuses a prepared transaction of another group (a plain send) with 404', async () => {
    const u = await w.f.user(w.tenant)
    const account = privateKeyToAccount(generatePrivateKey())
    const wallet = await clientWallet(u, account, 5_000_000n)
    const send = await w.api.post('/v1/transactions/', { walletId: wallet.id, chain: 'sepolia', toAddress: DEVNET_AAVE_POOL, amount: '1000', tokenAddress: DEVNET_USDC }, { token: u.accessToken })
    expect(send.status).toBe(201)
    const res = await w.api.post('/v1/aave/broadcast', { transactionId: send.body.preparedTransactionId, signature: await account.sign({ hash: send.body.signingHash }) }, both(w.tenant, u, freshIp()))
    expect(res.status).toBe(404)
  }, 30_000)
})

describe('credentials and ownership', () => {
  test('both credentials are required: no signature 401, no bearer 401, a bearer of another tenant\'s user 401', async () => {
    const u = await w.f.user(w.tenant)
    const stranger = await w.f.user(w.other)
    const ip = freshIp()
    const noSignature = await w.api.get('/v1/aave/positions', { token: u.accessToken, headers: { 'x-forwarded-for': ip } })
    expect(noSignature.status).toBe(401)
    const noBearer = await w.api.get('/v1/aave/positions', { signedBy: w.tenant, headers: { 'x-forwarded-for': ip } })
    expect(noBearer.status).toBe(401)
    const crossed = await w.api.get('/v1/aave/positions', both(w.tenant, stranger, ip))
    expect(crossed.status).toBe(401)
    const crossedWrite = await w.api.post('/v1/aave/supply', { walletId: crypto.randomUUID(), asset: DEVNET_USDC, amount: '1' }, both(w.tenant, stranger, ip))
    expect(crossedWrite.status).toBe(401)
    const ok = await w.api.get('/v1/aave/positions', both(w.tenant, u, ip))
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual({ positions: [] })
  }, 30_000)

  test('another tenant\'s wallet answers 404 on every route that names one (the id in the body or the query)', async () => {
    const wallet = await custodial(await w.f.user(w.tenant), 5_000_000n)
    const elsewhere = await w.f.tenant()
    const u = await w.f.user(elsewhere)
    const ip = freshIp()
    expect((await w.api.get(`/v1/aave/positions?walletId=${wallet.id}`, both(elsewhere, u, ip))).status).toBe(404)
    for (const route of ['supply', 'withdraw', 'prepare-supply', 'prepare-withdraw']) {
      const res = await w.api.post(`/v1/aave/${route}`, { walletId: wallet.id, asset: DEVNET_USDC, amount: '1000000' }, both(elsewhere, u, ip))
      expect({ route, status: res.status }).toEqual({ route, status: 404 })
    }
  }, 30_000)

  test('another user\'s wallet answers 404 on every route that names one', async () => {
    const owner = await w.f.user(w.tenant)
    const wallet = await custodial(owner, 5_000_000n)
    const u = await w.f.user(w.tenant)
    const ip = freshIp()
    const body = { walletId: wallet.id, asset: DEVNET_USDC, amount: '1000000' }
    expect((await w.api.get(`/v1/aave/positions?walletId=${wallet.id}`, both(w.tenant, u, ip))).status).toBe(404)
    for (const route of ['supply', 'withdraw', 'prepare-supply', 'prepare-withdraw']) {
      const res = await w.api.post(`/v1/aave/${route}`, body, both(w.tenant, u, ip))
      expect({ route, status: res.status }).toEqual({ route, status: 404 })
    }
  }, 30_000)
})

describe('rate history', () => {
  test('reads record the supply rate (one sample per slot); a rate changed on chain shows as a new sample', async () => {
    const u = await w.f.user(w.tenant)
    const ip = freshIp()
    const q = `/v1/aave/rate-history?chain=sepolia&asset=${DEVNET_USDC}`
    const first = await w.api.get(q, both(w.tenant, u, ip))
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ network: 'sepolia', isTestnet: true, pool: DEVNET_AAVE_POOL, current: { liquidityRate: DEVNET_AAVE_USDC_RATE.toString(), supplyApr: '0.035' } })
    expect(first.body.samples.length).toBeGreaterThanOrEqual(1)
    await w.chain.setRate(50n * 10n ** 24n)
    await Bun.sleep(1100)
    const second = await w.api.get(q, both(w.tenant, u, ip))
    expect(second.body.current.supplyApr).toBe('0.05')
    const rates = second.body.samples.map((s: { supplyApr: string }) => s.supplyApr)
    expect(rates.at(-1)).toBe('0.05')
    expect(rates).toContain('0.035')
    const times = second.body.samples.map((s: { sampledAt: string }) => Date.parse(s.sampledAt))
    expect([...times].sort((a, b) => a - b)).toEqual(times)
    // another tenant has its own samples
    const stranger = await w.f.user(w.other)
    const theirs = await w.api.get(q, both(w.other, stranger, freshIp()))
    expect(theirs.body.samples.map((s: { supplyApr: string }) => s.supplyApr)).toEqual(['0.05'])
    await w.chain.setRate(DEVNET_AAVE_USDC_RATE)
  }, 30_000)

  test('once a reserve was read, the sampling job keeps recording it without further reads (a sample per AAVE_RATE_SAMPLE_SECONDS slot, 1 s here)', async () => {
    const lone = await w.f.tenant()
    const u = await w.f.user(lone)
    expect((await w.api.get(`/v1/aave/rate-history?chain=sepolia&asset=${DEVNET_USDC}`, both(lone, u, freshIp()))).status).toBe(200)
    const count = async () => (await w.t.deps.database.db.select().from(lendingRateSamples).where(eq(lendingRateSamples.tenantId, lone.id))).length
    const after = await count()
    // no read from here on: only the job adds samples
    const grown = await waitFor(count, (n) => n >= after + 2, 10_000)
    expect(grown).toBeGreaterThanOrEqual(after + 2)
  }, 30_000)

  test('an unlisted asset and a network without a pool answer 400 with their codes', async () => {
    const u = await w.f.user(w.tenant)
    const ip = freshIp()
    const unlisted = await w.api.get('/v1/aave/rate-history?chain=sepolia&asset=0x08210F9170F89Ab7658F0B5E3fF39b0E03C594D4', both(w.tenant, u, ip))
    expect(unlisted.status).toBe(400)
    expect(unlisted.body.code).toBe('AAVE_RESERVE_NOT_LISTED')
    const noPool = await w.api.get(`/v1/aave/rate-history?chain=polygon-amoy&asset=${DEVNET_USDC}`, both(w.tenant, u, ip))
    expect(noPool.status).toBe(400)
    expect(noPool.body.code).toBe('AAVE_NETWORK_UNSUPPORTED')
  }, 30_000)
})

describe('rate limits', () => {
  test('5 per minute per client on each write route: the 6th answers 429 with the headers', async () => {
    const u = await w.f.user(w.tenant)
    for (const route of ['supply', 'withdraw', 'prepare-supply', 'prepare-withdraw', 'broadcast']) {
      const ip = freshIp()
      const statuses: number[] = []
      for (let i = 0; i < 6; i++) {
        const body = route === 'broadcast' ? { transactionId: crypto.randomUUID(), signature: '0x1234' } : { walletId: crypto.randomUUID(), asset: DEVNET_USDC, amount: String(i + 1) }
        const res = await w.api.post(`/v1/aave/${route}`, body, both(w.tenant, u, ip))
        statuses.push(res.status)
        if (i === 5) {
          expect(res.headers.get('x-ratelimit-limit')).toBe('5')
          expect(res.headers.get('x-ratelimit-remaining')).toBe('0')
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
        }
      }
      expect({ route, statuses }).toEqual({ route, statuses: [...Array(5).fill(404), 429] })
    }
  }, 30_000)
})
