import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { ed25519 } from '@noble/curves/ed25519'
import { base58, base64 } from '@scure/base'
import { Keypair, PublicKey, SystemInstruction, SystemProgram } from '@solana/web3.js'
import { eq } from 'drizzle-orm'
import { RateLimiter } from '@/http/rate-limit'
import { systemClock } from '@/lib/clock'
import { associatedTokenAddress } from '@/modules/transactions/families/solana'
import { transactions } from '@/modules/transactions/schema'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startFakeSolana, type FakeSolana } from '@tests/fakes/solana-rpc'
import { waitFor } from './helpers'

const USDC_SOLANA = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'

let t: TestApp
let f: Factory
let tenant: Tenant
let sol: FakeSolana

beforeAll(async () => {
  sol = startFakeSolana()
  t = await makeApp({ clock: systemClock, jobs: true, env: { RPC_TIMEOUT_MS: '2000' } })
  f = new Factory(t)
  tenant = await f.tenant({ chains: { rpc: { solana: sol.url } } })
})
afterAll(async () => {
  await t.close()
  sol.stop()
})
beforeEach(() => {
  t.deps.rateLimiter = new RateLimiter(t.clock)
  sol.autoConfirm = true
})

const send = (u: SignedInUser, body: Record<string, unknown>) => f.api.post('/v1/transactions/', body, { token: u.accessToken })
const stored = (u: SignedInUser, id: string) => f.api.get(`/v1/transactions/${id}`, { token: u.accessToken })
const settled = (u: SignedInUser, id: string) => waitFor(() => stored(u, id), (r) => r.body?.status !== 'pending')

/** A custodial Solana wallet given 10 SOL (an airdrop) and 100 USDC (minted to its associated token account) on the SVM. */
async function solWallet(u: SignedInUser, lamports = 10_000_000_000n, usdc = 100_000_000n) {
  const res = await f.api.post('/v1/wallets/', { chain: 'solana' }, { token: u.accessToken })
  expect(res.status).toBe(201)
  if (lamports > 0n) sol.fund(res.body.address, lamports)
  if (usdc > 0n) sol.mintTo(res.body.address, USDC_SOLANA, usdc)
  return res.body as { id: string; address: string }
}

/** The rent-exempt minimum of a token account (165 bytes), as the SVM charges it. */
const ataRent = () => sol.svm.svm.minimumBalanceForRentExemption(165n)

describe('custodial Solana sends (on LiteSVM behind JSON-RPC)', () => {
  test('three sends at once from a wallet that can afford one: one is sent, two answer 400 INSUFFICIENT_BALANCE', async () => {
    const u = await f.user(tenant)
    const w = await solWallet(u, 2_000_000_000n)
    const one = () => send(u, { walletId: w.id, chain: 'solana', toAddress: Keypair.generate().publicKey.toBase58(), amount: '1500000000' })
    const res = await Promise.all([one(), one(), one()])
    expect(res.map((r) => r.status).sort()).toEqual([201, 400, 400])
    for (const r of res.filter((x) => x.status === 400)) expect(r.body.code).toBe('INSUFFICIENT_BALANCE')
    // the SOL send landed on the SVM at once, but until the status job confirms it, it is counted
    // both in the balance and in flight (refusing errs safe): the token round waits for it
    await settled(u, res.find((r) => r.status === 201)!.body.id)
    // the same for the token: 100 USDC, three sends of 60
    const token = () => send(u, { walletId: w.id, chain: 'solana', toAddress: Keypair.generate().publicKey.toBase58(), amount: '60000000', tokenAddress: USDC_SOLANA })
    const tokens = await Promise.all([token(), token(), token()])
    expect(tokens.map((r) => r.status).sort()).toEqual([201, 400, 400])
  })

  test('native SOL: a signed System transfer executes on the SVM (the recipient gets the amount, the sender pays it and a 5000-lamport fee) and the job confirms it', async () => {
    const u = await f.user(tenant)
    const w = await solWallet(u)
    const to = Keypair.generate().publicKey.toBase58()
    const before = sol.lamports(w.address)
    const res = await send(u, { walletId: w.id, chain: 'solana', toAddress: to, amount: '1500000000' })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ status: 'pending', requiresClientSigning: false })
    const got = sol.sent.find((s) => s.signature === res.body.txHash)!
    expect(got.tx.feePayer!.toBase58()).toBe(w.address)
    const ix = SystemInstruction.decodeTransfer(got.tx.instructions[0]!)
    expect(ix.toPubkey.toBase58()).toBe(to)
    expect(BigInt(ix.lamports)).toBe(1_500_000_000n)
    expect(sol.lamports(to)).toBe(1_500_000_000n)
    expect(before - sol.lamports(w.address)).toBe(1_500_000_000n + 5000n)
    const done = await settled(u, res.body.id)
    expect(done.body).toMatchObject({ status: 'confirmed', token: { address: null, symbol: 'SOL', decimals: 9 } })
    expect(done.body.blockNumber).toBe(sol.svm.statuses.get(res.body.txHash)!.slot)
    const status = await f.api.get(`/v1/transactions/${res.body.id}/status`, { token: u.accessToken })
    expect(status.body).toMatchObject({ status: 'confirmed', confirmations: 32 })
    expect(Math.abs(Date.parse(status.body.blockTimestamp) - Date.now())).toBeLessThan(60_000)
  })

  test('SPL token: TransferChecked between the associated token accounts, creating the recipient\'s if needed', async () => {
    const u = await f.user(tenant)
    const w = await solWallet(u)
    const to = Keypair.generate().publicKey
    const res = await send(u, { walletId: w.id, chain: 'solana', toAddress: to.toBase58(), amount: '2500000', tokenAddress: USDC_SOLANA })
    expect(res.status).toBe(201)
    const got = sol.sent.find((s) => s.signature === res.body.txHash)!
    const [create, transfer] = got.tx.instructions
    const mint = new PublicKey(USDC_SOLANA)
    expect(create!.keys[1]!.pubkey.toBase58()).toBe(associatedTokenAddress(to, mint).toBase58())
    expect(transfer!.programId.toBase58()).toBe(TOKEN_PROGRAM)
    expect(transfer!.data[0]).toBe(12)
    expect(transfer!.data.readBigUInt64LE(1)).toBe(2_500_000n)
    expect(transfer!.data[9]).toBe(6)
    expect(transfer!.keys[0]!.pubkey.toBase58()).toBe(associatedTokenAddress(new PublicKey(w.address), mint).toBase58())
    expect((await settled(u, res.body.id)).body).toMatchObject({ status: 'confirmed', token: { address: USDC_SOLANA, symbol: 'USDC', decimals: 6 } })
  })

  test('SPL token to an address with no token account: the SVM creates its associated token account in the same transaction and credits the amount; the sender pays the fee and the account\'s rent', async () => {
    const u = await f.user(tenant)
    const w = await solWallet(u)
    const to = Keypair.generate().publicKey
    const ata = associatedTokenAddress(to, new PublicKey(USDC_SOLANA)).toBase58()
    expect(sol.svm.svm.getAccount(ata as never).exists).toBe(false)
    const [lamportsBefore, usdcBefore] = [sol.lamports(w.address), sol.tokenBalance(w.address, USDC_SOLANA)]
    const res = await send(u, { walletId: w.id, chain: 'solana', toAddress: to.toBase58(), amount: '2500000', tokenAddress: USDC_SOLANA })
    expect(res.status).toBe(201)
    expect(sol.svm.statuses.get(res.body.txHash)).toMatchObject({ err: null })
    expect(sol.tokenBalance(to.toBase58(), USDC_SOLANA)).toBe(2_500_000n)
    expect(sol.svm.tokenAccounts(to.toBase58(), USDC_SOLANA).map((a) => a.pubkey)).toEqual([ata])
    expect(usdcBefore - sol.tokenBalance(w.address, USDC_SOLANA)).toBe(2_500_000n)
    expect(lamportsBefore - sol.lamports(w.address)).toBe(5000n + ataRent())
    // the wallet's balance route reads the SVM's accounts
    const bal = await f.api.get(`/v1/wallets/${w.id}/balance`, { token: u.accessToken })
    expect(bal.body.tokens.find((x: { symbol: string }) => x.symbol === 'USDC')).toMatchObject({ rawBalance: '97500000' })
    expect(bal.body.nativeBalance.rawBalance).toBe(sol.lamports(w.address).toString())
    // a second send to it: the account exists, the idempotent create costs nothing more than the fee
    const again = await send(u, { walletId: w.id, chain: 'solana', toAddress: to.toBase58(), amount: '500000', tokenAddress: USDC_SOLANA })
    expect(again.status).toBe(201)
    expect(sol.tokenBalance(to.toBase58(), USDC_SOLANA)).toBe(3_000_000n)
    expect(lamportsBefore - sol.lamports(w.address)).toBe(10_000n + ataRent())
    expect((await settled(u, again.body.id)).body.status).toBe('confirmed')
  })

  test('a fee payer with no SOL, or too little for the new token account\'s rent, is refused by the node\'s preflight: 400 TRANSACTION_REJECTED with the node\'s reason, recorded failed, nothing moves', async () => {
    const u = await f.user(tenant)
    // no SOL at all: the fee payer's account does not exist
    const broke = await solWallet(u, 0n)
    const to = Keypair.generate().publicKey.toBase58()
    const res = await send(u, { walletId: broke.id, chain: 'solana', toAddress: to, amount: '1000000', tokenAddress: USDC_SOLANA })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: 'TRANSACTION_REJECTED', message: expect.stringContaining('Attempt to debit an account but found no record of a prior credit') })
    const history = (await f.api.get('/v1/transactions/', { token: u.accessToken })).body.data as Array<{ status: string; failureReason: string }>
    expect(history[0]).toMatchObject({ status: 'failed', failureReason: expect.stringContaining('not submitted') })
    // enough for the fee, not for the recipient's token account (2039280 lamports of rent)
    const poor = await solWallet(u, 1_000_000n)
    const short = await send(u, { walletId: poor.id, chain: 'solana', toAddress: to, amount: '1000000', tokenAddress: USDC_SOLANA })
    expect(short.status).toBe(400)
    expect(short.body).toMatchObject({ code: 'TRANSACTION_REJECTED', message: expect.stringContaining('Error processing Instruction 0: custom program error: 0x1') })
    expect([sol.lamports(poor.address), sol.tokenBalance(poor.address, USDC_SOLANA), sol.tokenBalance(to, USDC_SOLANA)]).toEqual([1_000_000n, 100_000_000n, 0n])
    // all of its SOL: the amount passes Slipway's check, the fee does not fit on the SVM
    const all = await send(u, { walletId: poor.id, chain: 'solana', toAddress: to, amount: '1000000' })
    expect(all.status).toBe(400)
    expect(all.body.code).toBe('TRANSACTION_REJECTED')
    expect(sol.lamports(poor.address)).toBe(1_000_000n)
  })

  test('a transaction whose blockhash expires unconfirmed is marked failed', async () => {
    const u = await f.user(tenant)
    const w = await solWallet(u)
    sol.autoConfirm = false
    const to = Keypair.generate().publicKey.toBase58()
    const res = await send(u, { walletId: w.id, chain: 'solana', toAddress: to, amount: '1000000' })
    expect(res.status).toBe(201)
    // taken, never included: 151 blocks pass and its blockhash is no longer valid
    sol.svm.advance(151)
    const done = await settled(u, res.body.id)
    expect(done.body.status).toBe('failed')
    expect(done.body.failureReason).toContain('blockhash expired')
    expect(sol.lamports(to)).toBe(0n)
    // the same signed bytes sent now: the node refuses its expired blockhash
    sol.autoConfirm = true
    const raw = (await t.deps.database.db.select({ rawTx: transactions.rawTx }).from(transactions).where(eq(transactions.id, res.body.id)).get())!.rawTx!
    const late = await fetch(sol.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [raw, { encoding: 'base64' }] }) })
    expect(((await late.json()) as { error: { message: string } }).error.message).toContain('Blockhash not found')
  })

  test('the fee quote is the network\'s fee for the message', async () => {
    const u = await f.user(tenant)
    const w = await solWallet(u)
    const res = await f.api.post('/v1/transactions/quote', { walletId: w.id, chain: 'solana', toAddress: w.address, amount: '1' }, { token: u.accessToken })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ chain: 'solana', estimatedGas: null, estimatedFee: '5000', estimatedFeeNative: '0.000005', nativeTokenSymbol: 'SOL' })
  })
})

describe('non-custodial Solana sends', () => {
  test('the client signs the message with ed25519; broadcast submits it once; another key is WRONG_SIGNER', async () => {
    const u = await f.user(tenant)
    const kp = Keypair.generate()
    const c = await f.api.get(`/v1/wallets/client/challenge?chain=solana&address=${kp.publicKey.toBase58()}`, { token: u.accessToken })
    const reg = await f.api.post('/v1/wallets/client', { challengeId: c.body.challengeId, signature: base58.encode(ed25519.sign(new TextEncoder().encode(c.body.message), kp.secretKey.slice(0, 32))) }, { token: u.accessToken })
    expect(reg.status).toBe(201)
    sol.fund(kp.publicKey.toBase58(), 1_000_000_000n)
    const to = Keypair.generate().publicKey.toBase58()
    const p = await send(u, { walletId: reg.body.id, chain: 'solana', toAddress: to, amount: '1000000' })
    expect(p.status).toBe(201)
    expect(p.body).toMatchObject({ requiresClientSigning: true, txHash: null, signingScheme: 'solana-ed25519-message' })
    const message = base64.decode(p.body.message)
    const stranger = Keypair.generate()
    const wrong = await f.api.post(`/v1/transactions/${p.body.preparedTransactionId}/broadcast`, { signature: base58.encode(ed25519.sign(message, stranger.secretKey.slice(0, 32))) }, { token: u.accessToken })
    expect(wrong.status).toBe(400)
    expect(wrong.body.code).toBe('WRONG_SIGNER')
    const bad = await f.api.post(`/v1/transactions/${p.body.preparedTransactionId}/broadcast`, { signature: 'abc' }, { token: u.accessToken })
    expect(bad.body.code).toBe('SIGNATURE_DECODE_FAILED')
    const signature = base64.encode(ed25519.sign(message, kp.secretKey.slice(0, 32)))
    const ok = await f.api.post(`/v1/transactions/${p.body.preparedTransactionId}/broadcast`, { signature }, { token: u.accessToken })
    expect(ok.status).toBe(200)
    expect(ok.body.txHash).toBe(base58.encode(base64.decode(signature)))
    const got = sol.sent.find((s) => s.signature === ok.body.txHash)!
    expect(SystemInstruction.decodeTransfer(got.tx.instructions[0]!).toPubkey.toBase58()).toBe(to)
    expect(got.tx.instructions[0]!.programId.equals(SystemProgram.programId)).toBe(true)
    const again = await f.api.post(`/v1/transactions/${p.body.preparedTransactionId}/broadcast`, { signature }, { token: u.accessToken })
    expect(again.status).toBe(409)
    expect((await settled(u, p.body.id)).body.status).toBe('confirmed')
    expect(sol.lamports(to)).toBe(1_000_000n)
  })
})
