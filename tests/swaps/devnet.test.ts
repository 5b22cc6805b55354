/**
 * Swaps end to end over HTTP on the devnet's gnosis-chiado node (scripts/devnet/chain.ts) with the
 * embedded sandbox aggregator: real calldata for the devnet's SandboxRouter, so every swap
 * executed here moves real balances. Custodial wallets (quote, allowance, approve, execute,
 * the status read), a native-coin source, a non-custodial wallet signing with viem and the
 * swap broadcast routes, history and the unified feed, `Idempotency-Key` on execute under
 * concurrency (in one process, and across two processes sharing a database file), and the
 * broadcast routes' guards (record types, owners, garbage signatures, 10 per 10 seconds).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { keccak256, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { DEVNET_CHIADO_CHAIN_ID, DEVNET_CHIADO_EURE, DEVNET_CHIADO_USDC, DEVNET_SWAP_ROUTER, giveChiadoGas, type Devnet } from '../../scripts/devnet/chain'
import { gnosisClients, NATIVE } from '../devnet/gnosis'
import { systemClock } from '@/lib/clock'
import { findToken, rateOf } from '@/sandbox/swap-aggregator/market'
import { makeApp, TEST_JWT_SECRET, TEST_MASTER_KEY, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startProcess } from '@tests/helpers/process'
import { waitFor } from '@tests/transactions/helpers'
import { auth, mintTo, swapWorld, type SwapWorld } from './world'

const dir = mkdtempSync(join(tmpdir(), 'slipway-swaps-devnet-'))
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
  world = await swapWorld(dir, { jobs: true })
  ;({ devnet, t, server, api, f, tenant, other, chain } = world)
}, 60_000)
afterAll(() => world.stop())

const mint = (token: Address, to: Address, amount: bigint) => mintTo(chain, token, to, amount)
const nonceOf = (a: Address) => chain.pub.getTransactionCount({ address: a })

/** A custodial gnosis wallet with 1 xDAI of gas and `usdc` of USDC. */
async function custodial(u: SignedInUser, usdc = 0n, api_ = api) {
  const res = await api_.post('/v1/wallets/', { chain: 'gnosis', isTestnet: true }, auth(u))
  expect(res.status).toBe(201)
  const w = res.body as { id: string; address: Address }
  await giveChiadoGas(devnet.chiadoUrl, w.address, 10n ** 18n)
  if (usdc > 0n) await mint(DEVNET_CHIADO_USDC, w.address, usdc)
  return w
}

/** `account` registered as the user's non-custodial gnosis wallet (challenge signed with EIP-191). */
async function clientWallet(u: SignedInUser, account: PrivateKeyAccount) {
  const c = await api.get(`/v1/wallets/client/challenge?chain=gnosis-chiado&address=${account.address}`, auth(u))
  expect(c.status).toBe(200)
  const res = await api.post('/v1/wallets/client', { challengeId: c.body.challengeId, signature: await account.signMessage({ message: c.body.message }) }, auth(u))
  expect(res.status).toBe(201)
  return res.body as { id: string; address: Address }
}

const quoteBody = (walletId: string, over: Record<string, unknown> = {}) => ({ walletId, fromChain: 'gnosis', toChain: 'gnosis', isTestnet: true, fromToken: DEVNET_CHIADO_USDC, toToken: DEVNET_CHIADO_EURE, fromAmount: '25000000', ...over })
async function quote(u: SignedInUser, body: Record<string, unknown>, api_ = api) {
  const res = await api_.post('/v1/swap/quote', body, auth(u))
  expect(res.status).toBe(200)
  return res.body
}
const confirmed = (u: SignedInUser, id: string) =>
  waitFor(() => api.get(`/v1/transactions/${id}/status`, auth(u)), (r) => r.body.status === 'confirmed' || r.body.status === 'failed')

/** Signs a prepared EIP-1559 transaction in full (the other way to broadcast: a signature over `signingHash`). */
function signPrepared(account: PrivateKeyAccount, p: { transaction: Record<string, any> }) {
  const tx = p.transaction
  return account.signTransaction({
    type: 'eip1559', chainId: tx.chainId, nonce: tx.nonce, to: tx.to, value: BigInt(tx.value), data: tx.data === '0x' ? undefined : tx.data,
    gas: BigInt(tx.gas), maxFeePerGas: BigInt(tx.maxFeePerGas), maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas),
  })
}

const usdcToEure = (amount: bigint) => {
  const r = rateOf(findToken(DEVNET_CHIADO_CHAIN_ID, 'USDC')!, findToken(DEVNET_CHIADO_CHAIN_ID, 'EURe')!)
  return amount * r.num / r.den
}

describe('custodial wallets', () => {
  test('USDC to EURe: quote, check-allowance 0, approve, check-allowance set, execute, confirmed; balances moved on chain; history and the feed', async () => {
    const u = await f.user(tenant)
    const w = await custodial(u, 100_000_000n)
    const q = await quote(u, quoteBody(w.id))
    const toAmount = usdcToEure(25_000_000n)
    expect(q).toMatchObject({
      isTestnet: true, fromChain: 'gnosis', fromChainId: 10200, toChainId: 10200, tool: 'sandbox-router', approvalAddress: DEVNET_SWAP_ROUTER, needsApproval: true,
      fromAmount: '25000000', toAmount: toAmount.toString(), nativeTokenSymbol: 'xDAI', sufficientBalance: true,
      transactionData: { to: DEVNET_SWAP_ROUTER, value: '0', gasLimit: '200000' },
    })

    const allowance = { walletId: w.id, tokenAddress: DEVNET_CHIADO_USDC, spenderAddress: q.approvalAddress }
    const before = await api.post('/v1/swap/check-allowance', allowance, auth(u))
    expect(before.status).toBe(200)
    expect(before.body).toMatchObject({ allowance: '0', needsApproval: true })

    const approval = await api.post('/v1/swap/approve', { ...allowance, amount: '25000000' }, auth(u))
    expect(approval.status).toBe(201)
    expect(approval.body).toMatchObject({ type: 'approval', status: 'pending', requiresClientSigning: false })
    expect((await confirmed(u, approval.body.id)).body.status).toBe('confirmed')
    const after = await api.post('/v1/swap/check-allowance', { ...allowance, amount: '25000000' }, auth(u))
    expect(after.body).toMatchObject({ allowance: '25000000', needsApproval: false })
    // the quote, asked again, no longer says to approve
    expect((await quote(u, quoteBody(w.id))).needsApproval).toBe(false)

    const executed = await api.post('/v1/swap/execute', { quoteId: q.quoteId }, auth(u))
    expect(executed.status).toBe(201)
    expect(executed.body).toMatchObject({ type: 'swap', status: 'pending', quoteId: q.quoteId, requiresClientSigning: false })
    const status = await confirmed(u, executed.body.id)
    expect(status.body).toMatchObject({ status: 'confirmed', txHash: executed.body.txHash })
    expect(await chain.balance(DEVNET_CHIADO_USDC, w.address)).toBe(75_000_000n)
    expect(await chain.balance(DEVNET_CHIADO_EURE, w.address)).toBe(toAmount)

    const history = await api.get('/v1/transactions/', auth(u))
    expect(history.body.pagination.total).toBe(2)
    expect(history.body.data.map((x: { type: string }) => x.type).sort()).toEqual(['approval', 'swap'])
    expect(history.body.data.find((x: { type: string }) => x.type === 'swap')).toMatchObject({ id: executed.body.id, quoteId: q.quoteId, status: 'confirmed', amount: '25000000', token: { address: DEVNET_CHIADO_USDC, symbol: 'USDC', decimals: 6 } })
    const feed = await api.get('/v1/transactions/aggregated/', auth(u))
    expect(feed.status).toBe(200)
    const kinds = Object.fromEntries(feed.body.data.map((x: { id: string; kind: string }) => [x.id, x.kind]))
    expect(kinds).toEqual({ [`tx:${executed.body.id}`]: 'swap', [`tx:${approval.body.id}`]: 'approval' })
    expect(feed.body.data.find((x: { kind: string }) => x.kind === 'swap')).toMatchObject({ direction: 'swap', status: 'confirmed', chain: 'gnosis', amount: '25000000', simulation: false })
    expect(feed.body.data.find((x: { kind: string }) => x.kind === 'approval')).toMatchObject({ counterparty: DEVNET_SWAP_ROUTER })
  }, 60_000)

  test('xDAI to USDC (a native-coin source): no approval needed, the value carried, USDC received', async () => {
    const u = await f.user(tenant)
    const w = await custodial(u)
    await giveChiadoGas(devnet.chiadoUrl, w.address, 3n * 10n ** 18n)
    const q = await quote(u, quoteBody(w.id, { fromToken: NATIVE, toToken: DEVNET_CHIADO_USDC, fromAmount: String(10n ** 18n) }))
    expect(q).toMatchObject({ fromToken: { symbol: 'xDAI' }, approvalAddress: null, needsApproval: false, toAmount: '1000000', transactionData: { value: String(10n ** 18n) } })
    const executed = await api.post('/v1/swap/execute', { quoteId: q.quoteId }, auth(u))
    expect(executed.status).toBe(201)
    expect((await confirmed(u, executed.body.id)).body.status).toBe('confirmed')
    expect(await chain.balance(DEVNET_CHIADO_USDC, w.address)).toBe(1_000_000n)
    expect(await chain.balance(NATIVE, w.address)).toBeLessThan(2n * 10n ** 18n)
    expect(await nonceOf(w.address)).toBe(1)
  }, 60_000)

  test('the status job confirms an approval and a swap with nobody reading their status', async () => {
    const u = await f.user(tenant)
    const w = await custodial(u, 10_000_000n)
    const q = await quote(u, quoteBody(w.id, { fromAmount: '10000000' }))
    const approval = await api.post('/v1/swap/approve', { walletId: w.id, tokenAddress: DEVNET_CHIADO_USDC, spenderAddress: q.approvalAddress, amount: '10000000' }, auth(u))
    expect(approval.status).toBe(201)
    // the record as stored (GET /v1/transactions/{id} reads no chain): only the status job moves it
    const stored = (id: string) => waitFor(() => api.get(`/v1/transactions/${id}`, auth(u)), (r) => r.body.status !== 'pending', 20_000)
    expect((await stored(approval.body.id)).body.status).toBe('confirmed')
    const executed = await api.post('/v1/swap/execute', { quoteId: q.quoteId }, auth(u))
    expect(executed.status).toBe(201)
    const swap = await stored(executed.body.id)
    expect(swap.body).toMatchObject({ status: 'confirmed', type: 'swap', txHash: executed.body.txHash })
    expect(swap.body.blockNumber).toBeGreaterThan(0)
    expect(await chain.balance(DEVNET_CHIADO_EURE, w.address)).toBe(usdcToEure(10_000_000n))
  }, 60_000)

  test('execute-solana, the alias, sends an EVM quote as execute does', async () => {
    const u = await f.user(tenant)
    const w = await custodial(u)
    const q = await quote(u, quoteBody(w.id, { fromToken: NATIVE, toToken: DEVNET_CHIADO_EURE, fromAmount: String(10n ** 17n) }))
    const executed = await api.post('/v1/swap/execute-solana', { quoteId: q.quoteId }, auth(u))
    expect(executed.status).toBe(201)
    expect(executed.body).toMatchObject({ type: 'swap', quoteId: q.quoteId })
    expect((await confirmed(u, executed.body.id)).body.status).toBe('confirmed')
    expect(await chain.balance(DEVNET_CHIADO_EURE, w.address)).toBe(BigInt(q.toAmount))
  }, 60_000)
})

describe('the devnet\'s gnosis is gnosis-chiado, a test network', () => {
  test('its wallets are testnet wallets; isTestnet quotes name chiado\'s chain id; a mainnet quote, a quote without isTestnet, or a testnet the sandbox does not serve answer 400', async () => {
    const u = await f.user(tenant)
    const w = await custodial(u, 10_000_000n)
    const view = await api.get(`/v1/wallets/${w.id}`, auth(u))
    expect(view.body).toMatchObject({ chain: 'gnosis', isTestnet: true })
    const q = await quote(u, quoteBody(w.id))
    expect(q).toMatchObject({ isTestnet: true, fromChainId: 10200, toChainId: 10200, fromToken: { symbol: 'USDC' }, toToken: { symbol: 'EURe' } })

    // the same wallet without isTestnet: the quote is a mainnet one, and the wallet is not on mainnet
    const mismatch = await api.post('/v1/swap/quote', { ...quoteBody(w.id), isTestnet: undefined }, auth(u))
    expect([mismatch.status, mismatch.body.message]).toEqual([400, 'Network mismatch: the wallet is on gnosis testnet and the swap starts on gnosis mainnet'])
    // a gnosis mainnet wallet: the sandbox quotes no mainnet, whatever the tokens
    const main = await api.post('/v1/wallets/', { chain: 'gnosis' }, auth(u))
    expect(main.body.isTestnet).toBe(false)
    const mainnet = await api.post('/v1/swap/quote', { ...quoteBody(main.body.id, { fromToken: NATIVE, toToken: '0xcB444e90D8198415266c6a2724b7900fb12FC56E', fromAmount: '1000' }), isTestnet: false }, auth(u))
    expect([mainnet.status, mainnet.body.code]).toEqual([400, 'SWAP_NO_ROUTE'])
    // a testnet the sandbox aggregator does not serve (Sepolia, 11155111)
    const sepolia = await api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, auth(u))
    const refused = await api.post('/v1/swap/quote', { ...quoteBody(sepolia.body.id), fromChain: 'ethereum', toChain: 'ethereum', fromToken: NATIVE }, auth(u))
    expect([refused.status, refused.body.message]).toEqual([400, 'Swaps on testnets are not supported for chain id 11155111: the aggregator supports the testnet chain ids 10200 (isTestnet: true)'])
  }, 60_000)
})

describe('a non-custodial wallet', () => {
  test('approve prepared, signed with viem, broadcast-approve; execute prepared, signed, broadcast; confirmed, balances moved', async () => {
    const u = await f.user(tenant)
    const account = privateKeyToAccount(generatePrivateKey())
    const w = await clientWallet(u, account)
    await giveChiadoGas(devnet.chiadoUrl, account.address, 10n ** 18n)
    await mint(DEVNET_CHIADO_USDC, account.address, 40_000_000n)
    const q = await quote(u, quoteBody(w.id))
    expect(q.needsApproval).toBe(true)

    const approval = await api.post('/v1/swap/approve', { walletId: w.id, tokenAddress: DEVNET_CHIADO_USDC, spenderAddress: q.approvalAddress, amount: '25000000' }, auth(u))
    expect(approval.status).toBe(201)
    expect(approval.body).toMatchObject({ type: 'approval', status: 'awaiting_signature', requiresClientSigning: true })
    expect(keccak256(approval.body.unsignedTransaction)).toBe(approval.body.signingHash)
    const approved = await api.post('/v1/swap/broadcast-approve', { transactionId: approval.body.preparedTransactionId, signature: await account.sign({ hash: approval.body.signingHash }) }, auth(u))
    expect(approved.status).toBe(200)
    expect(approved.body).toMatchObject({ id: approval.body.id, status: 'pending' })
    expect((await confirmed(u, approval.body.id)).body.status).toBe('confirmed')
    expect((await api.post('/v1/swap/check-allowance', { walletId: w.id, tokenAddress: DEVNET_CHIADO_USDC, spenderAddress: q.approvalAddress }, auth(u))).body.allowance).toBe('25000000')

    const prepared = await api.post('/v1/swap/execute', { quoteId: q.quoteId }, auth(u))
    expect(prepared.status).toBe(201)
    expect(prepared.body).toMatchObject({ type: 'swap', quoteId: q.quoteId, status: 'awaiting_signature', requiresClientSigning: true })
    expect(prepared.body.transaction).toMatchObject({ chainId: 10200, to: DEVNET_SWAP_ROUTER, data: q.transactionData.data })
    const sent = await api.post('/v1/swap/broadcast', { transactionId: prepared.body.preparedTransactionId, signedTransaction: await signPrepared(account, prepared.body) }, auth(u))
    expect(sent.status).toBe(200)
    const status = await confirmed(u, prepared.body.id)
    expect(status.body).toMatchObject({ status: 'confirmed', txHash: sent.body.txHash })
    expect(await chain.balance(DEVNET_CHIADO_USDC, account.address)).toBe(15_000_000n)
    expect(await chain.balance(DEVNET_CHIADO_EURE, account.address)).toBe(usdcToEure(25_000_000n))
    // broadcast once
    const again = await api.post('/v1/swap/broadcast', { transactionId: prepared.body.preparedTransactionId, signedTransaction: await signPrepared(account, prepared.body) }, auth(u))
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('PREPARED_TX_ALREADY_USED')
    const history = await api.get('/v1/transactions/', auth(u))
    expect(history.body.data.map((x: { type: string }) => x.type).sort()).toEqual(['approval', 'swap'])
  }, 60_000)
})

describe('Idempotency-Key on execute', () => {
  test('the same key sent 20 times at once: one send on chain, one swap record; the others 409 IDEMPOTENCY_IN_PROGRESS or the replay', async () => {
    const u = await f.user(tenant)
    const w = await custodial(u)
    await giveChiadoGas(devnet.chiadoUrl, w.address, 5n * 10n ** 18n)
    const q = await quote(u, quoteBody(w.id, { fromToken: NATIVE, toToken: DEVNET_CHIADO_USDC, fromAmount: String(10n ** 17n) }))
    const key = crypto.randomUUID()
    const answers = await Promise.all(Array.from({ length: 20 }, () => api.post('/v1/swap/execute', { quoteId: q.quoteId }, auth(u, { 'idempotency-key': key }))))
    const ran = answers.filter((a) => a.status === 201 && a.headers.get('idempotency-replayed') === 'false')
    expect(ran).toHaveLength(1)
    for (const a of answers) {
      if (a === ran[0]) continue
      if (a.status === 409) expect(a.body.details).toEqual({ code: 'IDEMPOTENCY_IN_PROGRESS' })
      else expect({ status: a.status, replayed: a.headers.get('idempotency-replayed'), id: a.body.id }).toEqual({ status: 201, replayed: 'true', id: ran[0]!.body.id })
    }
    expect((await confirmed(u, ran[0]!.body.id)).body.status).toBe('confirmed')
    const later = await api.post('/v1/swap/execute', { quoteId: q.quoteId }, auth(u, { 'idempotency-key': key }))
    expect({ status: later.status, replayed: later.headers.get('idempotency-replayed'), id: later.body.id }).toEqual({ status: 201, replayed: 'true', id: ran[0]!.body.id })
    await Bun.sleep(300)
    expect(await nonceOf(w.address)).toBe(1)
    expect(await chain.balance(DEVNET_CHIADO_USDC, w.address)).toBe(100_000n)
    expect((await api.get('/v1/transactions/', auth(u))).body.pagination.total).toBe(1)
  }, 60_000)

  test('across two processes sharing one database file: one send', async () => {
    // One app in this process and a real server process on the same SQLite file (two apps in one
    // process are not two processes: a connection waiting on the file's lock blocks the thread
    // the other needs), both with the devnet's settings and the embedded sandbox aggregator.
    const pdir = mkdtempSync(join(dir, 'processes-'))
    const env = { ...devnet.env, RPC_TIMEOUT_MS: '3000', JWT_SECRET: TEST_JWT_SECRET, MASTER_KEY: TEST_MASTER_KEY }
    const one = await makeApp({ clock: systemClock, env: { ...env, DATABASE_URL: `file:${join(pdir, 'slipway.db')}` } })
    const two = await startProcess([process.execPath, 'src/index.ts'], { dir: pdir, env })
    try {
      const a = new Api(one)
      const b = new Api(two.url)
      const f1 = new Factory(one, a)
      const u = await f1.user(await f1.tenant())
      const w = await custodial(u, 0n, a)
      await giveChiadoGas(devnet.chiadoUrl, w.address, 5n * 10n ** 18n)
      const q = await quote(u, quoteBody(w.id, { fromToken: NATIVE, toToken: DEVNET_CHIADO_USDC, fromAmount: String(10n ** 17n) }), a)
      const key = crypto.randomUUID()
      const call = (x: Api) => x.post('/v1/swap/execute', { quoteId: q.quoteId }, auth(u, { 'idempotency-key': key }))
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => call(i % 2 ? a : b)))
      const ran = answers.filter((r) => r.status === 201 && r.headers.get('idempotency-replayed') === 'false')
      expect(answers.map((r) => r.status).filter((s) => s !== 201 && s !== 409)).toEqual([])
      expect(ran).toHaveLength(1)
      for (const r of answers) if (r.status === 409) expect(r.body.details).toEqual({ code: 'IDEMPOTENCY_IN_PROGRESS' })
      for (const x of [a, b]) {
        const replay = await call(x)
        expect({ status: replay.status, replayed: replay.headers.get('idempotency-replayed'), id: replay.body.id }).toEqual({ status: 201, replayed: 'true', id: ran[0]!.body.id })
      }
      await waitFor(() => nonceOf(w.address), (n) => n >= 1)
      await Bun.sleep(300)
      expect(await nonceOf(w.address)).toBe(1)
      expect((await a.get('/v1/transactions/', auth(u))).body.pagination.total).toBe(1)
    } finally {
      await two.stop()
      await one.close()
    }
  }, 90_000)
})

describe('the broadcast routes', () => {
  /**
   * Client wallets with gas: an approval prepared on one, a swap and a send on the other (none
   * broadcast). Two wallets: each prepared transaction takes the chain's next nonce, so an
   * approval and a swap prepared together on one wallet share a nonce and only one of them can
   * ever be mined.
   */
  async function prepared() {
    const u = await f.user(tenant)
    const account = privateKeyToAccount(generatePrivateKey())
    const approver = privateKeyToAccount(generatePrivateKey())
    const w = await clientWallet(u, account)
    const aw = await clientWallet(u, approver)
    for (const a of [account, approver]) await giveChiadoGas(devnet.chiadoUrl, a.address, 2n * 10n ** 18n)
    const approval = await api.post('/v1/swap/approve', { walletId: aw.id, tokenAddress: DEVNET_CHIADO_USDC, spenderAddress: DEVNET_SWAP_ROUTER, amount: '1' }, auth(u))
    const q = await quote(u, quoteBody(w.id, { fromToken: NATIVE, toToken: DEVNET_CHIADO_USDC, fromAmount: String(10n ** 16n) }))
    const swap = await api.post('/v1/swap/execute', { quoteId: q.quoteId }, auth(u))
    const send = await api.post('/v1/transactions/', { walletId: w.id, chain: 'gnosis', toAddress: DEVNET_SWAP_ROUTER, amount: '1' }, auth(u))
    for (const r of [approval, swap, send]) expect(r.body.status).toBe('awaiting_signature')
    return { u, account, approver, approval: approval.body, swap: swap.body, send: send.body }
  }
  const sig = (account: PrivateKeyAccount, p: { signingHash: Hex }) => account.sign({ hash: p.signingHash })

  test('each accepts only its own record types; another user\'s or tenant\'s ids 404; garbage signatures 400', async () => {
    const { u, account, approver, approval, swap, send } = await prepared()
    // every call from its own client address: this test makes more calls than the limit allows one client
    let n = 0
    const auth = (who: SignedInUser) => ({ token: who.accessToken, headers: { 'x-forwarded-for': `198.51.100.${++n}` } })
    const post = (route: string, p: { preparedTransactionId: string; signingHash: Hex }, who = u) =>
      sig(p === approval ? approver : account, p).then((signature) => api.post(`/v1/swap/${route}`, { transactionId: p.preparedTransactionId, signature }, auth(who)))
    // broadcast-approve: approvals only; broadcast: swaps (and approvals), never a plain send
    for (const [route, p] of [['broadcast-approve', swap], ['broadcast-approve', send], ['broadcast', send]] as const) {
      const res = await post(route, p)
      expect({ route, status: res.status, code: res.body.code }).toEqual({ route, status: 404, code: 'PREPARED_TX_NOT_FOUND' })
    }
    // another user of the tenant, and a user of another tenant
    for (const who of [await f.user(tenant), await f.user(other)]) {
      for (const [route, p] of [['broadcast-approve', approval], ['broadcast', swap]] as const) {
        const res = await post(route, p, who)
        expect({ route, status: res.status, code: res.body.code }).toEqual({ route, status: 404, code: 'PREPARED_TX_NOT_FOUND' })
      }
    }
    for (const [route, p] of [['broadcast-approve', approval], ['broadcast', swap]] as const) {
      for (const body of [{ signature: '0x1234' }, { signature: 'zz' }, { signedTransaction: '0xdeadbeef' }, {}]) {
        const res = await api.post(`/v1/swap/${route}`, { transactionId: p.preparedTransactionId, ...body }, auth(u))
        expect({ route, body, status: res.status, code: res.body.code }).toEqual({ route, body, status: 400, code: 'SIGNATURE_DECODE_FAILED' })
      }
      expect((await api.post(`/v1/swap/${route}`, { transactionId: crypto.randomUUID(), signature: await sig(account, p) }, auth(u))).status).toBe(404)
      expect((await api.post(`/v1/swap/${route}`, { transactionId: 'nope', signature: await sig(account, p) }, auth(u))).status).toBe(404)
    }
    // all of that left both usable: each broadcasts once on its own route
    expect((await post('broadcast-approve', approval, u)).status).toBe(200)
    expect((await post('broadcast', swap, u)).status).toBe(200)
    expect((await confirmed(u, swap.id)).body.status).toBe('confirmed')
  }, 60_000)

  test('10 per 10 seconds per client: the 11th answers 429, on each route', async () => {
    const u = await f.user(tenant)
    for (const [route, ip] of [['broadcast', '203.0.113.10'], ['broadcast-approve', '203.0.113.11']] as const) {
      const statuses: number[] = []
      for (let i = 0; i < 11; i++) {
        const res = await api.post(`/v1/swap/${route}`, { transactionId: crypto.randomUUID(), signature: '0x1234' }, auth(u, { 'x-forwarded-for': ip }))
        statuses.push(res.status)
        if (i === 10) expect(res.headers.get('x-ratelimit-limit')).toBe('10')
      }
      expect({ route, statuses }).toEqual({ route, statuses: [...Array(10).fill(404), 429] })
      // another client is not limited by this one
      const elsewhere = await api.post(`/v1/swap/${route}`, { transactionId: crypto.randomUUID(), signature: '0x1234' }, auth(u, { 'x-forwarded-for': '203.0.113.99' }))
      expect(elsewhere.status).toBe(404)
    }
  })
})
