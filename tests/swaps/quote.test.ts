/**
 * POST /v1/swap/quote against the fake LI.FI server (tests/fakes/lifi.ts) and a local EVM
 * node posing as gnosis (chain id 100) with the test ERC-20 at the registry's EURe address.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ed25519 } from '@noble/curves/ed25519'
import { base58 } from '@scure/base'
import { Keypair, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js'
import { eq } from 'drizzle-orm'
import { swapQuotes } from '@/modules/swaps/schema'
import { parseEther } from 'viem'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { FAKE_OTHER_TOKEN, FakeLifi } from '@tests/fakes/lifi'
import { startFakeSolana, type FakeSolana } from '@tests/fakes/solana-rpc'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { custodialWallet } from '@tests/transactions/helpers'

const EURE = '0xcB444e90D8198415266c6a2724b7900fb12FC56E'
const USDC = '0xDDAfbb505ad214D7b80b1f830fcCc89B60fb7A83'
const ZERO = '0x0000000000000000000000000000000000000000'

let t: TestApp
let f: Factory
let tenant: Tenant
let other: Tenant
let node: LocalChain
let solana: FakeSolana
const lifi = new FakeLifi()

beforeAll(async () => {
  lifi.start()
  solana = startFakeSolana()
  lifi.solanaBlockhash = () => solana.svm.latestBlockhash().blockhash
  node = await startLocalChain({ chainId: 100 })
  await node.placeToken(EURE)
  t = await makeApp({ env: { LIFI_BASE_URL: lifi.baseUrl, SWAP_AGGREGATOR_TIMEOUT_MS: '2000', RPC_TIMEOUT_MS: '3000' } })
  f = new Factory(t)
  tenant = await f.tenant({ chains: { rpc: { gnosis: node.url, solana: solana.url } } })
  other = await f.tenant({ chains: { rpc: { gnosis: node.url } } })
}, 30_000)
afterAll(async () => {
  await t.close()
  await node.stop()
  lifi.stop()
  solana.stop()
})

const quote = (u: SignedInUser, body: Record<string, unknown>) => f.api.post('/v1/swap/quote', body, { token: u.accessToken })
async function setup() {
  const u = await f.user(tenant)
  const w = await custodialWallet(f.api, u, 'gnosis')
  return { u, w, body: { walletId: w.id, fromChain: 'gnosis', toChain: 'gnosis', fromToken: EURE, toToken: USDC, fromAmount: '1000000000000000000' } }
}

describe('POST /v1/swap/quote', () => {
  test('a same-chain quote pays the source wallet, forwards slippage / 100, and reads allowance, gas and balance from the chain', async () => {
    const { u, w, body } = await setup()
    await node.sendNative(w.address, parseEther('1'))
    lifi.mode = 'ok'
    const res = await quote(u, { ...body, slippage: 1 })
    expect(res.status).toBe(200)
    const sent = lifi.requests.at(-1)!.query
    expect(sent).toMatchObject({ fromChain: '100', toChain: '100', fromAddress: w.address, toAddress: w.address, slippage: '0.01', fromAmount: body.fromAmount })
    expect(res.body).toMatchObject({
      isTestnet: false, sourceChainType: 'evm', fromChain: 'gnosis', toChain: 'gnosis', fromChainId: 100, toChainId: 100,
      fromToken: { address: EURE, symbol: 'EURe', decimals: 18 }, toToken: { address: USDC, symbol: 'USDC', decimals: 6 },
      approvalAddress: '0x1231DEB6f5749EF6cE6943a275A1D3E7486F4EaE', needsApproval: true, estimatedGas: '200000',
      nativeTokenSymbol: 'xDAI', nativeTokenBalance: '1', sufficientBalance: true, requiresDestinationSignature: false,
      transactionData: { to: '0x1231DEB6f5749EF6cE6943a275A1D3E7486F4EaE', data: '0xdeadbeef', value: '0', gasLimit: '200000' },
    })
    expect(res.body.quoteId).toBe(lifi.requests.length ? res.body.quoteId : '')
    expect(BigInt(res.body.estimatedGasCostWei)).toBeGreaterThan(0n)
    expect(res.body.priceImpact).toBeUndefined()
    expect(res.body.gasless).toBeUndefined()
  })

  test('the zero address is the native coin: no approval address, needsApproval false', async () => {
    const { u, body } = await setup()
    const res = await quote(u, { ...body, fromToken: ZERO })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ fromToken: { address: ZERO, symbol: 'xDAI', decimals: 18 }, approvalAddress: null, needsApproval: false })
  })

  test('no other properties: a body with one more field answers 400 Request validation failed naming it', async () => {
    const { u, body } = await setup()
    const res = await quote(u, { ...body, extra: 1 })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Request validation failed')
    expect(res.body.details).toContainEqual(expect.objectContaining({ keyword: 'additionalProperties', params: { additionalProperty: 'extra' } }))
  })

  test('rule 4: isTestnet true answers 400: LI.FI supports no testnet chain ids, whether or not the wallet is a testnet one', async () => {
    // LIFI_BASE_URL wins over the sandbox aggregator, and LI.FI's endpoint names no testnet chain
    expect(t.deps.swapAggregatorEndpoint().testnetChainIds).toBeUndefined()
    const { u, body } = await setup()
    const testnetWallet = await f.api.post('/v1/wallets/', { chain: 'gnosis', isTestnet: true }, { token: u.accessToken })
    expect(testnetWallet.body.isTestnet).toBe(true)
    const asked = lifi.requests.length
    for (const walletId of [body.walletId, testnetWallet.body.id]) {
      const res = await quote(u, { ...body, walletId, isTestnet: true })
      expect([res.status, res.body.message]).toEqual([400, 'Swaps on testnets are not supported: the aggregator supports no testnet chain ids (isTestnet: true)'])
    }
    // refused before the aggregator is asked
    expect(lifi.requests.length).toBe(asked)
  })

  test('an unknown chain answers 400 Unsupported chain; a token not in the registry answers Token not found', async () => {
    const { u, body } = await setup()
    expect((await quote(u, { ...body, toChain: 'dogechain' })).body.message).toBe('Unsupported chain: dogechain')
    const missing = '0x1111111111111111111111111111111111111111'
    const res = await quote(u, { ...body, toToken: missing })
    expect(res.status).toBe(400)
    expect(res.body.message).toStartWith(`Token not found: ${missing} on gnosis mainnet.`)
  })

  test('a wallet on another chain answers Network mismatch', async () => {
    const { u, body } = await setup()
    const res = await quote(u, { ...body, fromChain: 'ethereum', fromToken: ZERO })
    expect(res.status).toBe(400)
    expect(res.body.message).toStartWith('Network mismatch: ')
  })

  test('another user\'s wallet and another tenant\'s wallet answer 404 Wallet not found', async () => {
    const { body } = await setup()
    const same = await f.user(tenant)
    const stranger = await f.user(other)
    for (const u of [same, stranger]) {
      const res = await quote(u, body)
      expect(res.status).toBe(404)
      expect(res.body.message).toBe('Wallet not found')
    }
  })

  test('aggregator answers: no route, refused, slow and down', async () => {
    const { u, body } = await setup()
    try {
      lifi.mode = 'no-route'
      const noRoute = await quote(u, body)
      expect(noRoute.status).toBe(400)
      expect(noRoute.body.message).toStartWith('No swap route found')
      lifi.mode = 'refused'
      const refused = await quote(u, body)
      expect(refused.status).toBe(400)
      expect(refused.body.message).toStartWith('Unable to get a swap quote')
      for (const mode of ['slow', 'server-error', 'garbage'] as const) {
        lifi.mode = mode
        const started = Date.now()
        const res = await quote(u, body)
        expect(res.status).toBe(503)
        expect(res.body.code ?? res.body.details?.code).toBe('SWAP_AGGREGATOR_UNAVAILABLE')
        // at the 2 s limit, long before a slow LI.FI's 10 s answer (the margin is for a busy machine)
        expect(Date.now() - started).toBeLessThan(7000)
      }
    } finally {
      lifi.mode = 'ok'
    }
  })

  test('an aggregator failure answers our own fixed text, never the aggregator\'s words; what it said is logged', async () => {
    const { u, body } = await setup()
    // what the fake LI.FI says in each mode (tests/fakes/lifi.ts), and what our adapter makes of it
    const theirs = ['Internal server error', 'Too many requests', 'Invalid fromAddress', 'No available quotes', 'HTTP 5', 'HTTP 4', 'rate limiting', 'unreadable', 'incomplete', 'missing', '1006', '1005', '1011']
    const cases = [
      ['server-error', 503, 'SWAP_AGGREGATOR_UNAVAILABLE', 'Internal server error'],
      ['rate-limited', 503, 'SWAP_AGGREGATOR_UNAVAILABLE', 'rate limiting'],
      ['garbage', 503, 'SWAP_AGGREGATOR_UNAVAILABLE', 'unreadable'],
      ['incomplete', 503, 'SWAP_AGGREGATOR_UNAVAILABLE', 'incomplete quote'],
      ['refused', 400, 'SWAP_QUOTE_REFUSED', 'Invalid fromAddress'],
      ['no-route', 400, 'SWAP_NO_ROUTE', 'No available quotes'],
    ] as const
    try {
      for (const [mode, status, code, said] of cases) {
        lifi.mode = mode
        const res = await quote(u, body)
        expect(res.status).toBe(status)
        expect(res.body.code).toBe(code)
        const text = JSON.stringify(res.body)
        for (const word of theirs) expect(text).not.toContain(word)
        if (status === 503) expect(res.body.message).toBe('Unable to get a swap quote: the swap aggregator is unavailable right now; try again shortly')
        t.deps.logger.flush()
        expect(t.logs.some((l) => l.includes('swap aggregator did not quote') && l.includes(said))).toBe(true)
      }
    } finally {
      lifi.mode = 'ok'
    }
  })

  test('rule 3: a route delivering another token answers 400 no direct route (SWAP_NO_DIRECT_ROUTE), naming both', async () => {
    const { u, body } = await setup()
    try {
      lifi.mode = 'other-token'
      const res = await quote(u, body)
      expect(res.status).toBe(400)
      expect(res.body.code ?? res.body.details?.code).toBe('SWAP_NO_DIRECT_ROUTE')
      expect(res.body.message).toStartWith('No direct route: the aggregator would deliver USDC.e')
      expect(res.body.message).toContain(FAKE_OTHER_TOKEN)
      expect(res.body.message).toContain(USDC)
      // a symbol that is prose, not a symbol: the aggregator's text stays out of the answer
      lifi.otherTokenSymbol = 'Call support at evil.example and quote your seed phrase'
      const prose = await quote(u, body)
      expect(prose.body.code).toBe('SWAP_NO_DIRECT_ROUTE')
      expect(prose.body.message).toBe(`No direct route: the aggregator would deliver another token (${FAKE_OTHER_TOKEN}) instead of ${USDC}`)
    } finally {
      lifi.mode = 'ok'
      lifi.otherTokenSymbol = 'USDC.e'
    }
  })

  test('rule 3: a route needing a signature on the destination chain (typed data, or a second transaction there) answers 400 no single-transaction route, not an outage', async () => {
    const { u, body } = await setup()
    const cross = { ...body, toChain: 'ethereum', toToken: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' }
    try {
      for (const mode of ['destination-signature', 'destination-transaction'] as const) {
        lifi.mode = mode
        const res = await quote(u, cross)
        expect({ mode, status: res.status, code: res.body.code ?? res.body.details?.code }).toEqual({ mode, status: 400, code: 'SWAP_NEEDS_DESTINATION_SIGNATURE' })
        expect(res.body.message).toBe('No single-transaction route: this route needs a second signature on the destination chain')
      }
      // typed data alone on a same-chain route is not one transaction either
      lifi.mode = 'destination-signature'
      const same = await quote(u, body)
      expect(same.status).toBe(400)
      expect(same.body.message).toBe('No single-transaction route: this route is a message to sign, not a transaction')
    } finally {
      lifi.mode = 'ok'
    }
  })

  test('rule 2: a cross-chain quote to Solana without toAddress creates the user\'s Solana wallet', async () => {
    const { u, body } = await setup()
    const before = await f.api.get('/v1/wallets/?limit=100', { token: u.accessToken })
    expect(before.body.data.some((w: { chain: string }) => w.chain === 'solana')).toBe(false)
    const res = await quote(u, { ...body, toChain: 'solana', toToken: 'So11111111111111111111111111111111111111112' })
    const after = await f.api.get('/v1/wallets/?limit=100', { token: u.accessToken })
    const sol = after.body.data.find((w: { chain: string }) => w.chain === 'solana')
    expect(sol).toBeDefined()
    expect(lifi.requests.at(-1)!.query).toMatchObject({ toChain: '1151111081099710', toAddress: sol.address })
    // the fake delivers the token asked for, so the quote goes through
    expect(res.status).toBe(200)
    expect(res.body.toChainId).toBe(1399811149)
  })
})

describe('POST /v1/swap/execute (fake aggregator: its calldata `0xdeadbeef` to an address without code, not a real swap)', () => {
  test('a custodial execute sends the quote\'s transaction, recorded as a swap that confirms; an unknown quote answers 404', async () => {
    const { u, w, body } = await setup()
    await node.sendNative(w.address, parseEther('1'))
    const q = await quote(u, { ...body, fromToken: ZERO, fromAmount: '0' })
    expect(q.status).toBe(200)
    const res = await f.api.post('/v1/swap/execute', { quoteId: q.body.quoteId }, { token: u.accessToken })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ status: 'pending', type: 'swap', quoteId: q.body.quoteId, requiresClientSigning: false })
    const status = await f.api.get(`/v1/transactions/${res.body.id}/status`, { token: u.accessToken })
    expect(status.body.status).toBe('confirmed')
    const stored = await f.api.get(`/v1/transactions/${res.body.id}`, { token: u.accessToken })
    expect(stored.body).toMatchObject({ type: 'swap', quoteId: q.body.quoteId, toAddress: w.address })
    const stranger = await f.user(other)
    expect((await f.api.post('/v1/swap/execute', { quoteId: q.body.quoteId }, { token: stranger.accessToken })).status).toBe(404)
  })
})

describe('Solana sources: execute and its alias execute-solana', () => {
  test('a custodial Solana wallet: the aggregator\'s versioned transaction signed with its key, sent once, recorded as a swap that confirms; on both routes', async () => {
    const u = await f.user(tenant)
    const sol = await f.api.post('/v1/wallets/', { chain: 'solana' }, { token: u.accessToken })
    expect(sol.status).toBe(201)
    solana.fund(sol.body.address, 10n ** 10n)
    const body = { walletId: sol.body.id, fromChain: 'solana', toChain: 'solana', fromToken: 'So11111111111111111111111111111111111111112', toToken: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', fromAmount: '1000000' }
    for (const path of ['/v1/swap/execute', '/v1/swap/execute-solana']) {
      const q = await quote(u, body)
      expect(q.status).toBe(200)
      expect(q.body).toMatchObject({ sourceChainType: 'solana', fromChainId: 1399811149, approvalAddress: null, needsApproval: false })
      const res = await f.api.post(path, { quoteId: q.body.quoteId }, { token: u.accessToken, headers: { 'idempotency-key': crypto.randomUUID() } })
      expect({ path, status: res.status }).toEqual({ path, status: 201 })
      expect(res.body).toMatchObject({ type: 'swap', quoteId: q.body.quoteId, status: 'pending', requiresClientSigning: false, chain: 'solana' })
      const got = solana.sentVersioned.find((x) => x.signature === res.body.txHash)
      expect(got).toBeDefined()
      // the aggregator's message unchanged, signed by the wallet, executed on the SVM
      expect(solana.svm.statuses.get(res.body.txHash)).toMatchObject({ err: null })
      expect(Buffer.from(got!.tx.message.serialize()).toString('base64')).toBe(Buffer.from(VersionedTransaction.deserialize(Buffer.from(q.body.transactionData.data, 'base64')).message.serialize()).toString('base64'))
      expect(got!.tx.message.staticAccountKeys[0]!.toBase58()).toBe(sol.body.address)
      const status = await f.api.get(`/v1/transactions/${res.body.id}/status`, { token: u.accessToken })
      expect(status.body.status).toBe('confirmed')
      const stored = await f.api.get(`/v1/transactions/${res.body.id}`, { token: u.accessToken })
      expect(stored.body).toMatchObject({ type: 'swap', quoteId: q.body.quoteId, chain: 'solana', amount: '1000000', token: { address: null, symbol: 'SOL' } })
    }
    expect(solana.sentVersioned.filter((x) => x.tx.message.staticAccountKeys[0]!.toBase58() === sol.body.address)).toHaveLength(2)
    const unknown = await f.api.post('/v1/swap/execute-solana', { quoteId: 'no-such-quote' }, { token: u.accessToken })
    expect(unknown.status).toBe(404)
  })

  test('a transaction whose fee payer is not the wallet, or that is not a Solana transaction, is refused before anything is signed or recorded', async () => {
    const u = await f.user(tenant)
    const sol = await f.api.post('/v1/wallets/', { chain: 'solana' }, { token: u.accessToken })
    solana.fund(sol.body.address, 10n ** 10n)
    const q = await quote(u, { walletId: sol.body.id, fromChain: 'solana', toChain: 'solana', fromToken: 'So11111111111111111111111111111111111111112', toToken: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', fromAmount: '1000000' })
    expect(q.status).toBe(200)
    const sent = solana.sentVersioned.length
    const stranger = Keypair.generate().publicKey
    const other = new TransactionMessage({ payerKey: stranger, recentBlockhash: Keypair.generate().publicKey.toBase58(), instructions: [SystemProgram.transfer({ fromPubkey: stranger, toPubkey: stranger, lamports: 1 })] }).compileToV0Message()
    for (const [data, code] of [[Buffer.from(new VersionedTransaction(other).serialize()).toString('base64'), 'SOLANA_CALL_WRONG_PAYER'], ['bm90IGEgdHJhbnNhY3Rpb24=', 'SOLANA_CALL_UNREADABLE']] as const) {
      await t.deps.database.write((tx) => tx.update(swapQuotes).set({ transaction: { to: '', data, value: '0', gasLimit: null } }).where(eq(swapQuotes.id, q.body.quoteId)))
      const res = await f.api.post('/v1/swap/execute', { quoteId: q.body.quoteId }, { token: u.accessToken })
      expect({ status: res.status, code: res.body.code ?? res.body.details?.code }).toEqual({ status: 400, code })
    }
    expect(solana.sentVersioned.length).toBe(sent)
    expect((await f.api.get('/v1/transactions/', { token: u.accessToken })).body.pagination.total).toBe(0)
  })

  test('a non-custodial Solana wallet: prepared on both routes, signed here, broadcast once; a signature by another key is refused', async () => {
    const u = await f.user(tenant)
    const kp = Keypair.generate()
    const c = await f.api.get(`/v1/wallets/client/challenge?chain=solana&address=${kp.publicKey.toBase58()}`, { token: u.accessToken })
    const reg = await f.api.post('/v1/wallets/client', { challengeId: c.body.challengeId, signature: base58.encode(ed25519.sign(new TextEncoder().encode(c.body.message), kp.secretKey.slice(0, 32))) }, { token: u.accessToken })
    expect(reg.status).toBe(201)
    solana.fund(kp.publicKey.toBase58(), 10n ** 10n)
    for (const path of ['/v1/swap/execute', '/v1/swap/execute-solana']) {
      const q = await quote(u, { walletId: reg.body.id, fromChain: 'solana', toChain: 'solana', fromToken: 'So11111111111111111111111111111111111111112', toToken: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', fromAmount: '1000000' })
      expect(q.status).toBe(200)
      const res = await f.api.post(path, { quoteId: q.body.quoteId }, { token: u.accessToken })
      expect({ path, status: res.status }).toEqual({ path, status: 201 })
      expect(res.body).toMatchObject({ type: 'swap', status: 'awaiting_signature', requiresClientSigning: true, txHash: null, signingScheme: 'solana-ed25519-message', chain: 'solana' })
      // what to sign is the aggregator's message, unchanged
      const aggregator = VersionedTransaction.deserialize(Buffer.from(q.body.transactionData.data, 'base64'))
      expect(res.body.message).toBe(Buffer.from(aggregator.message.serialize()).toString('base64'))
      const sentBefore = solana.sentVersioned.length
      const stranger = Keypair.generate()
      const wrong = await f.api.post('/v1/swap/broadcast', { transactionId: res.body.preparedTransactionId, signature: base58.encode(ed25519.sign(Buffer.from(res.body.message, 'base64'), stranger.secretKey.slice(0, 32))) }, { token: u.accessToken })
      expect({ status: wrong.status, code: wrong.body.code }).toEqual({ status: 400, code: 'WRONG_SIGNER' })
      const sig = ed25519.sign(Buffer.from(res.body.message, 'base64'), kp.secretKey.slice(0, 32))
      const sent = await f.api.post('/v1/swap/broadcast', { transactionId: res.body.preparedTransactionId, signature: base58.encode(sig) }, { token: u.accessToken })
      expect(sent.status).toBe(200)
      expect(sent.body).toMatchObject({ id: res.body.id, status: 'pending', txHash: base58.encode(sig) })
      expect(solana.sentVersioned.length).toBe(sentBefore + 1)
      expect(solana.sentVersioned.at(-1)!.signature).toBe(base58.encode(sig))
      const again = await f.api.post('/v1/swap/broadcast', { transactionId: res.body.preparedTransactionId, signature: base58.encode(sig) }, { token: u.accessToken })
      expect(again.status).toBe(409)
      const status = await f.api.get(`/v1/transactions/${res.body.id}/status`, { token: u.accessToken })
      expect(status.body.status).toBe('confirmed')
    }
  })

  test('execute and execute-solana are one operation: one Idempotency-Key sent to both sends once', async () => {
    const u = await f.user(tenant)
    const sol = await f.api.post('/v1/wallets/', { chain: 'solana' }, { token: u.accessToken })
    solana.fund(sol.body.address, 10n ** 10n)
    const q = await quote(u, { walletId: sol.body.id, fromChain: 'solana', toChain: 'solana', fromToken: 'So11111111111111111111111111111111111111112', toToken: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', fromAmount: '1000000' })
    const key = { 'idempotency-key': crypto.randomUUID() }
    const first = await f.api.post('/v1/swap/execute', { quoteId: q.body.quoteId }, { token: u.accessToken, headers: key })
    expect(first.status).toBe(201)
    const second = await f.api.post('/v1/swap/execute-solana', { quoteId: q.body.quoteId }, { token: u.accessToken, headers: key })
    expect(second.status).toBe(201)
    expect(second.headers.get('idempotency-replayed')).toBe('true')
    expect(second.body.id).toBe(first.body.id)
    expect(solana.sentVersioned.filter((x) => x.tx.message.staticAccountKeys[0]!.toBase58() === sol.body.address)).toHaveLength(1)
    expect((await f.api.get('/v1/transactions/', { token: u.accessToken })).body.pagination.total).toBe(1)
  })
})
