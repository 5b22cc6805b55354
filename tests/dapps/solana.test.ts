/**
 * The dApp helpers on Solana, against the Solana node the wallet and transaction tests use
 * (tests/fakes/solana-rpc.ts: LiteSVM behind JSON-RPC, which executes what it is sent): a
 * custodial wallet's message signature, and a transaction signed by the user's registered
 * non-custodial key broadcast once, executed and confirmed by the status job; one the SVM
 * refuses (a wrong account list, a missing token account) answers as the node's refusal.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { ed25519 } from '@noble/curves/ed25519'
import { base58 } from '@scure/base'
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js'
import { associatedTokenAddress } from '@/modules/transactions/families/solana'
import { RateLimiter } from '@/http/rate-limit'
import { systemClock } from '@/lib/clock'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startFakeSolana, type FakeSolana } from '@tests/fakes/solana-rpc'
import { waitFor } from '@tests/transactions/helpers'

let t: TestApp
let f: Factory
let tenant: Tenant
let sol: FakeSolana

beforeAll(async () => {
  sol = startFakeSolana()
  t = await makeApp({ clock: systemClock, jobs: true, env: { RPC_TIMEOUT_MS: '2000' } })
  f = new Factory(t)
  tenant = await f.tenant({ chains: { rpc: { solana: sol.url, 'solana-devnet': sol.url } } })
})
afterAll(async () => {
  await t.close()
  sol.stop()
})
beforeEach(() => {
  t.deps.rateLimiter = new RateLimiter(t.clock)
  sol.autoConfirm = true
})

const broadcast = (u: SignedInUser, body: Record<string, unknown>) => f.api.post('/v1/dapps/broadcast', body, { token: u.accessToken })
const stored = (u: SignedInUser, id: string) => f.api.get(`/v1/transactions/${id}`, { token: u.accessToken })
const settled = (u: SignedInUser, id: string) => waitFor(() => stored(u, id), (r) => r.body?.status !== 'pending')
const blockhash = () => sol.svm.latestBlockhash().blockhash
const USDC_SOLANA = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const TOKEN_PROGRAM = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')

/** TransferChecked of `amount` (6 decimals) with the accounts in the order given: source, mint, destination, owner. */
const transferChecked = (keys: PublicKey[], owner: PublicKey, amount: bigint) => {
  const data = Buffer.alloc(10)
  data[0] = 12
  data.writeBigUInt64LE(amount, 1)
  data[9] = 6
  return new TransactionInstruction({ programId: TOKEN_PROGRAM, data, keys: keys.map((pubkey) => ({ pubkey, isSigner: pubkey.equals(owner), isWritable: !pubkey.equals(owner) })) })
}

/** Registers `kp` as the user's non-custodial Solana wallet (`chain`: `solana` or `solana-devnet`). */
async function solanaClientWallet(u: SignedInUser, kp: Keypair, chain = 'solana') {
  const c = await f.api.get(`/v1/wallets/client/challenge?chain=${chain}&address=${kp.publicKey.toBase58()}`, { token: u.accessToken })
  expect(c.status).toBe(200)
  const signature = base58.encode(ed25519.sign(new TextEncoder().encode(c.body.message), kp.secretKey.slice(0, 32)))
  const res = await f.api.post('/v1/wallets/client', { challengeId: c.body.challengeId, signature }, { token: u.accessToken })
  expect(res.status).toBe(201)
  return res.body as { id: string; address: string }
}

describe('Solana personal messages', () => {
  test('a custodial Solana wallet signs with ed25519; a serialized transaction of that wallet is refused', async () => {
    const u = await f.user(tenant)
    const w = await f.api.post('/v1/wallets/', { chain: 'solana' }, { token: u.accessToken })
    expect(w.status).toBe(201)
    const message = `Sign in to example.com\nNonce: ${(await f.api.get('/v1/dapps/nonce', { token: u.accessToken })).body.nonce}`
    const res = await f.api.post('/v1/dapps/sign-personal-message', { walletId: w.body.id, message }, { token: u.accessToken })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ address: w.body.address, signingScheme: 'solana-ed25519', message })
    expect(ed25519.verify(base58.decode(res.body.signature), new TextEncoder().encode(message), new PublicKey(w.body.address).toBytes())).toBe(true)
    // the wallet's own transfer, as a v0 message: its signature would be the transaction's
    const drain = new TransactionMessage({
      payerKey: new PublicKey(w.body.address), recentBlockhash: blockhash(),
      instructions: [SystemProgram.transfer({ fromPubkey: new PublicKey(w.body.address), toPubkey: Keypair.generate().publicKey, lamports: 10n ** 9n })],
    }).compileToV0Message()
    const refused = await f.api.post('/v1/dapps/sign-personal-message', { walletId: w.body.id, message: Buffer.from(drain.serialize()).toString('base64') }, { token: u.accessToken })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ code: 'DAPP_MESSAGE_IS_TRANSACTION' })
    expect(refused.body.signature).toBeUndefined()
  })
})

describe('Solana broadcast of a client-signed transaction', () => {
  test('a transfer signed by the user\'s non-custodial key reaches the node once, is recorded as dapp with its amount, and confirms', async () => {
    const u = await f.user(tenant)
    const kp = Keypair.generate()
    const w = await solanaClientWallet(u, kp)
    sol.fund(kp.publicKey.toBase58(), 1_000_000_000n)
    const to = Keypair.generate().publicKey
    const height = sol.blockHeight
    const tx = new Transaction({ feePayer: kp.publicKey, blockhash: blockhash(), lastValidBlockHeight: height + 150 })
      .add(SystemProgram.transfer({ fromPubkey: kp.publicKey, toPubkey: to, lamports: 2_500_000 }))
    tx.sign(kp)
    const signed = tx.serialize().toString('base64')
    const res = await broadcast(u, { chain: 'solana', signedTransaction: signed })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ type: 'dapp', status: 'pending', walletId: w.id, fromAddress: kp.publicKey.toBase58(), chain: 'solana', isTestnet: false, network: 'solana', txHash: base58.encode(tx.signature!) })
    expect(sol.sent.map((s) => s.signature)).toEqual([res.body.txHash])
    expect(sol.lamports(to.toBase58())).toBe(2_500_000n)
    const done = await settled(u, res.body.id)
    expect(done.body).toMatchObject({
      type: 'dapp', status: 'confirmed', requiresClientSigning: true, amount: '2500000', toAddress: to.toBase58(), token: { address: null, symbol: 'SOL', decimals: 9 },
      metadata: { transactionType: 'legacy', lastValidBlockHeight: height + 150 },
    })
    const again = await broadcast(u, { chain: 'solana', signedTransaction: signed })
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ code: 'TRANSACTION_ALREADY_BROADCAST', details: { transactionId: res.body.id } })
    expect(sol.sent.filter((s) => s.signature === res.body.txHash)).toHaveLength(1)
  })

  test('a v0 transaction of a devnet wallet goes to devnet; named `solana`, the devnet-only wallet is found too', async () => {
    const u = await f.user(tenant)
    const kp = Keypair.generate()
    await solanaClientWallet(u, kp, 'solana-devnet')
    sol.fund(kp.publicKey.toBase58(), 1_000_000_000n)
    const v0 = (lamports: number) => {
      const vt = new VersionedTransaction(new TransactionMessage({
        payerKey: kp.publicKey, recentBlockhash: blockhash(),
        instructions: [SystemProgram.transfer({ fromPubkey: kp.publicKey, toPubkey: Keypair.generate().publicKey, lamports })],
      }).compileToV0Message())
      vt.sign([kp])
      return Buffer.from(vt.serialize()).toString('base64')
    }
    const res = await broadcast(u, { chain: 'solana-devnet', signedTransaction: v0(1_000_000) })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ isTestnet: true, network: 'solana-devnet' })
    expect(sol.sentVersioned.map((s) => s.signature)).toContain(res.body.txHash)
    expect((await settled(u, res.body.id)).body).toMatchObject({ status: 'confirmed', amount: '1000000', metadata: { transactionType: 'v0' } })
    const byFamily = await broadcast(u, { chain: 'solana', signedTransaction: v0(2_000_000) })
    expect(byFamily.status).toBe(201)
    expect(byFamily.body.network).toBe('solana-devnet')
  })

  test('the SVM refuses what mainnet refuses: a wrong account list, a recipient with no token account: 400 TRANSACTION_REJECTED with the node\'s reason, nothing moves; the right list goes through', async () => {
    const u = await f.user(tenant)
    const kp = Keypair.generate()
    await solanaClientWallet(u, kp)
    sol.fund(kp.publicKey.toBase58(), 1_000_000_000n)
    sol.mintTo(kp.publicKey.toBase58(), USDC_SOLANA, 10_000_000n)
    const mint = new PublicKey(USDC_SOLANA)
    const to = Keypair.generate().publicKey
    sol.mintTo(to.toBase58(), USDC_SOLANA, 1n)
    const [source, dest] = [associatedTokenAddress(kp.publicKey, mint), associatedTokenAddress(to, mint)]
    const signed = (ix: TransactionInstruction) => {
      const tx = new Transaction({ feePayer: kp.publicKey, blockhash: blockhash(), lastValidBlockHeight: sol.blockHeight + 150 }).add(ix)
      tx.sign(kp)
      return tx.serialize().toString('base64')
    }
    // the mint and the destination swapped
    const swapped = await broadcast(u, { chain: 'solana', signedTransaction: signed(transferChecked([source, dest, mint, kp.publicKey], kp.publicKey, 1_000_000n)) })
    expect(swapped.status).toBe(400)
    expect(swapped.body).toMatchObject({ code: 'TRANSACTION_REJECTED', message: expect.stringContaining('Error processing Instruction 0') })
    // a recipient without a token account, and no instruction creating it
    const stranger = Keypair.generate().publicKey
    const missing = await broadcast(u, { chain: 'solana', signedTransaction: signed(transferChecked([source, mint, associatedTokenAddress(stranger, mint), kp.publicKey], kp.publicKey, 1_000_000n)) })
    expect(missing.status).toBe(400)
    expect(missing.body).toMatchObject({ code: 'TRANSACTION_REJECTED', message: expect.stringContaining('Error processing Instruction 0') })
    expect([sol.tokenBalance(kp.publicKey.toBase58(), USDC_SOLANA), sol.tokenBalance(to.toBase58(), USDC_SOLANA), sol.tokenBalance(stranger.toBase58(), USDC_SOLANA)]).toEqual([10_000_000n, 1n, 0n])
    const right = await broadcast(u, { chain: 'solana', signedTransaction: signed(transferChecked([source, mint, dest, kp.publicKey], kp.publicKey, 1_000_000n)) })
    expect(right.status).toBe(201)
    expect([sol.tokenBalance(kp.publicKey.toBase58(), USDC_SOLANA), sol.tokenBalance(to.toBase58(), USDC_SOLANA)]).toEqual([9_000_000n, 1_000_001n])
    expect((await settled(u, right.body.id)).body.status).toBe('confirmed')
  })

  test('a transaction whose fee payer is not the caller\'s wallet answers 400 WRONG_SIGNER and reaches no node', async () => {
    const u = await f.user(tenant)
    await solanaClientWallet(u, Keypair.generate())
    const stranger = Keypair.generate()
    const tx = new Transaction({ feePayer: stranger.publicKey, blockhash: blockhash(), lastValidBlockHeight: 1 })
      .add(SystemProgram.transfer({ fromPubkey: stranger.publicKey, toPubkey: stranger.publicKey, lamports: 1 }))
    tx.sign(stranger)
    const before = sol.sent.length
    const res = await broadcast(u, { chain: 'solana', signedTransaction: tx.serialize().toString('base64') })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ error: 'BlockchainError', code: 'WRONG_SIGNER' })
    expect(sol.sent.length).toBe(before)
  })

  test('the node down answers 503', async () => {
    const u = await f.user(tenant)
    const kp = Keypair.generate()
    await solanaClientWallet(u, kp)
    const tx = new Transaction({ feePayer: kp.publicKey, blockhash: blockhash(), lastValidBlockHeight: 1 })
      .add(SystemProgram.transfer({ fromPubkey: kp.publicKey, toPubkey: kp.publicKey, lamports: 1 }))
    tx.sign(kp)
    sol.mode = 'error'
    try {
      const res = await broadcast(u, { chain: 'solana', signedTransaction: tx.serialize().toString('base64') })
      expect(res.status).toBe(503)
      expect(res.body.statusCode).toBe(503)
    } finally {
      sol.mode = 'ok'
    }
  })
})
