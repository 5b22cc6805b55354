/**
 * The dApp helpers in process (app.handle): nonces, personal-message signing and what it
 * refuses, wallet checks, and the broadcast route's refusals that need no node. Signing over
 * a local EVM node and the broadcast that confirms are in e2e.test.ts; Solana in solana.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { ed25519 } from '@noble/curves/ed25519'
import { base58 } from '@scure/base'
import { Keypair, SystemProgram, Transaction } from '@solana/web3.js'
import { eq } from 'drizzle-orm'
import { bytesToHex, keccak256, parseSignature, serializeTransaction, toHex, verifyMessage, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { dappNonces } from '@/modules/dapps/schema'
import { transactions } from '@/modules/transactions/schema'
import { wallets } from '@/modules/wallets/schema'
import { RateLimiter } from '@/http/rate-limit'
import { makeApp, ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { clientWallet, custodialWallet } from '@tests/transactions/helpers'

/** A port where nothing listens: the broadcast route's RPC is down. */
const NOWHERE = 'http://127.0.0.1:9'

let t: TestApp
let f: Factory
let tenant: Tenant
let other: Tenant

beforeAll(async () => {
  t = await makeApp({ env: { RPC_TIMEOUT_MS: '1500', RPC_URL_SEPOLIA: NOWHERE, RPC_URL_ETHEREUM: NOWHERE } })
  f = new Factory(t)
  tenant = await f.tenant()
  other = await f.tenant()
})
afterAll(() => t.close())
beforeEach(() => {
  t.deps.rateLimiter = new RateLimiter(t.clock)
})

const clock = () => t.clock as ManualClock
const nonceOf = (u: SignedInUser) => f.api.get('/v1/dapps/nonce', { token: u.accessToken })
const sign = (u: SignedInUser, body: Record<string, unknown>) => f.api.post('/v1/dapps/sign-personal-message', body, { token: u.accessToken })
const broadcast = (u: SignedInUser, body: Record<string, unknown>) => f.api.post('/v1/dapps/broadcast', body, { token: u.accessToken })
const siwe = (address: string, nonce: string) =>
  `app.example.com wants you to sign in with your Ethereum account:\n${address}\n\nSign in to Example.\n\nURI: https://app.example.com\nVersion: 1\nChain ID: 1\nNonce: ${nonce}\nIssued At: ${new Date(t.clock.now()).toISOString()}`

describe('GET /v1/dapps/nonce', () => {
  test('answers 32 hex characters valid 10 minutes, not cacheable, and stores only its SHA-256', async () => {
    const u = await f.user(tenant)
    const res = await nonceOf(u)
    expect(res.status).toBe(200)
    expect(res.body.nonce).toMatch(/^[0-9a-f]{32}$/)
    expect(new Date(res.body.expiresAt).getTime() - new Date(res.body.issuedAt).getTime()).toBe(10 * 60_000)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const rows = await t.deps.database.db.select().from(dappNonces).where(eq(dappNonces.userId, u.id))
    expect(rows).toHaveLength(1)
    expect(rows[0]!.nonceHash).toBe(createHash('sha256').update(res.body.nonce).digest('hex'))
    expect(JSON.stringify(rows)).not.toContain(res.body.nonce)
    expect((await nonceOf(u)).body.nonce).not.toBe(res.body.nonce)
  })

  test('needs a bearer token; a platform admin (no tenant) answers 403', async () => {
    expect((await f.api.get('/v1/dapps/nonce')).status).toBe(401)
    const admin = await f.api.get('/v1/dapps/nonce', { token: await f.adminToken() })
    expect(admin.status).toBe(403)
    expect(admin.body).toMatchObject({ statusCode: 403, error: 'ForbiddenError' })
  })

  test('issuing forgets the tenant\'s expired nonces, not the live ones', async () => {
    const u = await f.user(tenant)
    await nonceOf(u)
    clock().advance(10 * 60_000 + 1)
    await nonceOf(u)
    const rows = await t.deps.database.db.select().from(dappNonces).where(eq(dappNonces.userId, u.id))
    expect(rows).toHaveLength(1)
    expect(rows[0]!.expiresAt).toBeGreaterThan(t.clock.now())
  })
})

describe('POST /v1/dapps/sign-personal-message (EVM)', () => {
  test('a custodial wallet signs EIP-191: the signature verifies for the wallet\'s address, the answer shows the text and its hex', async () => {
    const u = await f.user(tenant)
    const w = await custodialWallet(f.api, u)
    const message = 'Hello from Example: sign in ✓'
    const res = await sign(u, { walletId: w.id, message })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ walletId: w.id, chain: 'ethereum', isTestnet: false, address: w.address, signingScheme: 'eip191-personal-sign', message, messageHex: bytesToHex(new TextEncoder().encode(message)), nonce: null })
    expect(res.body.signature).toMatch(/^0x[0-9a-f]{130}$/)
    expect(await verifyMessage({ address: w.address, message, signature: res.body.signature })).toBe(true)
    expect(await verifyMessage({ address: privateKeyToAccount(generatePrivateKey()).address, message, signature: res.body.signature })).toBe(false)
  })

  test('encoding hex signs the bytes; bytes that are not UTF-8 answer message null and their hex', async () => {
    const u = await f.user(tenant)
    const w = await custodialWallet(f.api, u)
    const raw: Hex = '0xfffe00c3280a'
    const res = await sign(u, { walletId: w.id, message: raw, encoding: 'hex' })
    expect(res.status).toBe(200)
    expect(res.body.message).toBeNull()
    expect(res.body.messageHex).toBe(raw)
    expect(await verifyMessage({ address: w.address, message: { raw }, signature: res.body.signature })).toBe(true)
    // the same characters as text are another message
    const asText = await sign(u, { walletId: w.id, message: raw })
    expect(asText.status).toBe(200)
    expect(asText.body.message).toBe(raw)
    expect(await verifyMessage({ address: w.address, message: raw, signature: asText.body.signature })).toBe(true)
    const bad = await sign(u, { walletId: w.id, message: '0xabc', encoding: 'hex' })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe('DAPP_MESSAGE_INVALID')
  })

  test('another user\'s or another tenant\'s wallet answers 404, exactly like an unknown one', async () => {
    const owner = await f.user(tenant)
    const w = await custodialWallet(f.api, owner)
    const sameTenant = await f.user(tenant)
    const otherTenant = await f.user(other)
    for (const u of [sameTenant, otherTenant]) {
      const res = await sign(u, { walletId: w.id, message: 'hello' })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ statusCode: 404, error: 'NotFoundError', message: 'Wallet not found' })
    }
    expect((await sign(sameTenant, { walletId: crypto.randomUUID(), message: 'hello' })).body).toEqual({ statusCode: 404, error: 'NotFoundError', message: 'Wallet not found' })
  })

  test('a non-custodial or an MPC wallet answers 400 DAPP_WALLET_NOT_CUSTODIAL', async () => {
    const u = await f.user(tenant)
    const client = await clientWallet(f.api, u, privateKeyToAccount(generatePrivateKey()))
    const res = await sign(u, { walletId: client.id, message: 'hello' })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ statusCode: 400, error: 'BadRequestError', code: 'DAPP_WALLET_NOT_CUSTODIAL', details: { keyManagementScheme: 'client_side' } })
    // an MPC wallet (as the DKG makes it: no key held here)
    const mpcId = crypto.randomUUID()
    const now = t.clock.now()
    const address = privateKeyToAccount(generatePrivateKey()).address
    await t.deps.database.write((tx) => tx.insert(wallets).values({
      id: mpcId, tenantId: tenant.id, userId: u.id, chain: 'polygon', isTestnet: false, address, addressKey: address.toLowerCase(), label: null,
      walletType: 'managed', keyManagementScheme: 'mpc_tss', isPrimary: false, isWatchOnly: false, dataKeyWrapped: null, keySealed: null, keyVersion: null,
      migrationDeviceId: null, createdAt: now, updatedAt: now, deletedAt: null,
    }))
    const mpc = await sign(u, { walletId: mpcId, message: 'hello' })
    expect(mpc.status).toBe(400)
    expect(mpc.body).toMatchObject({ code: 'DAPP_WALLET_NOT_CUSTODIAL', details: { keyManagementScheme: 'mpc_tss' } })
    expect(mpc.body.message).toContain('MPC')
  })

  test('a schema failure (no message, unknown encoding) answers the spec\'s 400 envelope', async () => {
    const u = await f.user(tenant)
    const w = await custodialWallet(f.api, u)
    for (const body of [{ walletId: w.id }, { walletId: w.id, message: 'x', encoding: 'base64' }, { walletId: w.id, message: '' }]) {
      const res = await sign(u, body)
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: 'Request validation failed' })
    }
  })
})

describe('what sign-personal-message refuses', () => {
  let u: SignedInUser
  let w: { id: string; address: Hex }
  let sol: { id: string; address: string }
  const account = privateKeyToAccount(generatePrivateKey())
  const eip1559 = { type: 'eip1559' as const, chainId: 1, nonce: 0, to: account.address, value: 10n ** 18n, gas: 21_000n, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n }
  beforeAll(async () => {
    u = await f.user(tenant)
    w = await custodialWallet(f.api, u)
    const s = await f.api.post('/v1/wallets/', { chain: 'solana' }, { token: u.accessToken })
    sol = s.body
  })

  const expectRefused = async (walletId: string, body: Record<string, unknown>, code: string) => {
    const res = await sign(u, { walletId, ...body })
    expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
    expect(res.body).toMatchObject({ statusCode: 400, error: 'BadRequestError', code })
    expect(res.body.signature).toBeUndefined()
    return res
  }

  test('a serialized EVM transaction, signed or not, as bytes or as hex text', async () => {
    const signed = await account.signTransaction(eip1559)
    const unsigned = serializeTransaction(eip1559)
    const legacy = await account.signTransaction({ type: 'legacy', chainId: 1, nonce: 3, to: account.address, value: 1n, gas: 21_000n, gasPrice: 10n ** 9n })
    await expectRefused(w.id, { message: signed, encoding: 'hex' }, 'DAPP_MESSAGE_IS_TRANSACTION')
    await expectRefused(w.id, { message: unsigned, encoding: 'hex' }, 'DAPP_MESSAGE_IS_TRANSACTION')
    await expectRefused(w.id, { message: legacy, encoding: 'hex' }, 'DAPP_MESSAGE_IS_TRANSACTION')
    const asText = await expectRefused(w.id, { message: signed }, 'DAPP_MESSAGE_IS_TRANSACTION')
    expect(asText.body.message).toContain('EVM transaction')
    await expectRefused(w.id, { message: unsigned.slice(2) }, 'DAPP_MESSAGE_IS_TRANSACTION')
    await expectRefused(w.id, { message: Buffer.from(unsigned.slice(2), 'hex').toString('base64') }, 'DAPP_MESSAGE_IS_TRANSACTION')
  })

  test('a serialized Solana transaction or message (whose signature would sign the transaction), on either family\'s wallet', async () => {
    const kp = Keypair.generate()
    const tx = new Transaction({ feePayer: kp.publicKey, blockhash: Keypair.generate().publicKey.toBase58(), lastValidBlockHeight: 1 })
      .add(SystemProgram.transfer({ fromPubkey: kp.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 5 }))
    const message = tx.serializeMessage()
    const res = await expectRefused(sol.id, { message: bytesToHex(message), encoding: 'hex' }, 'DAPP_MESSAGE_IS_TRANSACTION')
    expect(res.body.message).toContain('Solana message')
    await expectRefused(sol.id, { message: message.toString('base64') }, 'DAPP_MESSAGE_IS_TRANSACTION')
    await expectRefused(sol.id, { message: base58.encode(message) }, 'DAPP_MESSAGE_IS_TRANSACTION')
    tx.sign(kp)
    await expectRefused(sol.id, { message: tx.serialize({ verifySignatures: false }).toString('base64') }, 'DAPP_MESSAGE_IS_TRANSACTION')
    await expectRefused(w.id, { message: bytesToHex(message), encoding: 'hex' }, 'DAPP_MESSAGE_IS_TRANSACTION')
  })

  test('EIP-712 typed data for a permit, as JSON, as eth_signTypedData params, as a permit message alone, and its 0x1901 pre-image', async () => {
    const typed = {
      types: {
        EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'chainId', type: 'uint256' }, { name: 'verifyingContract', type: 'address' }],
        Permit: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }],
      },
      primaryType: 'Permit',
      domain: { name: 'USD Coin', chainId: 1, verifyingContract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' },
      message: { owner: w.address, spender: account.address, value: '115792089237316195423570985008687907853269984665640564039457584007913129639935', nonce: 0, deadline: 9999999999 },
    }
    await expectRefused(w.id, { message: JSON.stringify(typed) }, 'DAPP_MESSAGE_IS_TYPED_DATA')
    await expectRefused(w.id, { message: JSON.stringify([w.address, JSON.stringify(typed)]) }, 'DAPP_MESSAGE_IS_TYPED_DATA')
    await expectRefused(w.id, { message: JSON.stringify({ details: { token: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', amount: '1' }, spender: account.address, sigDeadline: '9999999999' }) }, 'DAPP_MESSAGE_IS_TYPED_DATA')
    const preimage = `0x1901${keccak256(toHex('domain')).slice(2)}${keccak256(toHex('struct')).slice(2)}`
    await expectRefused(w.id, { message: preimage, encoding: 'hex' }, 'DAPP_MESSAGE_IS_TYPED_DATA')
  })

  test('a bare 32-byte hash, as bytes or as 64 hex digits; 32 characters of readable text are signed', async () => {
    const hash = keccak256(toHex('an order'))
    await expectRefused(w.id, { message: hash, encoding: 'hex' }, 'DAPP_MESSAGE_IS_HASH')
    await expectRefused(w.id, { message: hash }, 'DAPP_MESSAGE_IS_HASH')
    await expectRefused(sol.id, { message: hash.slice(2) }, 'DAPP_MESSAGE_IS_HASH')
    const text = 'Please sign in to example.com!!!'
    expect(new TextEncoder().encode(text).length).toBe(32)
    expect((await sign(u, { walletId: w.id, message: text })).status).toBe(200)
    // ordinary JSON that is not typed data is a message like any other
    expect((await sign(u, { walletId: w.id, message: JSON.stringify({ action: 'login', domain: 'example.com' }) })).status).toBe(200)
  })
})

describe('nonces spent by sign-personal-message', () => {
  test('a nonce signs once: the second use answers 409 DAPP_NONCE_USED', async () => {
    const u = await f.user(tenant)
    const w = await custodialWallet(f.api, u)
    const { nonce } = (await nonceOf(u)).body
    const first = await sign(u, { walletId: w.id, message: siwe(w.address, nonce), nonce })
    expect(first.status).toBe(200)
    expect(first.body.nonce).toBe(nonce)
    const again = await sign(u, { walletId: w.id, message: siwe(w.address, nonce), nonce })
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ statusCode: 409, error: 'ConflictError', code: 'DAPP_NONCE_USED' })
    const row = await t.deps.database.db.select().from(dappNonces).where(eq(dappNonces.userId, u.id)).get()
    expect(row!.usedAt).not.toBeNull()
  })

  test('two signatures racing for one nonce: exactly one is made', async () => {
    const u = await f.user(tenant)
    const w = await custodialWallet(f.api, u)
    const { nonce } = (await nonceOf(u)).body
    const answers = await Promise.all(Array.from({ length: 5 }, () => sign(u, { walletId: w.id, message: siwe(w.address, nonce), nonce })))
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409])
  })

  test('the message must contain the nonce; a refused message or wallet does not spend it', async () => {
    const u = await f.user(tenant)
    const w = await custodialWallet(f.api, u)
    const client = await clientWallet(f.api, u, privateKeyToAccount(generatePrivateKey()))
    const { nonce } = (await nonceOf(u)).body
    const missing = await sign(u, { walletId: w.id, message: siwe(w.address, 'another0nonce'), nonce })
    expect(missing.status).toBe(400)
    expect(missing.body.code).toBe('DAPP_NONCE_NOT_IN_MESSAGE')
    expect((await sign(u, { walletId: client.id, message: siwe(w.address, nonce), nonce })).body.code).toBe('DAPP_WALLET_NOT_CUSTODIAL')
    // 64 hex digits: a hash, refused, even though it contains the nonce
    expect((await sign(u, { walletId: w.id, message: nonce.repeat(2), nonce })).body.code).toBe('DAPP_MESSAGE_IS_HASH')
    expect((await sign(u, { walletId: w.id, message: siwe(w.address, nonce), nonce })).status).toBe(200)
  })

  test('an expired nonce answers 400 DAPP_NONCE_EXPIRED; another user\'s or an unknown one 400 DAPP_NONCE_INVALID', async () => {
    const u = await f.user(tenant)
    const w = await custodialWallet(f.api, u)
    const { nonce } = (await nonceOf(u)).body
    clock().advance(10 * 60_000 + 1)
    const late = await sign(u, { walletId: w.id, message: siwe(w.address, nonce), nonce })
    expect(late.status).toBe(400)
    expect(late.body).toMatchObject({ statusCode: 400, error: 'BadRequestError', code: 'DAPP_NONCE_EXPIRED' })
    const v = await f.user(tenant)
    const vw = await custodialWallet(f.api, v)
    const theirs = (await nonceOf(u)).body.nonce
    for (const n of [theirs, 'a'.repeat(32)]) {
      const res = await sign(v, { walletId: vw.id, message: siwe(vw.address, n), nonce: n })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('DAPP_NONCE_INVALID')
    }
    // and the owner can still spend the one the other user tried
    expect((await sign(u, { walletId: w.id, message: siwe(w.address, theirs), nonce: theirs })).status).toBe(200)
  })
})

describe('Solana personal messages', () => {
  test('a custodial Solana wallet signs the bytes with ed25519; the signature (base58) verifies against its address', async () => {
    const u = await f.user(tenant)
    const s = await f.api.post('/v1/wallets/', { chain: 'solana-devnet' }, { token: u.accessToken })
    expect(s.status).toBe(201)
    const message = 'example.com wants you to sign in with your Solana account'
    const res = await sign(u, { walletId: s.body.id, message })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ chain: 'solana', isTestnet: true, address: s.body.address, signingScheme: 'solana-ed25519', message })
    const sig = base58.decode(res.body.signature)
    expect(sig.length).toBe(64)
    expect(ed25519.verify(sig, new TextEncoder().encode(message), base58.decode(s.body.address))).toBe(true)
    expect(ed25519.verify(sig, new TextEncoder().encode(`${message}.`), base58.decode(s.body.address))).toBe(false)
  })
})

describe('POST /v1/dapps/broadcast refusals (no node needed)', () => {
  const signer = privateKeyToAccount(generatePrivateKey())
  let u: SignedInUser
  beforeAll(async () => {
    u = await f.user(tenant)
    const c = await f.api.get(`/v1/wallets/client/challenge?chain=sepolia&address=${signer.address}`, { token: u.accessToken })
    const res = await f.api.post('/v1/wallets/client', { challengeId: c.body.challengeId, signature: await signer.signMessage({ message: c.body.message }) }, { token: u.accessToken })
    expect(res.status).toBe(201)
  })
  const tx = (over: Record<string, unknown> = {}) => ({ type: 'eip1559' as const, chainId: 11155111, nonce: 0, to: signer.address, value: 1n, gas: 21_000n, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n, ...over })
  const expectCode = async (body: Record<string, unknown>, status: number, code: string) => {
    const res = await broadcast(u, body)
    expect(res.status, code).toBe(status)
    expect(res.body).toMatchObject({ statusCode: status, error: 'BlockchainError', code, retryable: false })
    return res
  }

  test('not a transaction, or not signed: 400 SIGNATURE_DECODE_FAILED', async () => {
    await expectCode({ chain: 'sepolia', signedTransaction: 'hello' }, 400, 'SIGNATURE_DECODE_FAILED')
    await expectCode({ chain: 'sepolia', signedTransaction: '0x1234' }, 400, 'SIGNATURE_DECODE_FAILED')
    await expectCode({ chain: 'sepolia', signedTransaction: serializeTransaction(tx()) }, 400, 'SIGNATURE_DECODE_FAILED')
    await expectCode({ chain: 'solana', signedTransaction: '!!not base64!!' }, 400, 'SIGNATURE_DECODE_FAILED')
  })

  test('signed by a key that is not one of the caller\'s wallets on that chain: 400 WRONG_SIGNER', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey())
    const res = await expectCode({ chain: 'sepolia', signedTransaction: await stranger.signTransaction(tx()) }, 400, 'WRONG_SIGNER')
    expect(res.body.message).toContain(stranger.address)
    // the caller's own key, but named on another chain (the wallet is a Sepolia one)
    await expectCode({ chain: 'polygon-amoy', signedTransaction: await signer.signTransaction(tx({ chainId: 80002 })) }, 400, 'WRONG_SIGNER')
    // another user (same tenant, other tenant) broadcasting the caller's signed transaction
    for (const someone of [await f.user(tenant), await f.user(other)]) {
      const res2 = await broadcast(someone, { chain: 'sepolia', signedTransaction: await signer.signTransaction(tx()) })
      expect(res2.status).toBe(400)
      expect(res2.body.code).toBe('WRONG_SIGNER')
    }
  })

  test('a legacy transaction without an EIP-155 chain id: 400 CHAIN_ID_MISMATCH', async () => {
    const legacy = { type: 'legacy' as const, nonce: 0, to: signer.address, value: 1n, gas: 21_000n, gasPrice: 10n ** 9n }
    // signed over the pre-EIP-155 hash (no chain id): v is 27 or 28
    const sig = parseSignature(await signer.sign({ hash: keccak256(serializeTransaction(legacy)) }))
    const raw = serializeTransaction(legacy, sig)
    await expectCode({ chain: 'sepolia', signedTransaction: raw }, 400, 'CHAIN_ID_MISMATCH')
  })

  test('an unknown chain answers 400; the network down answers 503 and records nothing', async () => {
    const bad = await broadcast(u, { chain: 'dogecoin', signedTransaction: '0x00' })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ statusCode: 400, error: 'BadRequestError', message: 'Unsupported chain: dogecoin' })
    const down = await broadcast(u, { chain: 'sepolia', signedTransaction: await signer.signTransaction(tx()) })
    expect(down.status).toBe(503)
    expect(down.body).toMatchObject({ statusCode: 503, error: 'ServiceUnavailableError' })
    expect(await t.deps.database.db.select().from(transactions).where(eq(transactions.userId, u.id))).toEqual([])
  })

  test('Solana: a signature that does not verify answers 400 SIGNATURE_INVALID; one missing, SIGNATURE_DECODE_FAILED', async () => {
    const kp = Keypair.generate()
    const tx2 = new Transaction({ feePayer: kp.publicKey, blockhash: Keypair.generate().publicKey.toBase58(), lastValidBlockHeight: 1 })
      .add(SystemProgram.transfer({ fromPubkey: kp.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 5 }))
    const forged = Transaction.populate(tx2.compileMessage(), [base58.encode(ed25519.sign(new TextEncoder().encode('something else'), kp.secretKey.slice(0, 32)))])
    await expectCode({ chain: 'solana', signedTransaction: forged.serialize({ verifySignatures: false }).toString('base64') }, 400, 'SIGNATURE_INVALID')
    const unsigned = tx2.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64')
    await expectCode({ chain: 'solana', signedTransaction: unsigned }, 400, 'SIGNATURE_DECODE_FAILED')
  })
})
